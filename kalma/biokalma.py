"""BioKaLMA's own files (Li et al., §2.2, the released dataset): reading them as
:class:`~kalma.entry.KalmaEntry` and writing entries back in their layout.

The dataset is two JSON files of the same length, record ``i`` of each about the same
people, each record ``[question, [entity dict, ...]]``:

* ``simple_question_graph.json`` holds the **general** questions (§2.2: "Who was
  Stephen Crane, what were his family's religious affiliations ...?"); most of them
  start with ``"question: "``, which reading drops (and the entry remembers, so that
  writing puts it back);
* ``complex_question_graph.json`` holds the **specific** questions (the evolved
  questions that name the knowledge to use), with the same entity dicts in the same
  order.

An entity dict is the entity's retrieved knowledge, one value per relation label
(``{"place of birth": "Newark", ..., "name": ..., "date_of_birth": ...,
"date_of_death": ..., "qid": "Q206534"}``); every key but ``name`` and ``qid`` is a
piece of knowledge ``[qid, key, value]`` of the entry's knowledge pool, and an empty
date is no knowledge.

What the format cannot carry (an import has none of it; an export drops it, counted in
:attr:`BiokalmaExport.lost`): the minimum knowledge set, the paragraph, object ids (a
value is a name: ``"father": "Jonathan Townley Crane"``), the store's predicates and
CVTs, the conscious-incompetence fields, knowledge whose subject is not one of the
entry's entities, and every value but the first of a relation with several (BioKaLMA
has one value per key).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from extension.outputs.output_file import write_atomic
from kalma.entry import EntityRef, KalmaEntry, Knowledge
from kalma.errors import KalmaError
from loaders.input_file import loads_json, open_input

__all__ = ["GENERAL_FILE", "IMPORT_LOSSES", "SPECIFIC_FILE", "BiokalmaExport", "biokalma_files",
           "biokalma_record", "read_biokalma", "summary_of_losses", "write_biokalma"]

GENERAL_FILE = "simple_question_graph.json"
"""BioKaLMA's file of general questions."""
SPECIFIC_FILE = "complex_question_graph.json"
"""BioKaLMA's file of specific questions."""
QUESTION_PREFIX = "question: "
NAME_KEY, QID_KEY = "name", "qid"
DATE_KEYS = ("date_of_birth", "date_of_death")
"""Written after ``name`` in every entity dict of the dataset, empty when unknown."""

IMPORT_LOSSES = ("minimum knowledge set (the files have none: entries are scored on the "
                 "pool only)", "object ids (values are names)", "paragraph",
                 "store predicates and CVTs")
"""What an imported entry lacks, recorded in its ``generation["lost"]``."""

_HINT = ("give BioKaLMA's simple_question_graph.json (general questions) and "
         "complex_question_graph.json (specific questions) of one release")


@dataclass(frozen=True)
class BiokalmaExport:
    """The two files written, the entries in them, and what the layout could not hold
    (kind -> count; see the module docstring)."""

    general: Path
    specific: Path
    entries: int
    lost: Mapping[str, int] = field(default_factory=dict)


# -- reading ----------------------------------------------------------------------------
def _load(path: Path) -> list[Any]:
    try:
        with open_input(path) as stream:
            text = stream.read().decode("utf-8")
    except FileNotFoundError:
        raise KalmaError(f"{path}: no such file", _HINT) from None
    except IsADirectoryError:
        raise KalmaError(f"{path}: is a directory, not a BioKaLMA file", _HINT) from None
    except UnicodeDecodeError:
        raise KalmaError(f"{path}: not UTF-8 text", _HINT) from None
    except OSError as exc:
        raise KalmaError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    try:
        doc = loads_json(text)
    except json.JSONDecodeError as exc:
        raise KalmaError(f"{path}: not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})",
                         _HINT) from None
    if not isinstance(doc, list):
        raise KalmaError(f"{path}: expected a JSON list of [question, [entity dict, ...]] "
                         f"records, got a {type(doc).__name__}", _HINT)
    return doc


def _record(path: Path, number: int, doc: Any) -> tuple[str, list[dict[str, str]]]:
    """One record checked: ``(question, entity dicts)``; ``number`` counts from 1."""
    where = f"{path} record {number}"
    if not (isinstance(doc, list) and len(doc) == 2 and isinstance(doc[1], list)):
        raise KalmaError(f"{where}: expected [question, [entity dict, ...]], got "
                         f"{_short(doc)}", _HINT)
    question, dicts = doc
    if not isinstance(question, str) or not question.strip():
        raise KalmaError(f"{where}: the question must be a non-empty string, got "
                         f"{_short(question)}", _HINT)
    for j, entity in enumerate(dicts, 1):
        if not isinstance(entity, dict):
            raise KalmaError(f"{where} entity {j}: expected an object of relation: value, "
                             f"got {_short(entity)}", _HINT)
        bad = next((k for k, v in entity.items() if not isinstance(v, str)), None)
        if bad is not None:
            raise KalmaError(f"{where} entity {j}: the value of {bad!r} must be a string, "
                             f"got {_short(entity[bad])}", _HINT)
        if not entity.get(QID_KEY, "").strip():
            raise KalmaError(f"{where} entity {j}: no 'qid' (the entity's Wikidata id)",
                             _HINT)
    return question, dicts


def _entity_knowledge(entity: Mapping[str, str]) -> tuple[EntityRef, list[Knowledge]]:
    qid = entity[QID_KEY].strip()
    name = entity.get(NAME_KEY, "").strip() or qid
    pool = [Knowledge(qid, name, key, value) for key, value in entity.items()
            if key not in (NAME_KEY, QID_KEY) and value.strip() and key.strip()]
    return EntityRef(qid, name), pool


