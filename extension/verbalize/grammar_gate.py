"""The grammar gate: LanguageTool's English rules over generated text (issue 34, item 5).

A reader who meets "was designeds by", "with with" or "What is the risk factors" stops
trusting the benchmark. The templates cannot see their own output as a reader does; a
real checker can. :class:`GrammarGate` runs LanguageTool (Maven Central's
``org.languagetool:language-en``, pinned in ``tools/grammar-gate/pom.xml``, built by
``make grammar-gate``) in a Java process of its own and talks to it over a pipe: a batch
of texts goes down stdin, one JSON line per text comes back (the protocol is documented in
``tools/grammar-gate/src/main/java/kgbench/grammar/GrammarGate.java``). The process lives
as long as the gate object; nothing listens on a port.

Which matches *block* a text is policy, decided here from measurements on 1,000 generated
samples per KG (README, "Grammar gate"): :func:`blocking` keeps the rules a reader notices
and no name can cause, and drops spelling and casing matches inside entity names (a KG is
full of names no dictionary holds: "Kung Fu Panda 2", "Barbara Hershey").
"""

from __future__ import annotations

import json
import os
import re
import selectors
import shutil
import subprocess
import tempfile
import time
from collections import Counter, OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, Any, TypeVar

from pydantic import BaseModel

MAIN_CLASS = "kgbench.grammar.GrammarGate"
LANGUAGE = "en-US"
CLASSPATH_ENV = "KGBENCH_GRAMMAR_GATE_CLASSPATH"
"""Overrides where the built launcher's ``classpath.txt`` is (default: the repository's
``tools/grammar-gate/target/classpath.txt``)."""
JAVA_ENV = "KGBENCH_JAVA"
"""Overrides the ``java`` executable (default: ``$JDK17/bin/java``, Debian's JDK 17, then
``java`` on the PATH)."""
_REPO_TOOLS = Path(__file__).resolve().parents[2] / "tools" / "grammar-gate"
_DEFAULT_JDK = "/usr/lib/jvm/java-17-openjdk-amd64"
BATCH = 256
"""Texts per request: enough to amortise a round trip, few enough to bound the memory of
one response."""
CACHE_SIZE = 50_000
"""Texts whose matches a gate remembers: a question's q̃ and ã recur in its four samples
and its citation sentences in several, so each is checked once."""


class GrammarGateUnavailable(RuntimeError):
    """No Java or no built launcher; the message says what to run."""


class GrammarGateError(RuntimeError):
    """The checker process failed (died, hung, or broke the protocol)."""


@dataclass(frozen=True, slots=True)
class GrammarMatch:
    """One LanguageTool match in a text: the rule (``rule`` and, for a rule of a group,
    its ``sub`` id), its category (``GRAMMAR``, ``TYPOS``, ``CASING``, …) and issue type,
    the span ``text[start:end]``, the message and up to three suggested replacements."""

    rule: str
    category: str
    issue_type: str
    start: int
    end: int
    message: str
    replacements: tuple[str, ...] = ()
    sub: str | None = None

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> GrammarMatch:
        return cls(rule=doc["rule"], category=doc["category"], issue_type=doc["type"],
                   start=int(doc["from"]), end=int(doc["to"]), message=doc["message"],
                   replacements=tuple(doc.get("replacements") or ()), sub=doc.get("sub"))


def launcher_command(language: str = LANGUAGE) -> list[str]:
    """The command that starts the checker, or :class:`GrammarGateUnavailable` saying
    what is missing and how to get it."""
    classpath_file = Path(os.environ.get(CLASSPATH_ENV)
                          or _REPO_TOOLS / "target" / "classpath.txt")
    if not classpath_file.is_file():
        raise GrammarGateUnavailable(
            f"the grammar gate is not built ({classpath_file} is missing): run `make "
            f"grammar-gate` (Java 17 + Maven; LanguageTool comes from Maven Central), or set "
            f"{CLASSPATH_ENV}")
    java = _java()
    jars = classpath_file.read_text(encoding="utf-8").strip()
    classes = classpath_file.parent / "classes"
    # C1 only: the checker's work is many small pattern matches; C2 would compile for
    # longer than a test run checks (measured, README "Grammar gate").
    return [java, "-Xms128m", "-Xmx768m", "-XX:TieredStopAtLevel=1", "-Xss4m",
            "-cp", f"{classes}{os.pathsep}{jars}", MAIN_CLASS, language]


