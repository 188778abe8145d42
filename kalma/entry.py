"""A KaLMA benchmark entry (Li et al., §2.2, Table 1): two questions about the same
entities, the paragraph they were written from, the *minimum knowledge set* (the triples
needed to answer them), the *knowledge pool* (the retrieved one-hop subgraph a system may
cite) and, in the conscious-incompetence setting (§4.4), the *absent knowledge* removed
from the pool.

One home for the entry's JSON layout: :meth:`KalmaEntry.to_json` writes it,
:meth:`KalmaEntry.from_json` reads it back (and says which field of which entry is wrong),
and ``kalma/data/entry.schema.json`` describes it for other tools.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from kalma.errors import KalmaError
from loaders.input_file import loads_json, open_input

__all__ = ["ENTRIES_FILE", "ENTRY_FORMAT", "EntityRef", "KalmaEntry", "Knowledge",
           "knowledge_key", "statement_key", "normalized_text", "read_entries", "entries_file"]

ENTRY_FORMAT = "kgbench-kalma-entry/1"
"""The ``format`` of every entry kgbench writes; a reader refuses another."""

ENTRIES_FILE = "entries.jsonl"
"""The entries of a ``kalma generate`` / ``kalma import`` output directory."""


def normalized_text(text: str) -> str:
    """How citation parts are compared (§4.2 "exactly matches"): case-folded, runs of
    whitespace made one space, trimmed, and a trailing full stop dropped. kgbench's
    reading of "exact": a system that writes ``Place of Birth`` for ``place of birth``
    or ``Rome.`` for ``Rome`` cites the same triple."""
    return " ".join(text.casefold().split()).removesuffix(".").rstrip()


def knowledge_key(subject_id: str, relation: str, value: str) -> tuple[str, str, str]:
    """The key under which a citation ``[subject_id, relation: value]`` and a knowledge
    triple are matched (ids compare case-sensitively after trimming: ``Q5`` is not
    ``q5``)."""
    return subject_id.strip(), normalized_text(relation), normalized_text(value)


def statement_key(subject_id: str, predicate: str, object_id: str | None, object_text: str,
                  via: str | None) -> tuple[Any, ...]:
    """What a piece of knowledge states, whichever side it is read from: the two views
    of one CVT's value (a marriage's start date from either spouse; the marriage's
    spouse fact from either spouse) and a direct fact and its inverse (Wikidata's
    ``P26`` both ways) have one key. §4.4 removes knowledge from the pool: a removed
    triple whose other view stays is still there for a reader, so a variant removes
    every piece with the removed pieces' statement keys. ``predicate``: the store's
    predicate (``p1/p2`` through a CVT), or the relation label where there is none."""
    inner = predicate.rpartition("/")[2]
    value: Any = (frozenset((subject_id, object_id)) if object_id is not None
                  else (subject_id if via is None else "", normalized_text(object_text)))
    return ("via", via, inner, value) if via else ("fact", inner, value)


@dataclass(frozen=True, slots=True)
class EntityRef:
    """An entity an entry is about: its store id (Wikidata QID, Freebase MID) and name."""

    id: str
    name: str

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name}


@dataclass(frozen=True, slots=True)
class Knowledge:
    """One piece of knowledge: a triple ``[subject_id, relation, object]`` as BioKaLMA
    writes it (Table 1), with the ids and names behind it.

    ``relation`` is the relation's label as a reader sees it and a system cites it
    ("place of birth"); ``predicate`` the store's predicate id (``P19``,
    ``people.person.place_of_birth``), or ``p1/p2`` for a fact reached through a CVT
    node ``via`` (a Freebase marriage: ``people.person.spouse_s/people.marriage.spouse``).
    ``object`` is the text a citation gives (an entity's name, a literal's value) and
    ``object_id`` the entity id (``None`` for a literal, or when the source format has
    no ids, as BioKaLMA's does not)."""

    subject_id: str
    subject_name: str
    relation: str
    object: str
    object_id: str | None = None
    predicate: str | None = None
    via: str | None = None

    def triple(self) -> list[str]:
        """``[subject_id, relation, object]``: BioKaLMA's Table 1 form."""
        return [self.subject_id, self.relation, self.object]

    def key(self) -> tuple[str, str, str]:
        """What a citation must match (:func:`knowledge_key`)."""
        return knowledge_key(self.subject_id, self.relation, self.object)

    def statement(self) -> tuple[Any, ...]:
        """:func:`statement_key` of this piece."""
        return statement_key(self.subject_id, self.predicate or self.relation, self.object_id,
                             self.object, self.via)

    def citation_text(self) -> str:
        """The citation as BioKaLMA's answers write it: ``[Q212657, place of birth: Rome]``."""
        return f"[{self.subject_id}, {self.relation}: {self.object}]"

    def verbalized(self) -> str:
        """The hypothesis an NLI model reads for this knowledge (App. B.3 puts the
        citation ``relation: value`` in the hypothesis; with the subject's name the
        sentence is self-contained): ``Artemisia Gentileschi place of birth: Rome``."""
        return f"{self.subject_name} {self.relation}: {self.object}".strip()

    def to_json(self) -> dict[str, Any]:
        return {"triple": self.triple(),
                "subject": {"id": self.subject_id, "name": self.subject_name},
                "relation": self.relation, "predicate": self.predicate,
                "object": {"id": self.object_id, "name": self.object},
                "via": self.via}

    @classmethod
    def from_json(cls, doc: Any, where: str) -> Knowledge:
        """Read :meth:`to_json`'s layout, or a bare triple ``[subject_id, relation,
        object]``; ``where`` names the place in messages ("entries.jsonl:3
        minimum_knowledge_set[2]")."""
        if isinstance(doc, list):
            if len(doc) != 3 or not all(isinstance(x, str) and x.strip() for x in doc):
                raise KalmaError(f"{where}: a triple must be 3 non-empty strings "
                                 f"[subject_id, relation, object], got {_short(doc)}")
            return cls(doc[0], doc[0], doc[1], doc[2])
        if not isinstance(doc, Mapping):
            raise KalmaError(f"{where}: expected a knowledge object or a triple, got {_short(doc)}")
        subject, obj = doc.get("subject"), doc.get("object")
        relation = doc.get("relation")
        if not (isinstance(subject, Mapping) and isinstance(obj, Mapping)
                and _nonempty(subject.get("id")) and _nonempty(relation)
                and _nonempty(obj.get("name"))):
            raise KalmaError(f"{where}: a knowledge object needs subject.id, relation and "
                             f"object.name (strings), got {_short(doc)}")
        return cls(subject_id=subject["id"], subject_name=_str_or(subject.get("name"), subject["id"]),
                   relation=str(relation), object=obj["name"], object_id=_opt_str(obj.get("id")),
                   predicate=_opt_str(doc.get("predicate")), via=_opt_str(doc.get("via")))


@dataclass(frozen=True, slots=True)
class KalmaEntry:
    """One benchmark entry (§2.2). ``absent_knowledge`` is empty for the complete entry;
    a conscious-incompetence variant (§4.4) has ``incompetence`` = how many triples of
    the minimum knowledge set were removed from ``knowledge_pool`` and lists them there.
    ``generation`` records how the entry was made (method, α, whether perplexity was
    used, the Eq. 1 scores of each iteration; ``{"source": "biokalma", ...}`` for an
    imported one)."""

    id: str
    question_general: str
    question_specific: str
    paragraph: str
    entities: tuple[EntityRef, ...]
    minimum_knowledge_set: tuple[Knowledge, ...]
    knowledge_pool: tuple[Knowledge, ...]
    seed: int | None
    absent_knowledge: tuple[Knowledge, ...] = ()
    incompetence: int = 0
    generation: Mapping[str, Any] = field(default_factory=dict)

    def retrieved_keys(self) -> frozenset[tuple[str, str, str]]:
        """Keys of the knowledge a system was given (§4.2 correctness: "the question's
        retrieved KG")."""
        return frozenset(k.key() for k in self.knowledge_pool)

    def with_absent(self, removed: Sequence[Knowledge]) -> KalmaEntry:
        """The §4.4 variant without ``removed`` (pieces of the minimum knowledge set) in
        its knowledge pool, with every other view of what they state
        (:func:`statement_key`); they become its ``absent_knowledge``."""
        gone = {k.key() for k in removed}
        stated = {k.statement() for k in removed}
        return replace(self, knowledge_pool=tuple(k for k in self.knowledge_pool
                                                  if k.key() not in gone
                                                  and k.statement() not in stated),
                       absent_knowledge=tuple(removed), incompetence=len(removed))

    def to_json(self) -> dict[str, Any]:
        return {"format": ENTRY_FORMAT, "id": self.id,
                "question_general": self.question_general,
                "question_specific": self.question_specific,
                "paragraph": self.paragraph,
                "entities": [e.to_json() for e in self.entities],
                "minimum_knowledge_set": [k.to_json() for k in self.minimum_knowledge_set],
                "knowledge_pool": [k.to_json() for k in self.knowledge_pool],
                "absent_knowledge": [k.to_json() for k in self.absent_knowledge],
                "incompetence": self.incompetence,
                "seed": self.seed,
                "generation": dict(self.generation)}

    def to_line(self) -> str:
        """One JSONL line (keys in a fixed order, UTF-8 kept: byte-identical reruns)."""
        return json.dumps(self.to_json(), ensure_ascii=False, separators=(",", ":")) + "\n"

    @classmethod
    def from_json(cls, doc: Any, where: str) -> KalmaEntry:
        if not isinstance(doc, Mapping):
            raise KalmaError(f"{where}: expected a JSON object (a KaLMA entry), got {_short(doc)}")
        fmt = doc.get("format", ENTRY_FORMAT)
        if fmt != ENTRY_FORMAT:
            raise KalmaError(f"{where}: entry format {fmt!r} is not {ENTRY_FORMAT!r}",
                             "regenerate the entries with this kgbench (`kgbench kalma generate`)")
        for key in ("id", "question_general", "question_specific"):
            if not _nonempty(doc.get(key)):
                raise KalmaError(f"{where}: entry needs a non-empty string {key!r}")
        entities = doc.get("entities", [])
        if not isinstance(entities, list) or not all(
                isinstance(e, Mapping) and _nonempty(e.get("id")) for e in entities):
            raise KalmaError(f"{where}: 'entities' must be a list of {{\"id\", \"name\"}} objects")
        seed = doc.get("seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise KalmaError(f"{where}: 'seed' must be an integer or null, got {_short(seed)}")
        incompetence = doc.get("incompetence", 0)
        if not isinstance(incompetence, int) or isinstance(incompetence, bool) or incompetence < 0:
            raise KalmaError(f"{where}: 'incompetence' must be a non-negative integer")
        generation = doc.get("generation", {})
        if not isinstance(generation, Mapping):
            raise KalmaError(f"{where}: 'generation' must be an object")

        def knowledge(key: str) -> tuple[Knowledge, ...]:
            items = doc.get(key, [])
            if not isinstance(items, list):
                raise KalmaError(f"{where}: {key!r} must be a list of knowledge triples")
            return tuple(Knowledge.from_json(item, f"{where} {key}[{i}]")
                         for i, item in enumerate(items))

        paragraph = doc.get("paragraph", "")
        if not isinstance(paragraph, str):
            raise KalmaError(f"{where}: 'paragraph' must be a string")
        return cls(id=doc["id"], question_general=doc["question_general"],
                   question_specific=doc["question_specific"], paragraph=paragraph,
                   entities=tuple(EntityRef(e["id"], _str_or(e.get("name"), e["id"])) for e in entities),
                   minimum_knowledge_set=knowledge("minimum_knowledge_set"),
                   knowledge_pool=knowledge("knowledge_pool"), seed=seed,
                   absent_knowledge=knowledge("absent_knowledge"), incompetence=incompetence,
                   generation=dict(generation))


def entries_file(path: Path) -> Path:
    """An entries file given as itself or as the directory that holds ``entries.jsonl``."""
    if path.is_dir():
        inner = path / ENTRIES_FILE
        if not inner.is_file():
            raise KalmaError(f"{path}: no {ENTRIES_FILE} in this directory",
                             "give the output directory of `kgbench kalma generate` or `kalma import`, "
                             "or an entries .jsonl file")
        return inner
    if not path.exists():   # a FIFO or a device: refused by open_input, in its words
        raise KalmaError(f"{path}: no such entries file",
                         "give an entries .jsonl file or the directory that holds entries.jsonl")
    return path


def read_entries(path: Path) -> Iterator[KalmaEntry]:
    """The entries of a JSONL file (or of ``DIR/entries.jsonl``), in file order. A line
    that is not JSON or not an entry raises :class:`KalmaError` naming ``file:line``;
    blank lines are skipped; a repeated id is refused (scores are per id)."""
    source = entries_file(path)
    seen: set[str] = set()
    try:
        with io.TextIOWrapper(open_input(source), encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                where = f"{source}:{number}"
                try:
                    doc = loads_json(line)
                except json.JSONDecodeError as exc:
                    raise KalmaError(f"{where}: not JSON ({exc.msg})",
                                     "each line must be one KaLMA entry as a JSON object") from None
                entry = KalmaEntry.from_json(doc, where)
                if entry.id in seen:
                    raise KalmaError(f"{where}: entry id {entry.id!r} repeats an earlier line",
                                     "give every entry its own id")
                seen.add(entry.id)
                yield entry
    except UnicodeDecodeError:
        raise KalmaError(f"{source}: not UTF-8 text", "give a JSONL file of KaLMA entries") from None


def _nonempty(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _opt_str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _str_or(value: Any, default: str) -> str:
    return value if isinstance(value, str) and value.strip() else default


def _short(value: Any, limit: int = 80) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[:limit] + "…"
