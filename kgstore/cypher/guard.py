"""The read-only check of user Cypher, and the few names we must interpolate.

``kgbench cypher`` (and later the Neo4j backend and the HTTP service) runs Cypher that
users write. Two layers keep that read-only: this check, and the backend's read-only
transaction. The transaction alone is not enough: LadybugDB runs ``COPY ... TO`` (writes
a file), ``LOAD '<lib.so>'`` (loads native code), ``LOAD FROM '<file>'`` (reads any file)
and ``UNINSTALL`` inside one (issue 18). So the check is an allow-list that fails closed:

* the query is split into tokens with the engine's own comment, string and name rules
  (:mod:`kgstore.cypher.lexer`); text the lexer cannot read with certainty is refused;
* it must be ONE statement (a trailing ``;`` is fine) that starts with a read clause;
* every keyword outside strings, backquoted names, property names (after ``.``), labels
  (after ``:``) and map keys (before ``:``) must be a read keyword (:data:`READ_CLAUSES`
  and the expression keywords); any other keyword of the dialect's write or admin
  clauses is refused by name. An unquoted variable spelled like such a keyword
  (``MATCH (set) ...``) is refused too: backquote it;
* a word that is no keyword may only stand where an identifier can (not right after an
  operand such as ``)``, a literal or another name), so a clause the check does not
  know is refused as well, not mistaken for a variable;
* ``CALL`` runs only the catalogue functions listed in :data:`CATALOGUE`; table
  functions that read files (``read_csv``, ``read_parquet``, ...) and functions that
  change state (``nextval``) are refused wherever they appear; for Neo4j only its
  built-in functions may appear in expressions (no ``apoc.*``, ``genai.*``, ...).

The check also refuses, before the engine sees it, a query beyond the size the engine
survives (:data:`MAX_TOKENS`, :data:`MAX_NESTING`, :data:`MAX_CASE_NESTING`): LadybugDB's
parser and binder recurse on nested and chained expressions, so a deep one crashes the
process (a segfault, no error) and a large one takes seconds to compile, time that the
engine's query timeout does not cover. The bounds are far above hand-written queries;
long lists belong in a parameter (``WHERE e.id IN $ids``), where they cost nothing.

Queries that pass may still be wrong; the engine reports those. The ``neo4j`` dialect
checks what the Neo4j backend runs (in ``execute_read`` transactions).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, NoReturn

from kgstore.cypher.lexer import LADYBUG, NEO4J, Kind, LexError, LexRules, Token, tokenise
from kgstore.cypher.size_bounds import LADYBUG_SIZE_FUNCTIONS, size_refusal
from kgstore.errors import QueryTooLargeError, ReadOnlyQueryError

Dialect = Literal["ladybug", "neo4j"]

# Limits on a query's size, measured with LadybugDB 0.22 (python3.11, one query per
# process, 2 shared cores; times are the engine's, before the first row):
# * nesting of (), [] and {}: `RETURN ((...1...))` takes 0.4 s at 256 deep, 4.8 s at 2000,
#   and segfaults from 2500; lists and maps cost more, `RETURN [[...1...]]` 0.06 s at 32,
#   0.25 s at 64, 1.1-2.7 s at 128, 11 s at 256 (a map 18 s);
# * every CASE around an expression roughly doubles the time it takes: plain CASE in
#   CASE 0.13 s at 16 deep, 2.7 s at 20, over 30 s at 24; four CASE around 64 nested
#   lists 3.9 s (0.26 s without);
# * tokens: `RETURN 1+1+...` takes 0.5 s at 2,000 terms (4,000 tokens), 3 s at 5,000,
#   and segfaults at 10,000 (the expression tree is as deep as it is long); a list of
#   20,000 literals takes 2 s and 740 MB.
# The engine's query timeout does not stop any of this (it runs before execution). The
# bounds keep a crash out of reach and ordinary shapes under a second; the worst
# combination found within them, four CASE around 32 levels of 26-key maps (3,350
# tokens), takes 4.9 s, which `kgbench cypher --timeout` still stops.
MAX_TOKENS = 4000
"""The most tokens (words, numbers, strings, parameters, symbols) a query may have."""
MAX_NESTING = 32
"""The deepest a query may nest brackets: ``(``, ``[`` and ``{`` together."""
MAX_CASE_NESTING = 4
"""The deepest a query may nest ``CASE ... END`` inside one another."""

READ_CLAUSES = (
    "MATCH", "OPTIONAL MATCH", "WHERE", "WITH", "UNWIND", "RETURN", "ORDER BY", "SKIP",
    "LIMIT", "UNION [ALL]",
)
"""The clauses a passthrough query may use (plus ``CALL`` of :data:`CATALOGUE`)."""

CATALOGUE: dict[str, tuple[str, ...]] = {
    # LadybugDB table functions that describe the store and read nothing else.
    "ladybug": (
        "show_tables()", "table_info('Entity')", "show_connection('Fact')",
        "show_functions()", "db_version()",
    ),
    # Neo4j procedures that describe the graph's schema (names are case-sensitive).
    # SHOW commands are refused: several are administration (SHOW USERS, ...).
    "neo4j": (
        "db.labels()", "db.relationshipTypes()", "db.propertyKeys()",
        "db.schema.visualization()", "db.schema.nodeTypeProperties()",
        "db.schema.relTypeProperties()", "dbms.components()",
    ),
}
"""Per dialect, the functions ``CALL`` may run, as users write them."""

# Words that begin a query, a UNION branch or a subquery.
_CLAUSE_STARTS = frozenset({"MATCH", "OPTIONAL", "UNWIND", "WITH", "RETURN", "CALL"})
# Read keywords of both dialects: clauses, their modifiers, and expression keywords.
_READ_KEYWORDS = _CLAUSE_STARTS | {
    "WHERE", "ORDER", "BY", "SKIP", "LIMIT", "UNION", "ALL", "AS", "DISTINCT", "ASC",
    "ASCENDING", "DESC", "DESCENDING", "AND", "OR", "XOR", "NOT", "IN", "IS", "NULL", "TRUE",
    "FALSE", "CASE", "WHEN", "THEN", "ELSE", "END", "STARTS", "ENDS", "CONTAINS", "EXISTS",
    "COUNT", "ANY", "NONE", "SINGLE", "YIELD", "SHORTEST",
}
# Keywords after which an operand has ended (so an identifier cannot follow).
_OPERAND_END_KEYWORDS = frozenset(
    {"NULL", "TRUE", "FALSE", "END", "ASC", "ASCENDING", "DESC", "DESCENDING"})
# Keywords that open a read subquery with '{'.
_SUBQUERY_OPENERS = frozenset({"EXISTS", "COUNT", "COLLECT"})
# The next keyword that names a refused clause fully (LOAD FROM, DETACH DELETE, ...).
_COMPOUNDS = {
    "LOAD": ("FROM", "EXTENSION", "CSV"), "DETACH": ("DELETE",), "NODETACH": ("DELETE",),
    "BEGIN": ("TRANSACTION",), "EXPORT": ("DATABASE",), "IMPORT": ("DATABASE",),
    "FORCE": ("INSTALL",),
}
_WHY = {
    "LOAD": "it reads files or loads native libraries into the engine",
    "LOAD FROM": "it reads files", "LOAD CSV": "it reads files",
    "LOAD EXTENSION": "it loads native code into the engine",
    "COPY": "it writes or reads files",
    "EXPORT DATABASE": "it writes files", "IMPORT DATABASE": "it reads files into the store",
    "INSTALL": "it installs engine extensions", "FORCE INSTALL": "it installs engine extensions",
    "UNINSTALL": "it removes engine extensions", "UPDATE": "it updates engine extensions",
    "ATTACH": "it opens other databases", "USE": "it switches databases",
    "BEGIN": "it controls transactions", "BEGIN TRANSACTION": "it controls transactions",
    "COMMIT": "it controls transactions", "ROLLBACK": "it controls transactions",
    "CHECKPOINT": "it writes the store",
    "SHOW": "it lists the server's users, settings, databases or transactions "
            "(administration)",
    "TERMINATE": "it stops other sessions' transactions (administration)",
    "EXPLAIN": "plans are not part of the passthrough",
    "PROFILE": "profiles are not part of the passthrough",
}
_MODIFIES = "it would modify the store"
_AFTER_OPERAND = ("only read clauses are accepted, and this word follows a complete "
                  "expression, where a clause would start")
# Closing brackets and the opener each one matches.
_CLOSERS = {")": "(", "]": "[", "}": "{"}
# Symbols that follow a variable rather than a clause keyword.
_AFTER_A_NAME = frozenset({")", ",", ".", "]", "}", "=", "<", ">", "+", "-", "*", "/"})


@dataclass(frozen=True)
class _Policy:
    lex: LexRules
    read_keywords: frozenset[str]
    refused_keywords: frozenset[str]
    catalogue: frozenset[str]  # normalised by _catalogue_key
    case_sensitive_calls: bool

    def catalogue_key(self, name: str) -> str:
        return name if self.case_sensitive_calls else name.lower()


_LADYBUG = _Policy(
    lex=LADYBUG,
    read_keywords=frozenset(_READ_KEYWORDS | {"CAST", "WSHORTEST", "TRAIL", "ACYCLIC"}),
    # Every statement LadybugDB 0.22 accepts other than a query (its parser lists them),
    # the updating clauses, and HINT (a join-order hint; not documented here).
    refused_keywords=frozenset({
        "ALTER", "ANALYZE", "ATTACH", "BEGIN", "CHECKPOINT", "COMMENT", "COMMIT", "COPY",
        "CREATE", "DELETE", "DETACH", "DROP", "EXPLAIN", "EXPORT", "FORCE", "IMPORT",
        "INSTALL", "LOAD", "MERGE", "PROFILE", "ROLLBACK", "SET", "UNINSTALL", "UPDATE",
        "USE", "REMOVE", "FOREACH", "TRANSACTION", "HINT", "MACRO",
    }),
    catalogue=frozenset(c.split("(")[0].lower() for c in CATALOGUE["ladybug"]),
    case_sensitive_calls=False,
)
_NEO4J = _Policy(
    lex=NEO4J,
    read_keywords=frozenset(_READ_KEYWORDS | {
        "OFFSET", "COLLECT", "REDUCE", "PATH", "PATHS", "GROUPS"}),
    refused_keywords=frozenset({
        "CREATE", "MERGE", "SET", "DELETE", "DETACH", "NODETACH", "REMOVE", "FOREACH",
        "INSERT", "LOAD", "USE", "DROP", "ALTER", "RENAME", "GRANT", "DENY", "REVOKE", "SHOW",
        "TERMINATE", "START", "STOP", "ENABLE", "DEALLOCATE", "REALLOCATE", "DRYRUN",
        "CYPHER", "EXPLAIN", "PROFILE", "FINISH", "BEGIN", "COMMIT", "ROLLBACK",
        "TRANSACTION", "TRANSACTIONS", "USING", "PERIODIC", "CSV", "EXECUTE", "IMPERSONATE",
    }),
    catalogue=frozenset(c.split("(")[0] for c in CATALOGUE["neo4j"]),
    case_sensitive_calls=True,
)
_POLICIES: dict[str, _Policy] = {"ladybug": _LADYBUG, "neo4j": _NEO4J}

# LadybugDB functions refused in expressions: its table functions (they read files, the
# engine's internals or settings, and run only through CALL or LOAD FROM), extension
# readers, and functions that change the engine's state. LadybugDB 0.22's own list:
# CALL show_functions() RETURN * (tests check this list against the real engine).
_LADYBUG_REFUSED_FUNCTIONS = frozenset({
    "read_csv", "read_csv_serial", "read_csv_parallel", "read_parquet", "read_npy",
    "read_pandas", "read_json", "read_text", "read_blob", "show_attached_databases",
    "stats_info", "show_connection", "fsm_info", "show_tables", "current_setting",
    "storage_info", "disk_size_info", "show_warnings", "storage_version", "show_functions",
    "file_info", "show_indexes", "projected_graph_info", "show_macros",
    "show_loaded_extensions", "show_projected_graphs", "show_official_extensions",
    "disk_info", "show_sequences", "bm_info", "catalog_version", "table_info", "db_version",
    "show_graphs", "project_graph", "project_graph_cypher", "drop_projected_graph",
    "_cache_array_column_locally", "clear_warnings", "copy_csv", "copy_parquet",
    "iceberg_scan", "iceberg_metadata", "iceberg_snapshots", "delta_scan", "azure_scan",
    "sqlite_scan", "postgres_scan", "duckdb_scan", "clear_attached_db_cache",
    "create_fts_index", "drop_fts_index", "query_fts_index", "create_vector_index",
    "drop_vector_index", "query_vector_index", "nextval", "setseed",
})
_FILE_LIKE = re.compile(r"^read_|_scan$|^(?:create|drop|query)_\w+_index$")
# Namespaces of Neo4j's built-in functions; every other namespace is a plugin's.
_NEO4J_FUNCTION_NAMESPACES = frozenset(
    {"date", "datetime", "localdatetime", "localtime", "time", "duration", "point", "vector"})


def read_only_summary(dialect: Dialect = "ladybug") -> str:
    """What a passthrough query may contain, for messages and help text."""
    return (f"{', '.join(READ_CLAUSES)}, and CALL of {', '.join(CATALOGUE[dialect])}")


def assert_read_only(query: str, dialect: Dialect = "ladybug") -> None:
    """Raise :class:`ReadOnlyQueryError` unless ``query`` is one read-only query of
    ``dialect`` (see the module docstring); the message names what was refused."""
    policy = _POLICIES.get(dialect)
    if policy is None:
        raise ValueError(f"unknown Cypher dialect {dialect!r}: use one of {sorted(_POLICIES)}")
    tokens = _tokens(query, policy)
    check = _Check(tokens, policy, dialect)
    # Nesting first: a query too deep is usually too long as well, and the depth is what
    # the user has to change.
    check.check_nesting(complete=len(tokens) <= MAX_TOKENS)
    _check_size(tokens)
    check.run()


def parameter_names(query: str, dialect: Dialect = "ladybug") -> frozenset[str]:
    """The names of the parameters ``query`` uses (``$p`` gives ``p``), read with the
    engine's rules: a ``$p`` inside a string or a comment is none. Raise
    :class:`ReadOnlyQueryError` where :func:`assert_read_only` would on how the text
    reads (so check the query first)."""
    policy = _POLICIES.get(dialect)
    if policy is None:
        raise ValueError(f"unknown Cypher dialect {dialect!r}: use one of {sorted(_POLICIES)}")
    tokens = _tokens(query, policy)
    _check_size(tokens)
    return frozenset(t.text for t in tokens if t.kind is Kind.PARAM)


def _tokens(query: str, policy: _Policy) -> list[Token]:
    """The query's tokens, at most ``MAX_TOKENS + 1`` of them."""
    try:
        return tokenise(query, policy.lex, max_tokens=MAX_TOKENS)
    except LexError as exc:
        raise ReadOnlyQueryError(
            f"{exc}; the read-only check refuses what it cannot read with certainty"
        ) from None


def _check_size(tokens: Sequence[Token]) -> None:
    if len(tokens) > MAX_TOKENS:
        raise QueryTooLargeError(
            f"the query is longer than {MAX_TOKENS:,} tokens (words, numbers, strings and "
            "symbols), and the read-only check refuses longer ones before the engine sees "
            "them (it crashes on long expressions): pass a long list as a parameter "
            "(WHERE e.id IN $ids) instead of writing it out")


class _Check:
    """One pass over the tokens of a query, refusing at the first thing not allowed."""

    def __init__(self, tokens: Sequence[Token], policy: _Policy, dialect: Dialect) -> None:
        self.tokens = list(tokens)
        self.policy = policy
        self.dialect = dialect
        self.keywords = policy.read_keywords | policy.refused_keywords
        self.handled: set[int] = set()  # indexes of function names already checked

    # -- helpers --------------------------------------------------------------------------
    def _at(self, i: int) -> Token | None:
        return self.tokens[i] if 0 <= i < len(self.tokens) else None

    def _symbol_at(self, i: int, text: str) -> bool:
        t = self._at(i)
        return t is not None and t.is_symbol(text)

    def _keyword_at(self, i: int) -> str | None:
        """The upper-cased word at ``i`` if it is a keyword in keyword position."""
        t = self._at(i)
        if t is None or t.kind is not Kind.WORD or self._is_name_position(i):
            return None
        word = t.text.upper()
        return word if word in self.keywords else None

    def _is_name_position(self, i: int) -> bool:
        """A property (after '.'), a label or map value (after ':'), or a map key, named
        argument or pattern variable (before ':', opening a map, list, pattern or
        argument): never a clause there."""
        if self._symbol_at(i - 1, ".") or self._symbol_at(i - 1, ":"):
            return True
        before = self._at(i - 1)
        return (self._symbol_at(i + 1, ":") and before is not None
                and before.kind is Kind.SYMBOL and before.text in ("(", "[", "{", ","))

    def _looks_like_a_name(self, i: int) -> bool:
        """Whether the keyword at ``i`` is followed as a variable would be."""
        t = self._at(i + 1)
        return t is None or (t.kind is Kind.SYMBOL and t.text in _AFTER_A_NAME)

    def _refuse(self, what: str, why: str, *, name_hint: str | None = None) -> NoReturn:
        hint = (f" (to use {name_hint} as a name, write it in backquotes: `{name_hint}`)"
                if name_hint else "")
        raise ReadOnlyQueryError(
            f"`{what}` is not allowed: {why}{hint}. The cypher command runs one read-only "
            f"query made of {read_only_summary(self.dialect)}"
        )

    # -- the pass -------------------------------------------------------------------------
    def run(self) -> None:
        tokens = self.tokens
        for i, t in enumerate(tokens):
            if t.is_symbol(";") and i != len(tokens) - 1:
                self._refuse(";", f"the query goes on after the `;` at character {t.pos + 1}, "
                             "and only one statement may run at a time")
        if tokens and tokens[-1].is_symbol(";"):
            tokens.pop()
        if not tokens:
            raise ReadOnlyQueryError(
                "the query is empty: give one read-only query, e.g. "
                "MATCH (e:Entity) RETURN e.id LIMIT 5")
        self._expect_clause_start(0, "a query starts with MATCH, OPTIONAL MATCH, UNWIND, "
                                     "WITH, RETURN or CALL")
        for i, t in enumerate(tokens):
            if i in self.handled:
                continue
            if t.kind in (Kind.WORD, Kind.NAME) and not self._symbol_at(i - 1, "."):
                if self._check_function_call(i):
                    continue
            if t.kind is Kind.WORD and not self._is_name_position(i):
                self._check_word(i, t)

    def check_nesting(self, *, complete: bool) -> None:
        """Refuse brackets nested deeper than :data:`MAX_NESTING` and CASE deeper than
        :data:`MAX_CASE_NESTING` (see the module docstring); ``complete`` is False where
        the tokens are only the query's first ones (the depth is then a lower bound).

        Openers go on a stack, and a closer takes one off only where it matches the top
        (END the top CASE, ``)`` the top ``(``), as the engine's parser pairs them: a
        stray ``)`` or an ``end`` in name position never lowers the count."""
        stack: list[str] = []
        cases = deepest = deepest_case = 0
        for i, t in enumerate(self.tokens):
            opener = t.text if t.kind is Kind.SYMBOL and t.text in _CLOSERS.values() else None
            if opener is None and t.kind is Kind.WORD and self._keyword_at(i) == "CASE":
                opener = "CASE"
            if opener is not None:
                stack.append(opener)
                cases += opener == "CASE"
                deepest = max(deepest, len(stack) - cases)
                deepest_case = max(deepest_case, cases)
                continue
            closes = (_CLOSERS.get(t.text) if t.kind is Kind.SYMBOL
                      else "CASE" if self._keyword_at(i) == "END" else None)
            if closes is not None and stack and stack[-1] == closes:
                stack.pop()
                cases -= closes == "CASE"
        at_least = "" if complete else "at least "
        if deepest > MAX_NESTING:
            raise QueryTooLargeError(
                f"the query nests brackets {at_least}{deepest} deep (at most {MAX_NESTING} allowed): "
                "the engine slows down sharply and then crashes on deep nesting, so the read-only check refuses it "
                "before the engine sees it; flatten the expression, or pass nested values "
                "as a parameter")
        if deepest_case > MAX_CASE_NESTING:
            raise QueryTooLargeError(
                f"the query nests CASE expressions {at_least}{deepest_case} deep (at most "
                f"{MAX_CASE_NESTING} allowed): each level doubles the engine's time, so the "
                "read-only check refuses it before the engine sees it; "
                "write one CASE with several WHEN branches instead")

    def _expect_clause_start(self, i: int, why: str) -> None:
        keyword = self._keyword_at(i)
        if keyword in _CLAUSE_STARTS:
            return
        t = self._at(i)
        if t is not None and keyword in self.policy.refused_keywords:
            self._check_word(i, t)  # refuses, with the clause's own reason
        self._refuse("the end of the query" if t is None else _show(t.text), why)

    def _chain(self, i: int) -> tuple[list[str], int]:
        """The dotted name starting at ``i`` (``db.schema.visualization``) and the index
        after it."""
        parts: list[str] = []
        j = i
        while (t := self._at(j)) is not None and t.kind in (Kind.WORD, Kind.NAME):
            parts.append(t.text)
            if not (self._symbol_at(j + 1, ".") and (n := self._at(j + 2)) is not None
                    and n.kind in (Kind.WORD, Kind.NAME)):
                return parts, j + 1
            j += 2
        return parts, j

    def _check_function_call(self, i: int) -> bool:
        """If a (dotted) name at ``i`` is called, check it and return True."""
        parts, after = self._chain(i)
        if not self._symbol_at(after, "("):
            return False
        t = self.tokens[i]
        if len(parts) == 1 and t.kind is Kind.WORD and not self._is_name_position(i):
            word = t.text.upper()
            if word in self.keywords:
                return False  # MATCH (, COUNT(, COPY (: a keyword, checked as one
        if self._ends_operand(i - 1):
            self._refuse(f"{_show(t.text)} (…)", _AFTER_OPERAND)
        self._check_expression_function(parts)
        if (self.dialect == "ladybug" and len(parts) == 1
                and parts[0].lower() in LADYBUG_SIZE_FUNCTIONS):
            why = size_refusal(parts[0], self._arguments(after))
            if why is not None:
                self._refuse(f"{_show(parts[0])}(…)", why)
        self.handled.update(range(i, after))
        return True

    def _arguments(self, opening: int) -> list[list[Token]]:
        """The tokens of each argument of the call whose ``(`` is at ``opening``."""
        args: list[list[Token]] = [[]]
        depth = 0
        for t in self.tokens[opening + 1:]:
            if t.kind is Kind.SYMBOL and t.text in _CLOSERS.values():
                depth += 1
            elif t.kind is Kind.SYMBOL and t.text in _CLOSERS:
                if depth == 0:
                    break
                depth -= 1
            elif depth == 0 and t.is_symbol(","):
                args.append([])
                continue
            args[-1].append(t)
        return args if args != [[]] else []

    def _check_expression_function(self, parts: list[str]) -> None:
        name = ".".join(parts)
        shown = _show(name)
        if self.dialect == "neo4j":
            if len(parts) > 1 and parts[0].lower() not in _NEO4J_FUNCTION_NAMESPACES:
                self._refuse(f"{shown}(…)", "only Neo4j's built-in functions may be used, "
                             "not procedures' or plugins' functions")
            return
        if len(parts) > 1:
            self._refuse(f"{shown}(…)", "LadybugDB has no dotted function names")
        key = name.lower()
        if key in _LADYBUG_REFUSED_FUNCTIONS or _FILE_LIKE.search(key):
            self._refuse(f"{shown}(…)", "it reads files or the engine's internals, or "
                         "changes the engine's state")

    def _check_word(self, i: int, t: Token) -> None:
        word = t.text.upper()
        if word in self.policy.refused_keywords:
            clause = word
            nxt = self._at(i + 1)
            if (nxt is not None and nxt.kind is Kind.WORD
                    and nxt.text.upper() in _COMPOUNDS.get(word, ())):
                clause = f"{word} {nxt.text.upper()}"
            self._refuse(clause, _WHY.get(clause, _WHY.get(word, _MODIFIES)),
                         name_hint=t.text.lower() if self._looks_like_a_name(i) else None)
        if word == "CALL":
            self._check_call(i)
        elif word == "UNION":
            j = i + 2 if self._keyword_at(i + 1) == "ALL" else i + 1
            self._expect_clause_start(j, "UNION joins two read queries, and the second "
                                         "starts with MATCH, UNWIND, WITH, RETURN or CALL")
        elif word in _SUBQUERY_OPENERS and self._symbol_at(i + 1, "{"):
            if not self._symbol_at(i + 2, "("):
                self._expect_clause_start(i + 2, f"{word} {{…}} holds a read query that "
                                                 "starts with MATCH")
        elif word not in self.policy.read_keywords and self._ends_operand(i - 1):
            self._refuse(t.text, _AFTER_OPERAND)

    def _check_call(self, i: int) -> None:
        if self._symbol_at(i + 1, "{") or self._symbol_at(i + 1, "("):
            self._refuse("CALL {…}", "subqueries are not part of the passthrough")
        parts, after = self._chain(i + 1)
        name = _show(".".join(parts)) if parts else ""
        if not parts:
            self._refuse("CALL", "CALL runs a catalogue function, e.g. "
                         f"CALL {CATALOGUE[self.dialect][0]}")
        if self._symbol_at(after, "="):
            self._refuse(f"CALL {name}=…", "it changes a setting of the engine")
        key = self.policy.catalogue_key(".".join(parts))
        if not self._symbol_at(after, "(") or key not in self.policy.catalogue:
            self._refuse(f"CALL {name}", "CALL runs only the catalogue functions named at "
                         "the end of this message, with parentheses")
        self.handled.update(range(i + 1, after))

    def _ends_operand(self, i: int) -> bool:
        """Whether the token at ``i`` completes an operand, so that an identifier
        cannot follow it."""
        t = self._at(i)
        if t is None:
            return False
        if t.kind is Kind.SYMBOL:
            if t.text in (")", "]", "}"):
                return True
            # RETURN * / WITH * / YIELD * (a projection), and e.* (all properties).
            return t.text == "*" and (self._symbol_at(i - 1, ".") or self._keyword_at(i - 1)
                                      in ("RETURN", "WITH", "DISTINCT", "YIELD"))
        if t.kind is not Kind.WORD:
            return True  # a string, number, parameter or backquoted name
        keyword = self._keyword_at(i)
        return keyword is None or keyword in _OPERAND_END_KEYWORDS


def _show(name: str) -> str:
    """A name from the query, safe to print on one line."""
    text = name if name.isprintable() and name.isascii() else ascii(name)[1:-1]
    return text if len(text) <= 60 else text[:57] + "..."


_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}\Z")


def check_identifier(name: str, what: str = "name") -> str:
    """Return ``name`` if it is a plain identifier safe to place in Cypher text.

    Labels, property names and variable names cannot be parameters, so the few that
    are built from input are validated here instead.
    """
    if not _IDENTIFIER.match(name):
        raise ValueError(f"invalid {what} {name!r}: use letters, digits and _ only")
    return name