def _java() -> str:
    explicit = os.environ.get(JAVA_ENV)
    if explicit:
        if not Path(explicit).is_file():
            raise GrammarGateUnavailable(f"{JAVA_ENV}={explicit} is not a file")
        return explicit
    jdk = Path(os.environ.get("JDK17", _DEFAULT_JDK)) / "bin" / "java"
    if jdk.is_file():
        return str(jdk)
    found = shutil.which("java")
    if found is None:
        raise GrammarGateUnavailable("no java found: install JDK 17 (apt-get install "
                                     f"openjdk-17-jdk-headless) or set {JAVA_ENV}")
    return found


def unavailable_reason() -> str | None:
    """Why :class:`GrammarGate` cannot start here, or None when it can."""
    try:
        launcher_command()
    except GrammarGateUnavailable as exc:
        return str(exc)
    return None


_LINE_BREAKS = re.compile(r"[\r\n\u2028\u2029\x85\x0b\x0c]")
_SURROGATES = re.compile(r"[\ud800-\udfff]")


def _one_line(text: str) -> str:
    """``text`` as one protocol line, each replaced character replaced by one, so the
    offsets of the matches are the original text's."""
    return _SURROGATES.sub("\ufffd", _LINE_BREAKS.sub(" ", text))


class GrammarGate:
    """LanguageTool in a child Java process. ``with GrammarGate() as gate:
    gate.check(texts)`` returns each text's matches, in order; texts seen before come
    from a cache. Start-up (LanguageTool loads its ~5,800 English rules) takes a few
    seconds; :attr:`startup_s` says how many."""

    def __init__(self, language: str = LANGUAGE, *, startup_timeout_s: float = 300.0,
                 batch_timeout_s: float = 600.0) -> None:
        self.command = launcher_command(language)
        self.batch_timeout_s = batch_timeout_s
        self._cache: OrderedDict[str, tuple[GrammarMatch, ...]] = OrderedDict()
        self._stderr: IO[bytes] = tempfile.TemporaryFile()
        started = time.monotonic()
        self._proc = subprocess.Popen(self.command, stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=self._stderr)
        self._selector = selectors.DefaultSelector()
        assert self._proc.stdout is not None
        self._selector.register(self._proc.stdout, selectors.EVENT_READ)
        self._buffer = b""
        try:
            ready = json.loads(self._read_lines(1, startup_timeout_s)[0])
        except (GrammarGateError, ValueError) as exc:
            self.close()
            raise GrammarGateError(f"the grammar gate did not start: {exc}") from None
        self.startup_s = time.monotonic() - started
        self.version: str = ready.get("languagetool", "?")
        self.rules: int = int(ready.get("rules", 0))
        self.texts_checked = 0
        self.check_s = 0.0

    def check(self, texts: Sequence[str]) -> list[tuple[GrammarMatch, ...]]:
        """The matches of each of ``texts``, in order."""
        todo = list(dict.fromkeys(t for t in texts if t not in self._cache))
        for i in range(0, len(todo), BATCH):
            batch = todo[i:i + BATCH]
            started = time.monotonic()
            for text, matches in zip(batch, self._request(batch), strict=True):
                self._remember(text, matches)
            self.check_s += time.monotonic() - started
            self.texts_checked += len(batch)
        out: list[tuple[GrammarMatch, ...]] = []
        for text in texts:
            cached = self._cache.get(text)
            if cached is None:   # evicted by this very call's later texts: check it again
                cached = self._request([text])[0]
                self._remember(text, cached)
            out.append(cached)
        return out

    def _remember(self, text: str, matches: tuple[GrammarMatch, ...]) -> None:
        self._cache[text] = matches
        self._cache.move_to_end(text)
        while len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)

    def _request(self, texts: Sequence[str]) -> list[tuple[GrammarMatch, ...]]:
        payload = f"{len(texts)}\n" + "".join(_one_line(t) + "\n" for t in texts)
        assert self._proc.stdin is not None
        try:
            self._proc.stdin.write(payload.encode("utf-8"))
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise GrammarGateError(f"the grammar gate exited ({self._exit_note()})") from None
        lines = self._read_lines(len(texts), self.batch_timeout_s)
        try:
            return [tuple(GrammarMatch.from_json(m) for m in json.loads(line)["matches"])
                    for line in lines]
        except (ValueError, KeyError, TypeError) as exc:
            raise GrammarGateError(f"the grammar gate answered out of protocol: {exc}") from None

    def _read_lines(self, n: int, timeout_s: float) -> list[str]:
        """``n`` lines from the child's stdout within ``timeout_s``."""
        deadline = time.monotonic() + timeout_s
        assert self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        while self._buffer.count(b"\n") < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise GrammarGateError(f"no answer within {timeout_s:.0f} s")
            if not self._selector.select(left):
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise GrammarGateError(f"the grammar gate exited ({self._exit_note()})")
            self._buffer += chunk
        *lines, self._buffer = self._buffer.split(b"\n", n)
        return [line.decode("utf-8") for line in lines]

    def _exit_note(self) -> str:
        try:
            code = self._proc.wait(5)
        except subprocess.TimeoutExpired:
            code = None
        self._stderr.seek(0)
        tail = self._stderr.read()[-1500:].decode("utf-8", "replace").strip()
        return f"status {code}" + (f"; its stderr ends: {tail}" if tail else "")

    def close(self) -> None:
        """End the child: close its stdin (it exits at end of input), kill it if it
        does not within a few seconds."""
        if self._proc.poll() is None:
            try:
                assert self._proc.stdin is not None
                self._proc.stdin.close()
                self._proc.wait(10)
            except (OSError, subprocess.TimeoutExpired):
                self._proc.kill()
                self._proc.wait()
        self._selector.close()
        self._stderr.close()

    def __enter__(self) -> GrammarGate:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


