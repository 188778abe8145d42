"""The Wikidata stagers (JSON dump and truthy N-Triples): mapping, truthy ranks,
qualifier statement nodes, dump layouts, compression, bad input, format guessing, and
loads into a real store through :func:`loaders.pipeline.run_load`."""

from __future__ import annotations

import gzip
import json
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pyarrow.parquet as pq
import pytest

from kgstore import open_store
from kgstore.models import Literal
from kgstore.staging import TABLES, StageWriter
from kgstore.store import Store
from loaders.errors import InputFileError, MalformedInputError, ParseReport, UnsupportedFormatError
from loaders.pipeline import Input, LoadOptions, LoadReport, run_load
from loaders.sniff import guess_loader, wrong_loader_message
from loaders.wikidata import (
    JSON,
    NTRIPLES,
    STAGERS,
    STATEMENT_TYPE,
    WKT_LITERAL,
    json_dump,
    json_layout,
    stage_wikidata_json,
    truthy,
    wikidata_format,
)
from tests.external import external_path as _external
from tests.kgbench.test_cli import run
from tests.loaders import write_compressed

WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"


# -- building entities -------------------------------------------------------------------
def texts(**by_lang: str) -> dict[str, dict[str, str]]:
    return {lang: {"language": lang, "value": v} for lang, v in by_lang.items()}


def snak(p: str, vtype: str, value: Any, datatype: str | None = None) -> dict[str, Any]:
    return {"snaktype": "value", "property": p, "datatype": datatype or vtype,
            "datavalue": {"type": vtype, "value": value}}


def item(p: str, q: str) -> dict[str, Any]:
    return snak(p, "wikibase-entityid", {"entity-type": "item", "numeric-id": int(q[1:]),
                                         "id": q}, "wikibase-item")


def time(p: str, t: str, precision: int) -> dict[str, Any]:
    return snak(p, "time", {"time": t, "timezone": 0, "before": 0, "after": 0,
                            "precision": precision,
                            "calendarmodel": "http://www.wikidata.org/entity/Q1985727"})


def special(p: str, kind: str) -> dict[str, Any]:
    return {"snaktype": kind, "property": p, "datatype": "wikibase-item"}


def stmt(mainsnak: dict[str, Any], rank: str = "normal", *, sid: str | None = None,
         qualifiers: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"mainsnak": mainsnak, "type": "statement", "rank": rank}
    if sid:
        out["id"] = sid
    if qualifiers:
        quals: dict[str, list[dict[str, Any]]] = {}
        for q in qualifiers:
            quals.setdefault(q["property"], []).append(q)
        out["qualifiers"] = quals
        out["qualifiers-order"] = list(quals)
    return out


def entity(id: str, *, labels: dict[str, str] | None = None,
           aliases: dict[str, list[str]] | None = None,
           descriptions: dict[str, str] | None = None,
           claims: list[dict[str, Any]] | None = None, type: str | None = None,
           **extra: Any) -> dict[str, Any]:
    grouped: dict[str, list[dict[str, Any]]] = {}
    for st in claims or []:
        grouped.setdefault(st["mainsnak"]["property"], []).append(st)
    return {
        "type": type or ("property" if id.startswith("P") else "item"), "id": id,
        "labels": texts(**(labels or {})) or [],  # dumps write empty maps as []
        "descriptions": texts(**(descriptions or {})) or [],
        "aliases": {lang: [{"language": lang, "value": v} for v in values]
                    for lang, values in (aliases or {}).items()} or [],
        "claims": grouped or [], "sitelinks": [], **extra,
    }


def dump_text(entities: list[Any], *, closing: bool = True, raw_lines: dict[int, str] | None
              = None) -> str:
    """The dump layout: ``[``, one entity per line with ``,``, ``]``. ``raw_lines`` puts
    a literal line before the entity of that index."""
    lines = ["["]
    for i, e in enumerate(entities):
        if raw_lines and i in raw_lines:
            lines.append(raw_lines[i])
        lines.append(json.dumps(e, ensure_ascii=False) + ",")
    if closing:
        lines[-1] = lines[-1].rstrip(",")
        lines.append("]")
    return "\n".join(lines) + "\n"


def write(path: Path, text: str | bytes) -> Path:
    return write_compressed(path, text)


def load(store: Store, *paths: Path, strict: bool = False, **options: Any) -> LoadReport:
    options.setdefault("qualifiers", False)
    inputs = [Input(p, wikidata_format(p)) for p in paths]
    return run_load(store, inputs, stager_for_format=STAGERS, options=LoadOptions(**options),
                    strict=strict)


