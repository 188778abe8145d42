"""``kgbench load ... --predicate-names FILE`` (issue 34, a lexicon from the data): the
names of the predicates a store holds, from FB15k-237's relation2text.txt, Wikidata
property JSON lines or a Freebase dump's property names, as labels and aliases; and
every hostile file refused in one line before anything is loaded. Loader calls on real
LadybugDB stores, the real CLI in a subprocess for the refusals."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from kgstore import Predicate, open_store
from loaders.errors import MalformedInputError, NotFormatError
from loaders.pipeline import LoadOptions
from loaders.predicate_names import load_predicate_names, spells_id
from loaders.triples import load_triples
from tests.external import external_path
from tests.kgbench.test_cli import run, run_json

FACTS = ("/m/0irons\t/film/actor/film./film/performance/film\t/m/0lion\n"
         "/m/0lion\t/film/film/genre\t/m/0drama\n"
         "/m/0irons\t/people/person/place_of_birth\t/m/0london\n")
FB = "http://rdf.freebase.com/ns/"


def _store_with_facts(tmp_path: Path, facts: str = FACTS) -> str:
    path = tmp_path / "facts.tsv"
    path.write_text(facts, encoding="utf-8")
    location = str(tmp_path / "store")
    with open_store(location, create=True) as store:
        load_triples(store, [path])
    return location


def _names(location: str) -> dict[str, tuple[str | None, tuple[str, ...]]]:
    with open_store(location, read_only=True) as store:
        return {p.id: (p.label, p.aliases) for p in store.predicates()}


def test_spelled_ids_are_not_names() -> None:
    assert spells_id("film.actor.film..film.performance.film",
                     "film actor film. film performance film")
    assert spells_id("music.artist.origin", "Music artist  origin")
    assert not spells_id("film.film.genre", "Genre")
    assert not spells_id("P19", "place of birth")


def test_text_lines_name_the_predicates_in_the_store(tmp_path: Path) -> None:
    """relation<TAB>text: a name for a predicate of the store is kept, one for a
    predicate it lacks is counted and dropped, a text spelling the id is dropped."""
    location = _store_with_facts(tmp_path)
    names = tmp_path / "relation2text.txt"
    names.write_text("/film/film/genre\tgenre of the film\n"
                     "/people/person/place_of_birth\tpeople person place of birth\n"
                     "/music/artist/origin\tplace the band formed\n\n", encoding="utf-8")
    with open_store(location) as store:
        report = load_predicate_names(store, names)
        (file,) = report.files
        assert file.format == "predicate-names"
        assert file.dropped == {"spelled_id": 1, "unknown_predicate": 1}
        assert file.mapped["predicate_labels"] == 1
        assert [s.format for s in store.sources()][-1] == "predicate-names"
    got = _names(location)
    assert got["film.film.genre"] == ("genre of the film", ())
    assert got["people.person.place_of_birth"] == (None, ())
    assert "music.artist.origin" not in got     # not made by a name alone


def test_wikidata_property_lines_and_dump_entities(tmp_path: Path) -> None:
    """Property-list lines give label and aliases; a dump entity line (trailing comma,
    ``[`` first) is read in the first chosen language that labels it."""
    location = _store_with_facts(tmp_path, "Q1\tP19\tQ2\nQ1\tP106\tQ3\nQ1\tP27\tQ4\n")
    names = tmp_path / "props.jsonl"
    dump_entity = {"type": "property", "id": "P27",
                   "labels": {"de": {"language": "de", "value": "Staatsangehörigkeit"},
                              "fr": {"language": "fr", "value": "nationalité"}},
                   "aliases": {"fr": [{"language": "fr", "value": "citoyenneté"}]}}
    names.write_text(
        "[\n"
        + json.dumps({"id": "P19", "label": "place of birth",
                      "aliases": ["birthplace", "born in"], "datatype": "wikibase-item"}) + "\n"
        + json.dumps({"id": "P106", "label": "occupation", "aliases": []}) + "\n"
        + json.dumps({"id": "P999", "label": "not in the store"}) + "\n"
        + json.dumps(dump_entity) + ",\n]\n", encoding="utf-8")
    with open_store(location) as store:
        load_predicate_names(store, names, options=LoadOptions(langs=("fr", "de")))
    got = _names(location)
    assert got["P19"] == ("place of birth", ("birthplace", "born in"))
    assert got["P106"] == ("occupation", ())
    assert got["P27"] == ("nationalité", ("citoyenneté",))


def test_freebase_dump_lines_name_properties(tmp_path: Path) -> None:
    """N-Triples: ``type.object.name`` of a property in the chosen language, its
    ``common.topic.alias`` as aliases; the dump's facts are passed over."""
    location = _store_with_facts(tmp_path)
    dump = tmp_path / "freebase-head.nt"
    dump.write_text(
        f'<{FB}film.film.genre>\t<{FB}type.object.name>\t"Genres"@en\t.\n'
        f'<{FB}film.film.genre>\t<{FB}type.object.name>\t"Genres"@de\t.\n'
        f'<{FB}film.film.genre>\t<{FB}common.topic.alias>\t"kind of film"@en\t.\n'
        f'<{FB}film.film.genre>\t<{FB}type.property.schema>\t<{FB}film.film>\t.\n'
        f'<{FB}people.person.place_of_birth>\t<{FB}type.object.name>\t"Lieu"@fr\t.\n'
        f'<{FB}m.0lion>\t<{FB}type.object.name>\t"The Lion King"@en\t.\n', encoding="utf-8")
    with open_store(location) as store:
        report = load_predicate_names(store, dump)
    assert report.files[0].dropped == {"lang": 2, "unknown_predicate": 1}
    got = _names(location)
    assert got["film.film.genre"] == ("Genres", ("kind of film",))
    assert got["people.person.place_of_birth"] == (None, ())


def test_a_second_file_relabels_and_adds_aliases(tmp_path: Path) -> None:
    location = _store_with_facts(tmp_path)
    first, second = tmp_path / "a.tsv", tmp_path / "b.jsonl"
    first.write_text("/film/film/genre\tgenre\n", encoding="utf-8")
    second.write_text(json.dumps({"id": "film.film.genre", "label": "Genres",
                                  "aliases": ["kind"]}) + "\n", encoding="utf-8")
    with open_store(location) as store:
        load_predicate_names(store, first)
        load_predicate_names(store, second)
        load_predicate_names(store, first)      # the label wins again, aliases stay
        assert Predicate("film.film.genre", "genre", 1, ("kind",)) in store.predicates()


def test_strict_stops_at_a_malformed_line(tmp_path: Path) -> None:
    location = _store_with_facts(tmp_path)
    names = tmp_path / "relation2text.txt"
    names.write_text("/film/film/genre\tgenre\nno tab here\n", encoding="utf-8")
    with open_store(location) as store:
        with pytest.raises(MalformedInputError, match="relation2text.txt:2: expected"):
            load_predicate_names(store, names, strict=True)
        assert store.predicates()[0].label is None


def test_wrong_layout_is_refused(tmp_path: Path) -> None:
    location = _store_with_facts(tmp_path)
    names = tmp_path / "names.csv"
    names.write_text("film.film.genre,genre\n", encoding="utf-8")
    with open_store(location) as store, pytest.raises(NotFormatError,
                                                      match="not a predicate names file"):
        load_predicate_names(store, names)


# -- the CLI: hostile files get one line, and nothing is loaded -------------------------------

def _cli_refusal(tmp_path: Path, names: Path, expected: str) -> None:
    facts = tmp_path / "facts.tsv"
    facts.write_text(FACTS, encoding="utf-8")
    store = tmp_path / "store"
    proc = run("load", "triples", facts, "--predicate-names", names, "--store", store)
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr + proc.stdout
    errors = [ln for ln in proc.stderr.splitlines() if ln.startswith("Error:")]
    assert len(errors) == 1 and expected in errors[0], proc.stderr
    assert not store.exists()        # not even the facts were loaded


def test_cli_missing_file(tmp_path: Path) -> None:
    _cli_refusal(tmp_path, tmp_path / "nowhere.txt", "file not found")


def test_cli_directory(tmp_path: Path) -> None:
    _cli_refusal(tmp_path, tmp_path, "is a directory")


def test_cli_binary_file(tmp_path: Path) -> None:
    path = tmp_path / "random.bin"
    path.write_bytes(random.Random(34).randbytes(1 << 20))
    _cli_refusal(tmp_path, path, "not a predicate names file")


def test_cli_mostly_malformed_file(tmp_path: Path) -> None:
    """A first line that passes for relation<TAB>text does not let a file of other
    lines through: its head is parsed before the facts load."""
    path = tmp_path / "names.txt"
    path.write_text("/film/film/genre\tgenre\n" + "plain words, no tab\n" * 50, encoding="utf-8")
    _cli_refusal(tmp_path, path, "not a predicate names file")


def test_cli_huge_line_is_a_malformed_line(tmp_path: Path) -> None:
    """A line over KGBENCH_MAX_LINE_BYTES is skipped and counted, not read into memory."""
    facts = tmp_path / "facts.tsv"
    facts.write_text(FACTS, encoding="utf-8")
    names = tmp_path / "names.txt"
    names.write_text("/film/film/genre\tgenre\n" + "/film/film/x\t" + "y" * 5000 + "\n",
                     encoding="utf-8")
    doc = run_json("load", "triples", facts, "--predicate-names", names,
                   "--store", tmp_path / "store", env={"KGBENCH_MAX_LINE_BYTES": "1000"})
    (names_file,) = [f for f in doc["report"]["files"] if f["format"] == "predicate-names"]
    assert names_file["malformed"] == 1
    assert "longer than" in names_file["examples"][0][2]
    labels = {p["id"]: p["label"] for p in run_json("predicates", "--store",
                                                    tmp_path / "store")["predicates"]}
    assert labels["film.film.genre"] == "genre"


# -- the real files -------------------------------------------------------------------------

def test_relation2text_only_spells_ids(tmp_path: Path) -> None:
    """FB15k-237's relation2text.txt: every text is its relation's path in words, so
    none becomes a label (the id's last part reads better)."""
    fb = external_path("freebase", "fb15k237")
    location = str(tmp_path / "store")
    with open_store(location, create=True) as store:
        load_triples(store, [fb / "dev.tsv"])
        report = load_predicate_names(store, fb / "relation2text.txt")
        assert all(p.label is None for p in store.predicates())
    (file,) = report.files
    assert file.lines == 237 and file.malformed == 0
    assert file.dropped["spelled_id"] + file.dropped["unknown_predicate"] == 237


def test_wikidata_property_list_names_a_wikidata_store(tmp_path: Path) -> None:
    wd = external_path("wikidata")
    store = tmp_path / "store"
    run_json("load", "wikidata", wd / "DERIVED_humans_Q5.jsonl", "--predicate-names",
             wd / "DERIVED_wikidata_properties_en.jsonl", "--store", store)
    names = {p["id"]: p for p in run_json("predicates", "--store", store)["predicates"]}
    assert names["P19"]["label"] == "place of birth" and "birthplace" in names["P19"]["aliases"]
    assert names["P106"]["label"] == "occupation" and "profession" in names["P106"]["aliases"]
    with open(wd / "DERIVED_wikidata_properties_en.jsonl", encoding="utf-8") as fh:
        listed = {json.loads(line)["id"] for line in fh}
    # Every predicate the list names has its label (P1273 is not in the list).
    assert {i for i, p in names.items() if p["label"]} == set(names) & listed