def read_biokalma(general: Path, specific: Path) -> list[KalmaEntry]:
    """The entries of BioKaLMA's two files: ``general`` = ``simple_question_graph.json``,
    ``specific`` = ``complex_question_graph.json`` (see the module docstring). Entry
    ``i`` (from 0) is ``biokalma-{i:04d}``, its knowledge pool every piece of knowledge
    of its entity dicts, its minimum knowledge set empty (the files have none; its
    ``generation`` says what is lost). A file that is not JSON, a record of the wrong
    shape, files of different lengths or records whose entity dicts differ raise
    :class:`KalmaError` naming the file and record."""
    general_docs, specific_docs = _load(general), _load(specific)
    if len(general_docs) != len(specific_docs):
        raise KalmaError(f"{general} holds {len(general_docs):,} records but {specific} holds "
                         f"{len(specific_docs):,}: record i of each must be about the same "
                         "entities", _HINT)
    entries = []
    for i, (g_doc, s_doc) in enumerate(zip(general_docs, specific_docs, strict=True)):
        q_general, dicts = _record(general, i + 1, g_doc)
        q_specific, specific_dicts = _record(specific, i + 1, s_doc)
        if dicts != specific_dicts:
            raise KalmaError(f"{specific} record {i + 1}: its entity dicts differ from those "
                             f"of {general} record {i + 1}", _HINT)
        entities: list[EntityRef] = []
        pool: list[Knowledge] = []
        for entity in dicts:
            ref, knowledge = _entity_knowledge(entity)
            entities.append(ref)
            pool.extend(knowledge)
        prefixed = q_general.startswith(QUESTION_PREFIX)
        generation: dict[str, Any] = {"source": "biokalma", "record": i,
                                      "lost": list(IMPORT_LOSSES)}
        if prefixed:
            generation["general_prefix"] = QUESTION_PREFIX
        entries.append(KalmaEntry(
            id=f"biokalma-{i:04d}",
            question_general=q_general.removeprefix(QUESTION_PREFIX) if prefixed else q_general,
            question_specific=q_specific, paragraph="", entities=tuple(entities),
            minimum_knowledge_set=(), knowledge_pool=tuple(pool), seed=None,
            generation=generation))
    return entries


# -- writing ----------------------------------------------------------------------------
def biokalma_record(entry: KalmaEntry, lost: Counter[str]) -> tuple[list[Any], list[Any]]:
    """The entry's records of the general and the specific file; what they cannot hold
    is added to ``lost``."""
    by_subject: dict[str, list[Knowledge]] = {}
    for k in entry.knowledge_pool:
        by_subject.setdefault(k.subject_id, []).append(k)
    dicts: list[dict[str, str]] = []
    for entity in entry.entities:
        values: dict[str, str] = {}
        for k in by_subject.get(entity.id, []):
            if k.relation in (NAME_KEY, QID_KEY):
                lost["knowledge whose relation is 'name' or 'qid' (the layout's own keys)"] += 1
            elif k.relation in values:
                lost["values beyond the first of a relation (one value per key)"] += 1
            else:
                values[k.relation] = k.object
                lost["object ids (values are names)"] += k.object_id is not None
        entity_dict = {key: value for key, value in values.items() if key not in DATE_KEYS}
        entity_dict[NAME_KEY] = entity.name
        for key in DATE_KEYS:
            entity_dict[key] = values.get(key, "")
        entity_dict[QID_KEY] = entity.id
        dicts.append(entity_dict)
    ids = {e.id for e in entry.entities}
    lost["knowledge about other subjects than the entry's entities"] += sum(
        1 for k in entry.knowledge_pool if k.subject_id not in ids)
    lost["minimum knowledge sets"] += bool(entry.minimum_knowledge_set)
    lost["paragraphs"] += bool(entry.paragraph)
    lost["absent knowledge (conscious-incompetence variants)"] += bool(entry.absent_knowledge)
    prefix = entry.generation.get("general_prefix") \
        if entry.generation.get("source") == "biokalma" else None
    general = f"{prefix}{entry.question_general}" if isinstance(prefix, str) \
        else entry.question_general
    specific_dicts = [dict(d) for d in dicts]
    return [general, dicts], [entry.question_specific, specific_dicts]


def write_biokalma(entries: Iterable[KalmaEntry], out_dir: Path) -> BiokalmaExport:
    """Write ``entries`` as ``out_dir/simple_question_graph.json`` (general questions)
    and ``complex_question_graph.json`` (specific ones), in BioKaLMA's layout and JSON
    formatting (an imported dataset is written back byte for byte). Each file appears
    whole or not at all. Returns the paths and what was lost (see the module
    docstring)."""
    lost: Counter[str] = Counter()
    general_records: list[Any] = []
    specific_records: list[Any] = []
    for entry in entries:
        g, s = biokalma_record(entry, lost)
        general_records.append(g)
        specific_records.append(s)
    general_path = write_atomic(out_dir / GENERAL_FILE, json.dumps(general_records), option=None)
    specific_path = write_atomic(out_dir / SPECIFIC_FILE, json.dumps(specific_records))
    return BiokalmaExport(general_path, specific_path, len(general_records),
                          {kind: n for kind, n in sorted(lost.items()) if n})


def biokalma_files(directory: Path) -> tuple[Path, Path]:
    """``(general, specific)`` of a directory holding BioKaLMA's two files."""
    return directory / GENERAL_FILE, directory / SPECIFIC_FILE


def _short(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + "…"


def summary_of_losses(lost: Mapping[str, int]) -> Sequence[str]:
    """``lost`` as lines ("3 values beyond the first of a relation ...")."""
    return [f"{n:,} {kind}" for kind, n in lost.items()]