def stage(tmp_path: Path, path: Path, *, strict: bool = False, workers: int | None = None,
          **options: Any) -> tuple[dict[str, list[dict[str, Any]]], ParseReport, dict[str, int]]:
    """Stage ``path`` with the JSON stager; its tables (rows without seq), report, counts."""
    options.setdefault("qualifiers", False)
    report = ParseReport()
    with StageWriter(tmp_path / "stage") as writer:
        counts = stage_wikidata_json(path, writer, report, options=LoadOptions(**options),
                                     strict=strict, workers=workers)
    tables: dict[str, list[dict[str, Any]]] = {}
    for table in TABLES:
        rows: list[dict[str, Any]] = []
        for part in sorted((tmp_path / "stage" / table).glob("*.parquet")):
            rows.extend(pq.read_table(part).to_pylist())
        for row in rows:
            row.pop("seq", None)
        tables[table] = rows
    return tables, report, counts


def out(store: Store, id: str, predicate: str | None = None) -> set[tuple[str, Any]]:
    return {(f.predicate, f.object) for f in store.facts_out(id, predicate=predicate,
                                                             limit=10_000)}


ADAMS = entity(
    "Q42",
    labels={"en": "Douglas Adams", "de": "Douglas Adams (de)", "fr": "Douglas Adams (fr)"},
    aliases={"en": ["DNA", "Douglas Noel Adams"], "fr": ["D. Adams"], "mul": ["D.N.A."]},
    descriptions={"en": "English writer", "de": "englischer Schriftsteller"},
    claims=[
        stmt(item("P31", "Q5")),
        stmt(item("P69", "Q691283"), sid="Q42$AAA", qualifiers=[
            time("P582", "+1974-00-00T00:00:00Z", 9), item("P512", "Q1765120"),
            special("P812", "somevalue")]),
        stmt(item("P69", "Q4961791"), sid="Q42$BBB"),
        # P19: preferred wins over normal; deprecated always dropped
        stmt(item("P19", "Q350"), "preferred"), stmt(item("P19", "Q84")),
        stmt(item("P19", "Q1"), "deprecated"),
        # P27: only normal + deprecated -> normal kept
        stmt(item("P27", "Q145")), stmt(item("P27", "Q174193"), "deprecated"),
        stmt(special("P1038", "somevalue")), stmt(special("P1037", "novalue")),
        stmt(time("P569", "+1952-03-11T00:00:00Z", 11)),
        stmt(time("P570", "+2001-05-11T14:15:00Z", 14)),
        stmt(time("P571", "-0500-00-00T00:00:00Z", 9)),
        stmt(time("P572", "+1952-03-00T00:00:00Z", 10)),
        stmt(snak("P2048", "quantity", {"amount": "+1.96", "unit": "http://www.wikidata.org/entity/Q11573"})),
        stmt(snak("P1971", "quantity", {"amount": "-3", "unit": "1"})),
        stmt(snak("P1477", "string", "Douglas Noël Adams", "string")),
        stmt(snak("P214", "string", "113230702", "external-id")),
        stmt(snak("P856", "string", "http://douglasadams.com/", "url")),
        stmt(snak("P18", "string", "Douglas adams portrait.jpg", "commonsMedia")),
        stmt(snak("P1559", "monolingualtext", {"text": "Douglas Adams", "language": "en-GB"})),
        stmt(snak("P1449", "monolingualtext", {"text": "ダグラス", "language": "ja"})),
        stmt(snak("P625", "globecoordinate", {"latitude": 51.5, "longitude": -0.125,
                                              "altitude": None, "precision": 0.001,
                                              "globe": "http://www.wikidata.org/entity/Q2"})),
        stmt(snak("P626", "globecoordinate", {"latitude": 1.0, "longitude": 2.5,
                                              "globe": "http://www.wikidata.org/entity/Q405"})),
        stmt(snak("P9999", "musical-notation-vector", "x")),  # unknown value type
    ],
)
EDUCATED = entity("P69", labels={"en": "educated at", "de": "besuchte"},
                  descriptions={"en": "educational institution attended"},
                  aliases={"en": ["alma mater"]}, datatype="wikibase-item")
LEXEME = {"type": "lexeme", "id": "L7", "lemmas": {"en": {"language": "en", "value": "cat"}},
          "claims": []}
MEDIA = {"type": "mediainfo", "id": "M5", "labels": {}}


@pytest.fixture
def dump(tmp_path: Path) -> Path:
    return write(tmp_path / "dump.json", dump_text([ADAMS, EDUCATED, LEXEME, MEDIA]))


@pytest.fixture
def store(tmp_path: Path):
    with open_store(tmp_path / "s", create=True) as s:
        yield s