# -- What blocks a text -----------------------------------------------------------------

BLOCKED_CATEGORIES = frozenset({"GRAMMAR", "TYPOS", "CASING"})
"""LanguageTool categories whose matches block a text: agreement and verb forms ("whose
films is", "Dutch people has"), repeated phrases ("the film the film"), a missing
article before a country ("a citizen of United Kingdom"), misspelt template words
("designeds"; a British spelling is not one, :func:`is_variant_spelling`), a question that
starts in lower case or a lower-cased name copied from a dataset question ("speak
portuguese"). Measured on 1,000 samples per KG, every such
match outside a name was a flaw a reader sees (README, "Grammar gate")."""

BLOCKED_RULES = frozenset({"ENGLISH_WORD_REPEAT_RULE", "EN_A_VS_AN"})
"""Rules of other categories that block too: a doubled word ("with with") and "a"/"an"
before the wrong sound ("a education"), both in LanguageTool's MISC category."""

ARTICLE_RULES = frozenset({"DETERMINER_GEOGRAPHICAL_WORD", "EN_A_VS_AN"})
"""Rules about the words in front of a name ("of United States" wants "the"): the
template wrote those words, so a match touching a name still counts."""

_FOLLOWING_CATEGORIES = frozenset({"GRAMMAR", "CASING"})
"""Categories whose match just after a name is the name's doing: LanguageTool reads
"The Rescuers has", "Samson and Delilah has", "New York, I Love You is" as plural
subjects and "Oliver! has" as a new sentence; it cannot know a title is one thing."""