# -- the mapping -------------------------------------------------------------------------
def test_names_aliases_descriptions_and_property_labels(dump: Path, store: Store) -> None:
    report = load(store, dump, strict=True)
    adams = store.entity("Q42")
    assert adams is not None
    assert adams.name == "Douglas Adams"
    assert adams.description == "English writer"
    assert set(adams.aliases) == {"DNA", "Douglas Noel Adams", "D.N.A."}  # mul included
    assert adams.types == ("Q5",)
    assert not adams.is_cvt
    prop = store.entity("P69")
    assert prop is not None and prop.name == "educated at" and prop.aliases == ("alma mater",)
    labels = {p.id: p.label for p in store.predicates()}
    assert labels["P69"] == "educated at"
    assert labels["P19"] is None  # no property entity in the dump
    f = report.files[0]
    assert f.format == JSON
    assert f.lines == 6 and f.malformed == 0
    assert f.mapped["items"] == 1 and f.mapped["properties"] == 1
    assert f.mapped["predicate_labels"] == 1
    assert f.dropped["lexeme"] == 1 and f.dropped["other_entity"] == 1
    assert f.dropped["lang"] > 0


def test_language_priority(dump: Path, store: Store) -> None:
    load(store, dump, langs=("de", "en"))
    adams = store.entity("Q42")
    assert adams is not None
    assert adams.name == "Douglas Adams (de)"
    assert adams.description == "englischer Schriftsteller"
    # the label of the other chosen language becomes an alias; fr is not chosen
    assert set(adams.aliases) == {"Douglas Adams", "DNA", "Douglas Noel Adams", "D.N.A."}
    assert {p.id: p.label for p in store.predicates()}["P69"] == "besuchte"


def test_language_without_label_leaves_the_item_nameless_but_not_a_cvt(
        dump: Path, store: Store) -> None:
    load(store, dump, langs=("it",))
    adams = store.entity("Q42")
    assert adams is not None and adams.name is None and not adams.is_cvt
    assert adams.aliases == ("D.N.A.",)  # mul aliases apply to every language


def test_truthy_ranks_and_special_values(dump: Path, store: Store) -> None:
    report = load(store, dump)
    assert out(store, "Q42", "P19") == {("P19", "Q350")}  # preferred only
    assert out(store, "Q42", "P27") == {("P27", "Q145")}  # deprecated dropped
    assert out(store, "Q42", "P69") == {("P69", "Q691283"), ("P69", "Q4961791")}
    assert not out(store, "Q42", "P1038") and not out(store, "Q42", "P1037")
    dropped = report.files[0].dropped
    assert dropped["deprecated"] == 2
    assert dropped["not_best_rank"] == 1
    assert dropped["somevalue"] == 1 and dropped["novalue"] == 1
    assert dropped["unsupported_value"] == 1


def test_value_types(dump: Path, store: Store) -> None:
    report = load(store, dump)
    facts = out(store, "Q42")
    expected = {
        ("P31", "Q5"),
        ("P569", Literal("1952-03-11", "xsd:date")),
        ("P570", Literal("2001-05-11T14:15:00Z", "xsd:dateTime")),
        ("P571", Literal("-0500", "xsd:gYear")),
        ("P572", Literal("1952-03", "xsd:gYearMonth")),
        ("P2048", Literal("1.96", "xsd:decimal")),
        ("P1971", Literal("-3", "xsd:decimal")),
        ("P1477", Literal("Douglas Noël Adams")),
        ("P214", Literal("113230702")),
        ("P856", Literal("http://douglasadams.com/")),
        ("P18", Literal("Douglas adams portrait.jpg")),
        ("P1559", Literal("Douglas Adams", lang="en-gb")),
        ("P1449", Literal("ダグラス", lang="ja")),  # monolingual text: every language kept
        ("P625", Literal("Point(-0.125 51.5)", WKT_LITERAL)),
        ("P626", Literal(f"<{WD}Q405> Point(2.5 1)", WKT_LITERAL)),
    }
    assert expected <= facts
    assert len(facts) == len(expected) + 4  # + P19, P27 and two P69
    f = report.files[0]
    assert f.mapped["quantity_unit_ignored"] == 1
    assert f.predicates["P69"] == 2
    assert f.triples == f.mapped["entity_facts"] + f.mapped["literal_facts"] == 19


def test_qualifiers_make_statement_nodes(dump: Path, store: Store) -> None:
    report = load(store, dump, qualifiers=True)
    node = "Q42-AAA"
    # the qualified statement goes through its node; the other stays direct
    assert out(store, "Q42", "P69") == {("P69", node), ("P69", "Q4961791")}
    assert out(store, node) == {
        ("P69", "Q691283"), ("P582", Literal("1974", "xsd:gYear")), ("P512", "Q1765120")}
    stmt_node = store.entity(node)
    assert stmt_node is not None and stmt_node.is_cvt and stmt_node.types == (STATEMENT_TYPE,)
    f = report.files[0]
    assert f.mapped["statement_nodes"] == 1 and f.mapped["qualifier_facts"] == 2
    assert f.dropped["qualifier_somevalue"] == 1
    assert store.stats().cvt_entities == 1


def test_statement_without_id_gets_a_content_hash_node(tmp_path: Path) -> None:
    e = entity("Q1", claims=[stmt(item("P69", "Q2"), qualifiers=[item("P512", "Q3")])])
    path = write(tmp_path / "d.json", dump_text([e]))
    tables, _, _ = stage(tmp_path, path, qualifiers=True)
    nodes = [r["id"] for r in tables["entities"] if r["is_cvt"]]
    assert len(nodes) == 1 and nodes[0].startswith("Q1-") and len(nodes[0]) == 3 + 24
    tables2, _, _ = stage(tmp_path / "again", path, qualifiers=True)
    assert [r["id"] for r in tables2["entities"] if r["is_cvt"]] == nodes  # stable


def test_predicate_filter_options(dump: Path, store: Store) -> None:
    report = load(store, dump, drop_predicates=("P18", "P5*"), qualifiers=True)
    facts = out(store, "Q42")
    assert not any(p in ("P18", "P569", "P570", "P571", "P572") for p, _ in facts)
    assert report.files[0].dropped["option"] == 7  # P18, 4 x P57x, qualifiers P582, P512
    assert out(store, "Q42-AAA") == {("P69", "Q691283")}


# -- layouts -----------------------------------------------------------------------------
def _facts(tables: dict[str, list[dict[str, Any]]]) -> set[tuple[str, str, str]]:
    return {(r["subject"], r["predicate"], r["object"]) for r in tables["facts"]}


def test_layouts_give_the_same_stage(tmp_path: Path) -> None:
    entities = [ADAMS, EDUCATED]
    variants = {
        "closed.json": dump_text(entities),
        "open.json": dump_text(entities, closing=False),  # no ']' and trailing commas
        "lines.jsonl": "".join(json.dumps(e) + "\n" for e in entities),
        "crlf.json": dump_text(entities).replace("\n", "\r\n"),
        "wrapped.json": json.dumps({"entities": {e["id"]: e for e in entities}}) + "\n",
        "pretty.json": json.dumps({"entities": {e["id"]: e for e in entities}}, indent=2),
        "list.json": json.dumps(entities, indent=1),
    }
    results = {}
    for name, text in variants.items():
        path = write(tmp_path / name, text)
        tables, report, counts = stage(tmp_path / f"st-{name}", path, strict=True)
        results[name] = (_facts(tables), sorted(r["id"] for r in tables["entities"]))
        assert report.malformed == 0 and counts["items"] == 1, name
    assert json_layout(tmp_path / "pretty.json") == "document"
    assert json_layout(tmp_path / "list.json") == "document"
    assert json_layout(tmp_path / "open.json") == "lines"
    first = results["closed.json"]
    assert len(first[0]) == 19
    assert all(r == first for r in results.values())


@pytest.mark.parametrize("suffix", [".json.gz", ".json.bz2"])
def test_compressed(tmp_path: Path, store: Store, suffix: str) -> None:
    path = write(tmp_path / f"dump{suffix}", dump_text([ADAMS, EDUCATED], closing=False))
    report = load(store, path, strict=True)
    assert report.files[0].triples == 19
    assert store.entity("Q42").name == "Douglas Adams"  # type: ignore[union-attr]


def test_worker_processes_give_the_same_stage(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(json_dump, "BATCH_LINES", 3)  # several batches in flight
    entities = [dict(ADAMS, id=f"Q{100 + i}") for i in range(20)] + [EDUCATED]
    path = write(tmp_path / "d.json.gz", dump_text(entities, raw_lines={7: "{oops", 15: "{}"}))
    one, rep1, c1 = stage(tmp_path / "a", path, workers=0, qualifiers=True)
    two, rep2, c2 = stage(tmp_path / "b", path, workers=2, qualifiers=True)
    assert one == two and c1 == c2
    assert (rep1.lines, rep1.triples, rep1.examples) == (rep2.lines, rep2.triples, rep2.examples)
    assert [e[1] for e in rep2.examples] == [9, 18]
    with pytest.raises(MalformedInputError) as err:
        stage(tmp_path / "c", path, workers=2, strict=True)
    assert err.value.line == 9


# -- bad input ---------------------------------------------------------------------------
def test_malformed_lines_counted_with_line_numbers(tmp_path: Path, store: Store) -> None:
    text = dump_text([ADAMS, EDUCATED], raw_lines={
        1: '{"type": "item", "labels": {}},',  # no id
        0: '{"type": "item", "id": "Q7", "claims": {"P31": [{"rank": "normal"}]}},'})
    lines = text.split("\n")
    lines.insert(3, '{"id": "Q9", "type": "item", "labels": {')  # invalid JSON
    path = tmp_path / "bad.json"
    path.write_bytes("\n".join(lines).encode() + b'\n\xff\xfe,\n')
    report = load(store, path)
    f = report.files[0]
    assert f.malformed == 4
    assert [(line, reason.split(":")[0]) for _, line, reason in f.examples] == [
        (2, "entity Q7"), (4, "invalid JSON"), (5, 'entity without an "id"'),
        (9, "invalid UTF-8 at byte 1 of the line (b'\\xff\\xfe,\\n')")]
    assert f.examples[1][0] == str(path)
    assert store.entity("Q42").name == "Douglas Adams"  # type: ignore[union-attr]
    assert store.entity("Q7") is None  # the half-mapped entity left nothing behind


def test_strict_stops_at_the_first_malformed_line(tmp_path: Path) -> None:
    path = write(tmp_path / "bad.json", dump_text([ADAMS, EDUCATED],
                                                  raw_lines={1: "not json,"}))
    with open_store(tmp_path / "s", create=True) as s:
        with pytest.raises(MalformedInputError) as err:
            load(s, path, strict=True)
        assert s.stats().facts == 0
    assert str(err.value).startswith(f"{path}:3: invalid JSON")


def test_truncated_gzip_names_file_and_byte_offset(tmp_path: Path) -> None:
    many = [dict(ADAMS, id=f"Q{i}") for i in range(200)]
    data = gzip.compress(dump_text(many).encode())
    path = tmp_path / "cut.json.gz"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputFileError) as err:
        stage(tmp_path, path, workers=0)
    message = str(err.value)
    assert message.startswith(str(path))
    assert f"of {len(data) // 2:,}" in message and "byte" in message
    with open_store(tmp_path / "s", create=True) as s, pytest.raises(InputFileError):
        load(s, path)