_BRITISH_SPELLING = re.compile(r"'[^']+' is British English")


def is_variant_spelling(match: GrammarMatch) -> bool:
    """Whether ``match`` only says a word is spelt the British way ("honoured",
    "neighbour", "practised": LanguageTool's en-US speller words its message so). The
    project writes British English; a spelling variety is no error to a reader."""
    return match.category == "TYPOS" and bool(_BRITISH_SPELLING.search(match.message))


def is_blocking_rule(match: GrammarMatch) -> bool:
    """Whether ``match``'s rule or category is one the gate blocks on (a British
    spelling aside: :func:`is_variant_spelling`)."""
    return (match.category in BLOCKED_CATEGORIES or match.rule in BLOCKED_RULES) \
        and not is_variant_spelling(match)


def name_spans(text: str, names: Iterable[str]) -> list[tuple[int, int]]:
    """The spans of ``text`` that are one of ``names`` (as written: case matters, so a
    name a dataset question lower-cased is the text's own fault), whole words only."""
    spans: list[tuple[int, int]] = []
    for name in sorted({n for n in names if n and n.strip()}, key=len, reverse=True):
        for m in re.finditer(rf"(?<!\w){re.escape(name)}(?!\w)", text):
            spans.append((m.start(), m.end()))
    return sorted(spans)


def on_a_name(match: GrammarMatch, text: str, spans: Sequence[tuple[int, int]]) -> bool:
    """Whether ``match`` is about a name rather than the words around it: its span
    overlaps a name, or (grammar and casing) it starts right after one, with only
    spaces or punctuation between. :data:`ARTICLE_RULES` are never a name's."""
    if match.rule in ARTICLE_RULES:
        return False
    for start, end in spans:
        if start < match.end and match.start < end:
            return True
        if match.category in _FOLLOWING_CATEGORIES and end <= match.start \
                and not re.search(r"\w", text[end:match.start]):
            return True
    return False


@dataclass(frozen=True, slots=True)
class GrammarFinding:
    """One match in one part of a sample (``question``, ``answer`` or ``citation``),
    whether it is about a name and whether it blocks the sample."""

    part: str
    text: str
    match: GrammarMatch
    on_name: bool

    @property
    def blocked(self) -> bool:
        return not self.on_name and is_blocking_rule(self.match)

    @property
    def span(self) -> str:
        return self.text[self.match.start:self.match.end]

    def describe(self) -> str:
        """One line: the span, the part and the span's context, LanguageTool's message
        ("'is' in the answer '…whose films is the film…': Possible agreement error…")."""
        lo, hi = max(0, self.match.start - 30), self.match.end + 30
        context = ("…" if lo else "") + self.text[lo:hi] + ("…" if hi < len(self.text) else "")
        message = _SUGGESTION_TAG.sub('"', self.match.message)
        return f"{self.span!r} in the {self.part} {context!r}: {message}"


_SUGGESTION_TAG = re.compile(r"</?suggestion>")


SAMPLE_PARTS = ("question", "answer", "citation")