def test_non_json_given_to_the_json_stager(tmp_path: Path) -> None:
    nt = write(tmp_path / "fb.json", f"<http://rdf.freebase.com/ns/m.01> <{WDT}P1> \"x\" .\n")
    with pytest.raises(UnsupportedFormatError, match="kgbench load freebase"):
        stage(tmp_path, nt)


def test_reload_is_idempotent(dump: Path, store: Store) -> None:
    first = load(store, dump, qualifiers=True)
    before = store.stats()
    second = load(store, dump, qualifiers=True)
    assert second.import_report.facts_new == 0 and second.import_report.entities_new == 0
    after = store.stats()
    assert (after.facts, after.entities, after.literals) == (
        before.facts, before.entities, before.literals)
    assert first.files[0].triples == second.files[0].triples
    assert [s.status for s in store.sources()] == ["complete"]


# -- truthy N-Triples --------------------------------------------------------------------
TRUTHY = f"""\
<{WD}Q42> <{WDT}P31> <{WD}Q5> .
<{WD}Q42> <http://www.w3.org/2000/01/rdf-schema#label> "Douglas Adams (de)"@de .
<{WD}Q42> <http://www.w3.org/2000/01/rdf-schema#label> "Douglas Adams"@en .
<{WD}Q42> <http://www.w3.org/2000/01/rdf-schema#label> "Douglas Adams (fr)"@fr .
<{WD}Q42> <http://www.w3.org/2004/02/skos/core#altLabel> "DNA"@en .
<{WD}Q42> <http://www.w3.org/2004/02/skos/core#altLabel> "D. Adams"@fr .
<{WD}Q42> <http://schema.org/description> "English writer"@en .
<{WD}Q42> <http://schema.org/version> "123"^^<http://www.w3.org/2001/XMLSchema#integer> .
<{WD}Q42> <http://www.wikidata.org/prop/P69> <http://www.wikidata.org/entity/statement/Q42-A> .
<{WD}Q42> <{WDT}P69> <{WD}Q691283> .
<{WD}Q42> <{WDT}P2048> "+1.96"^^<http://www.w3.org/2001/XMLSchema#decimal> .
<{WD}Q42> <{WDT}P1559> "Douglas Adams"@en .
<{WD}Q42> <{WDT}P18> <http://commons.wikimedia.org/wiki/Special:FilePath/Douglas%20adams.jpg> .
<{WD}Q42> <{WDT}P856> <https://douglasadams.com/> .
<{WD}Q42> <{WDT}P1038> _:b0 .
<{WD}Q42> <{WDT}P1037> <http://www.wikidata.org/.well-known/genid/abc> .
<{WD}Q42> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://wikiba.se/ontology#Item> .
<{WD}P69> <http://www.w3.org/2000/01/rdf-schema#label> "educated at"@en .
<{WD}P69> <http://wikiba.se/ontology#directClaim> <{WDT}P69> .
this is not a triple
"""


@pytest.mark.parametrize("suffix", [".nt", ".nt.gz", ".nt.bz2"])
def test_truthy_ntriples(tmp_path: Path, store: Store, suffix: str) -> None:
    path = write(tmp_path / f"truthy{suffix}", TRUTHY)
    report = load(store, path)
    f = report.files[0]
    assert f.format == NTRIPLES
    assert f.lines == 20 and f.malformed == 1 and f.examples[0][1] == 20
    adams = store.entity("Q42")
    assert adams is not None
    assert adams.name == "Douglas Adams" and adams.description == "English writer"
    assert set(adams.aliases) == {"DNA"} and adams.types == ("Q5",) and not adams.is_cvt
    assert out(store, "Q42") == {
        ("P31", "Q5"), ("P69", "Q691283"), ("P2048", Literal("1.96", "xsd:decimal")),
        ("P1559", Literal("Douglas Adams", lang="en")),
        ("P18", Literal("Douglas adams.jpg")), ("P856", Literal("https://douglasadams.com/"))}
    assert {p.id: p.label for p in store.predicates()}["P69"] == "educated at"
    assert f.dropped == {"predicate_p": 1, "predicate_schema": 1, "predicate_rdf": 1,
                         "predicate_wikibase": 1, "somevalue": 2, "lang": 3}
    assert f.predicates == {"P31": 1, "P69": 1, "P2048": 1, "P1559": 1, "P18": 1, "P856": 1}


def test_truthy_language_priority_and_filter_off(tmp_path: Path, store: Store) -> None:
    path = write(tmp_path / "truthy.nt", TRUTHY.replace("this is not a triple\n", ""))
    load(store, path, langs=("fr", "en"), default_filter=False, strict=True)
    adams = store.entity("Q42")
    assert adams is not None and adams.name == "Douglas Adams (fr)"
    assert set(adams.aliases) == {"Douglas Adams", "DNA", "D. Adams"}
    preds = {p for p, _ in out(store, "Q42")}
    assert "http://schema.org/version" in preds  # kept as a fact without the default filter


def test_strict_ntriples_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path / "truthy.nt", TRUTHY)
    with pytest.raises(MalformedInputError, match=r"truthy\.nt:20: "):
        with StageWriter(tmp_path / "st") as w:
            stage = STAGERS[wikidata_format(path)]
            stage(path, w, ParseReport(), options=LoadOptions(), strict=True)


def test_freebase_dump_given_to_the_wikidata_loader(tmp_path: Path) -> None:
    path = write(tmp_path / "fb.nt", "<http://rdf.freebase.com/ns/m.01> "
                                     "<http://rdf.freebase.com/ns/type.object.name> \"x\" .\n")
    with pytest.raises(UnsupportedFormatError, match="kgbench load freebase"):
        with StageWriter(tmp_path / "st") as w:
            stage = STAGERS[wikidata_format(path)]
            stage(path, w, ParseReport(), options=LoadOptions())


# -- format detection --------------------------------------------------------------------
def test_guess_loader_and_messages(tmp_path: Path) -> None:
    js = write(tmp_path / "a.json.gz", dump_text([ADAMS]))
    noext = write(tmp_path / "dump", dump_text([ADAMS]))
    truthy = write(tmp_path / "t.nt.bz2", TRUTHY)
    fb = write(tmp_path / "fb.gz", "<http://rdf.freebase.com/ns/m.01> "
                                   "<http://rdf.freebase.com/ns/type.object.name> \"x\" .\n")
    generic = write(tmp_path / "g.nt", "<http://ex.org/a> <http://ex.org/p> <http://ex.org/b> .\n")
    tsv = write(tmp_path / "t.tsv", "a\tp\tb\n")
    ttl = write(tmp_path / "x.ttl", "@prefix wd: <http://www.wikidata.org/entity/> .\n")
    empty = write(tmp_path / "e.txt", "")
    assert [guess_loader(p) for p in (js, noext, truthy, fb, generic, tsv, ttl, empty)] == [
        "wikidata", "wikidata", "wikidata", "freebase", "triples", "triples", "rdf", "unknown"]
    assert wikidata_format(js) == JSON and wikidata_format(noext) == JSON
    assert wikidata_format(truthy) == NTRIPLES
    message = wrong_loader_message(js, "freebase")
    assert message and "`kgbench load wikidata" in message
    assert "kgbench load wikidata" in (wrong_loader_message(js, "triples") or "")
    assert "kgbench load freebase" in (wrong_loader_message(fb, "wikidata") or "")
    assert "kgbench load wikidata" in (wrong_loader_message(truthy, "freebase") or "")
    assert wrong_loader_message(truthy, "triples") is None  # any N-Triples is triples
    assert wrong_loader_message(js, "wikidata") is None
    assert wrong_loader_message(generic, "wikidata") is None
    with pytest.raises(UnsupportedFormatError, match="kgbench load triples"):
        wikidata_format(tsv)
    with pytest.raises(InputFileError, match="not found"):
        guess_loader(tmp_path / "missing.json")