def sample_parts(doc: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The texts a reader of a sample sees, each with its part: q̃ (or q), ã, and each
    citation sentence (without its "[1]" marker)."""
    parts = [("question", str(doc.get("question_extended") or doc.get("question") or "")),
             ("answer", str(doc.get("answer") or ""))]
    parts += [("citation", str(c.get("text") or "")) for c in doc.get("citations") or ()
              if isinstance(c, Mapping)]
    return [(part, text) for part, text in parts if text]


def sample_names(doc: Mapping[str, Any]) -> set[str]:
    """Every name a sample's text may show: the entities and literal values of its
    facts (as stored and as the text shows them) and its answers."""
    from extension.verbalize.english import display_name

    names: set[str] = set()
    facts: list[Any] = [*(doc.get("subgraph") or ()), *(doc.get("original_subgraph") or ())]
    for c in doc.get("citations") or ():
        if isinstance(c, Mapping):
            facts += c.get("triples") or ()
    for f in facts:
        if not isinstance(f, Mapping):
            continue
        names.update(str(f[k]) for k in ("s_name", "o_name") if f.get(k))
        if f.get("literal") and f.get("o"):
            names.add(str(f["o"]))
    for a in doc.get("answer_entities") or ():
        if isinstance(a, Mapping):
            names.update(str(a[k]) for k in ("name", "value") if a.get(k))
    return names | {d for d in map(display_name, names) if d}


def check_samples(gate: GrammarGate, docs: Sequence[Mapping[str, Any]]
                  ) -> list[list[GrammarFinding]]:
    """Each sample's findings (every match, marked blocked or not), in one batch."""
    parts = [sample_parts(doc) for doc in docs]
    results = iter(gate.check([text for sample in parts for _, text in sample]))
    out: list[list[GrammarFinding]] = []
    for doc, sample in zip(docs, parts, strict=True):
        names = sample_names(doc)
        findings: list[GrammarFinding] = []
        for part, text in sample:
            matches = next(results)
            if matches:
                spans = name_spans(text, names)
                findings += [GrammarFinding(part, text, m, on_a_name(m, text, spans))
                             for m in matches]
        out.append(findings)
    return out


R = TypeVar("R", bound=BaseModel)


def gate_records(gate: GrammarGate, records: Sequence[R], counts: Counter[str]
                 ) -> tuple[list[R], list[tuple[R, str]]]:
    """Split a question's samples (pydantic records of the sample schema) into those the
    gate lets through and those it blocks, each blocked one with its reason: the first
    blocking match ("agreement_sent_start: 'is' in the answer …", the rule's id in lower
    case first, so ``failures_by_kind`` groups by rule), then the other blocking rules. ``counts`` gains ``checked``, ``blocked`` and
    ``rule:ID`` per blocking match."""
    if not records:
        return [], []
    findings = check_samples(gate, [r.model_dump(mode="json") for r in records])
    kept: list[R] = []
    blocked: list[tuple[R, str]] = []
    for record, found in zip(records, findings, strict=True):
        counts["checked"] += 1
        blocking = [f for f in found if f.blocked]
        if not blocking:
            kept.append(record)
            continue
        counts["blocked"] += 1
        counts.update(f"rule:{f.match.rule}" for f in blocking)
        first, others = blocking[0], sorted({f.match.rule for f in blocking[1:]})
        also = f"; also {', '.join(others)}" if others else ""
        blocked.append((record, f"{first.match.rule.lower()}: {first.describe()}{also}"))
    return kept, blocked


def gate_stats(counts: Counter[str]) -> dict[str, Any]:
    """``stats.json``'s ``grammar_gate``: samples checked and blocked, blocking matches by
    rule, and the policy that blocked them."""
    rules = {k.removeprefix("rule:"): v for k, v in counts.items() if k.startswith("rule:")}
    return {"checked_samples": counts.get("checked", 0),
            "blocked_samples": counts.get("blocked", 0),
            "blocked_by_rule": dict(sorted(rules.items(), key=lambda kv: (-kv[1], kv[0]))),
            "blocked_categories": sorted(BLOCKED_CATEGORIES),
            "blocked_rules": sorted(BLOCKED_RULES)}


__all__ = ["ARTICLE_RULES", "BLOCKED_CATEGORIES", "BLOCKED_RULES", "CLASSPATH_ENV",
           "GrammarFinding", "GrammarGate", "GrammarGateError", "GrammarGateUnavailable",
           "GrammarMatch", "SAMPLE_PARTS", "check_samples", "gate_records", "gate_stats",
           "is_blocking_rule", "is_variant_spelling",
           "launcher_command", "name_spans", "on_a_name", "sample_names", "sample_parts",
           "unavailable_reason"]