# -- external data -----------------------------------------------------------------------
def _truthy(entity: dict[str, Any]) -> list[dict[str, Any]]:
    """Independent reference: the truthy main snaks of an entity (plain json)."""
    kept = []
    for statements in (entity.get("claims") or {}).values():
        ranks = {s["rank"] for s in statements}
        best = "preferred" if "preferred" in ranks else "normal"
        kept += [s["mainsnak"] for s in statements
                 if s["rank"] == best and s["mainsnak"]["snaktype"] == "value"]
    return kept


@pytest.mark.external
def test_dump_first_50_lines(tmp_path: Path, store: Store) -> None:
    path = _external("wikidata", "wikibase-dump-filter_entities_first50lines.json")
    with path.open(encoding="utf-8") as fh:
        entities = [json.loads(line.rstrip().rstrip(",")) for line in fh
                    if line.strip() not in ("[", "]")]
    assert len(entities) == 49
    report = load(store, path, strict=True)
    f = report.files[0]
    assert (f.lines, f.malformed) == (50, 0)
    assert f.mapped["items"] == 49
    snaks = [s for e in entities for s in _truthy(e)]
    assert f.triples == len(snaks)
    kinds = Counter(s["datavalue"]["type"] for s in snaks)
    assert f.mapped["entity_facts"] == kinds["wikibase-entityid"]
    imp = report.import_report
    assert imp.facts_new + imp.facts_duplicate == f.triples
    for e in entities:
        stored = store.entity(e["id"])
        assert stored is not None
        assert stored.name == e["labels"]["en"]["value"]
        assert stored.description == (e.get("descriptions") or {}).get("en", {}).get("value")
        p31 = {s["datavalue"]["value"]["id"] for s in _truthy(e) if s["property"] == "P31"}
        assert set(stored.types) == p31
        props = {s["property"] for s in _truthy(e)}
        assert {fact.predicate for fact in store.facts_out(e["id"], limit=10_000)} == props
    assert store.entity("Q23").name == "George Washington"  # type: ignore[union-attr]


@pytest.mark.external
def test_single_entities_and_entitydata(tmp_path: Path, store: Store) -> None:
    q22 = _external("wikidata", "wikibase-dump-filter_Q22.json")
    q42 = _external("wikidata", "qwikidata_wd_Q42.json")  # pretty-printed document
    p279 = _external("wikidata", "qwikidata_wd_P279.json")
    lexeme = _external("wikidata", "qwikidata_wd_L3354.json")
    report = load(store, q22, q42, p279, lexeme, strict=True, qualifiers=True)
    assert [f.malformed for f in report.files] == [0, 0, 0, 0]
    assert store.entity("Q22").name == "Scotland"  # type: ignore[union-attr]
    adams = store.entity("Q42")
    assert adams is not None and adams.name == "Douglas Adams" and adams.types == ("Q5",)
    reference = json.loads(q42.read_text(encoding="utf-8"))
    qualified = [s for st in reference["claims"].values() for s in st
                 if s.get("qualifiers") and s["mainsnak"] in _truthy(reference)]
    assert report.files[1].mapped["statement_nodes"] == len(qualified)
    assert report.files[1].triples == len(_truthy(reference)) + len(qualified) + sum(
        1 for s in qualified for qs in s["qualifiers"].values() for q in qs
        if q["snaktype"] == "value")
    statement_nodes = [f.object for f in store.facts_out("Q42", predicate="P69")
                       if isinstance(f.object, str) and f.object.startswith("q42-")]
    assert statement_nodes  # P69 statements with qualifiers became nodes
    node = store.entity(statement_nodes[0])
    assert node is not None and node.is_cvt
    assert {p.id: p.label for p in store.predicates()}.get("P279") == "subclass of"
    assert report.files[3].dropped == {"lexeme": 1}


@pytest.mark.external
def test_humans_jsonl_matches_the_dump_lines(tmp_path: Path) -> None:
    humans = _external("wikidata", "DERIVED_humans_Q5.jsonl")
    with open_store(tmp_path / "s", create=True) as s:
        report = load(s, humans, strict=True)
        assert report.files[0].mapped["items"] == 5
        for qid in ("Q23", "Q185", "Q255", "Q306", "Q42"):
            e = s.entity(qid)
            assert e is not None and "Q5" in e.types and e.name


@pytest.mark.external
def test_truthy_q42_matches_its_turtle_source(tmp_path: Path, store: Store) -> None:
    nt = _external("wikidata", "DERIVED_Q42_truthy.nt")
    report = load(store, nt, strict=True)
    f = report.files[0]
    assert (f.lines, f.malformed, f.mapped["facts"]) == (680, 0, 300)
    adams = store.entity("Q42")
    assert adams is not None and adams.name == "Douglas Adams"
    assert adams.description == "English author and humourist (1952–2001)"
    assert "DNA" in adams.aliases and adams.types == ("Q5",)
    facts = store.facts_out("Q42", limit=10_000)
    assert len({(x.predicate, x.object_key) for x in facts}) == len(facts)
    ttl = _external("wikidata", "wikidata-query-rdf_Q42.ttl")
    rdflib = pytest.importorskip("rdflib")
    graph = rdflib.Graph()
    graph.parse(ttl, format="turtle")
    subject = rdflib.URIRef(WD + "Q42")
    expected = {(str(p)[len(WDT):], str(o)) for _, p, o in graph.triples((subject, None, None))
                if str(p).startswith(WDT) and not isinstance(o, rdflib.BNode)
                and not str(o).startswith("http://www.wikidata.org/.well-known/genid/")}
    got = {(x.predicate, x.object.value if isinstance(x.object, Literal) else WD + x.object)
           for x in facts}
    commons = "http://commons.wikimedia.org/wiki/Special:FilePath/"
    normalized = {(p, o[1:] if o.startswith("+") else
                   unquote(o[len(commons):]) if o.startswith(commons) else o)
                  for p, o in expected}
    assert got == normalized
    assert Literal("Douglas adams portrait cropped.jpg") in {x.object for x in facts}
    assert len(facts) == 300


@pytest.mark.external
def test_truthy_q42_agrees_with_load_rdf_of_the_turtle(tmp_path: Path) -> None:
    """The Turtle dump of Q42 through ``load rdf`` and its truthy extract through
    ``load wikidata``: the same wdt: facts, up to the documented value normalisations."""
    rdf = pytest.importorskip("loaders.rdf")
    ttl = _external("wikidata", "wikidata-query-rdf_Q42.ttl")
    nt = _external("wikidata", "DERIVED_Q42_truthy.nt")
    with open_store(tmp_path / "rdf", create=True) as s:
        rdf.load_rdf(s, [ttl], options=LoadOptions(qualifiers=False), strict=True)
        via_rdf = {(f.predicate, f.object) for f in s.facts_out("Q42", limit=10_000)
                   if truthy._WIKIDATA_PROPERTY.match(f.predicate)}
    with open_store(tmp_path / "wd", create=True) as s:
        load(s, nt, strict=True)
        via_wd = out(s, "Q42")

    def normalise(obj: Any) -> Any:
        if isinstance(obj, Literal):
            value = obj.value[1:] if obj.datatype == "xsd:decimal" and obj.value[:1] == "+" \
                else obj.value
            return Literal(value, obj.datatype, obj.lang)
        if "://" in obj:  # IRIs that are no entities: plain literals in load wikidata
            return Literal(truthy._iri_value(obj))
        return obj

    def utc_z(obj: Any) -> Any:  # the derived file was written by rdflib: "+00:00" for "Z"
        if isinstance(obj, Literal) and obj.datatype == "xsd:dateTime":
            return Literal(obj.value.replace("+00:00", "Z"), obj.datatype)
        return obj

    assert len(via_wd) == 300
    assert {(p, normalise(o)) for p, o in via_rdf
            if not (isinstance(o, str) and o.startswith(("_:", truthy._GENID)))} == {
        (p, utc_z(o)) for p, o in via_wd}

# -- command line ------------------------------------------------------------------------


def test_cli_load_wikidata(tmp_path: Path) -> None:
    js = write(tmp_path / "dump.json.gz", dump_text([ADAMS, EDUCATED, LEXEME]))
    nt = write(tmp_path / "truthy.nt", TRUTHY)
    report_file = tmp_path / "load.json"
    proc = run("--store", tmp_path / "s", "load", "wikidata", js, nt, "--qualifiers",
                "--lang", "en", "--report", report_file, "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert [f["format"] for f in doc["report"]["files"]] == [JSON, NTRIPLES]
    assert doc["summary"]["malformed"] == 1 and doc["summary"]["dropped"]["lexeme"] == 1
    assert doc["store_totals"]["cvt_entities"] == 1
    assert json.loads(report_file.read_text())["summary"] == doc["summary"]
    again = run("--store", tmp_path / "s", "load", "wikidata", js, nt, "--qualifiers", "--json")
    assert json.loads(again.stdout)["summary"]["facts_new"] == 0  # idempotent


def test_cli_wrong_format_and_strict(tmp_path: Path) -> None:
    tsv = write(tmp_path / "facts.tsv", "a\tp\tb\n")
    proc = run("--store", tmp_path / "s", "load", "wikidata", tsv)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "use `kgbench load triples`" in proc.stderr
    bad = write(tmp_path / "bad.json", dump_text([ADAMS], raw_lines={0: "{oops,"}))
    proc = run("--store", tmp_path / "s", "load", "wikidata", "--strict", bad)
    assert proc.returncode == 1 and f"{bad}:2: invalid JSON" in proc.stderr
    assert not (tmp_path / "s").exists()  # nothing left behind
