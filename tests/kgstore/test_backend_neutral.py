"""What code above ``kgstore`` may see of a store: locations as strings, the ``Store``
methods (seeded matches, the staging folder) and nothing of a backend's modules.

A second backend (Neo4j) then fits without touching loaders, extension or the CLI.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kgstore import (
    Literal,
    NotEqual,
    PatternQuery,
    Store,
    StoreError,
    TriplePattern,
    Var,
    open_store,
    remove_store,
    store_exists,
)
from kgstore.backends.ladybug import LadybugStore
from kgstore.patterns import Binding, MatchResult
from loaders.pipeline import stage_location
from tests.kgbench.test_cli_package import ROOT, imported_modules
from tests.kgstore.kgdata import (
    ACTOR,
    CHARACTER,
    DIRECTED_BY,
    NATIONALITY,
    RELEASE,
    RELEASE_1972,
    STARRING,
)

ABOVE_KGSTORE = ("loaders", "llm", "extension", "scoring", "kgbench")
BACKEND_INTERNALS = ("kgstore.backends", "kgstore.algorithms.expansion", "kgstore.ladybug_store", "ladybug")
"""Modules only ``kgstore`` itself may import (the engine's package among them)."""

A, C, D, F, N, P, X = (Var(n) for n in "acdfnpx")


@pytest.mark.parametrize("package", ABOVE_KGSTORE)
def test_code_above_kgstore_imports_no_backend_module(package: str) -> None:
    def internal(name: str) -> bool:
        return any(name == m or name.startswith(m + ".") for m in BACKEND_INTERNALS)

    offending = {str(path.relative_to(ROOT)): names
                 for path in sorted((ROOT / package).rglob("*.py"))
                 if (names := sorted(filter(internal, imported_modules(path))))}
    assert offending == {}


LOCATION_READERS = ("is_neo4j", "is_uri", "location_scheme", "NEO4J_SCHEMES")
"""What tells a location's backend from its text: kgstore's own business (the CLI and
the service ask ``Store.dialect``, or ``store_directory`` for a store's folder)."""


@pytest.mark.parametrize("package", ABOVE_KGSTORE)
def test_code_above_kgstore_does_not_read_the_backend_off_the_location(package: str) -> None:
    def reads_location(name: str) -> bool:
        return name.rpartition(".")[2] in LOCATION_READERS and name.startswith("kgstore")

    offending = {str(path.relative_to(ROOT)): names
                 for path in sorted((ROOT / package).rglob("*.py"))
                 if (names := sorted(filter(reads_location, imported_modules(path))))}
    assert offending == {}


def test_the_neo4j_admin_api_loads_the_backend_only_when_an_export_runs() -> None:
    # kgstore.neo4j_admin is what the CLI imports; it must not hand a backend module up.
    code = ("import sys, kgstore.neo4j_admin; "
            "print(sorted(m for m in sys.modules if m.startswith('kgstore.backends')))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, cwd=ROOT)
    assert proc.stdout.strip() == "[]"


# -- locations ----------------------------------------------------------------------------

def test_store_exists_and_remove_store_take_the_location_string(tmp_path: Path) -> None:
    location = str(tmp_path / "kg")
    assert not store_exists(location)
    open_store(location, create=True).close()
    assert store_exists(location)
    remove_store(location)
    assert not store_exists(location) and not Path(location).exists()


def test_remove_store_refuses_a_folder_that_is_no_store(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(StoreError, match="not a kgbench store"):
        remove_store(str(tmp_path))
    assert (tmp_path / "notes.txt").read_text() == "mine"


# -- staging --------------------------------------------------------------------------------

def test_the_embedded_store_stages_in_its_own_folder(tmp_path: Path) -> None:
    with open_store(str(tmp_path / "kg"), create=True) as store:
        assert store.staging_dir() == tmp_path / "kg" / "staging"


class _StagesElsewhere(LadybugStore):
    """An embedded store whose backend keeps its stages in another folder."""

    folder: Path

    def staging_dir(self) -> Path:
        return self.folder


class _KeepsNoStages(LadybugStore):
    def staging_dir(self) -> None:
        return None


def test_the_loaders_stage_where_the_backend_says(tmp_path: Path) -> None:
    with _StagesElsewhere(tmp_path / "kg", create=True) as store:
        store.folder = tmp_path / "work"
        stage, temp_root = stage_location(store, Path("a b.nt"), "0123456789abcdef", set())
        assert temp_root is None
        assert stage == tmp_path / "work" / "a_b.nt-0123456789ab"
        again, _ = stage_location(store, Path("a b.nt"), "0123456789abcdef", {stage})
        assert again == tmp_path / "work" / "a_b.nt-0123456789ab-2"


def test_a_backend_without_a_staging_folder_stages_in_a_temporary_one(tmp_path: Path) -> None:
    with _KeepsNoStages(tmp_path / "kg", create=True) as store:
        stage, temp_root = stage_location(store, Path("a.nt"), "0123456789abcdef", set())
    assert temp_root is not None and stage.parent == temp_root
    assert not (tmp_path / "kg" / "staging").exists()
    temp_root.rmdir()


# -- seeded matches ------------------------------------------------------------------------

def _key(b: Binding) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((k, v.key if isinstance(v, Literal) else v) for k, v in b.items()))


def _filtered(full: MatchResult, seeds: list[Binding], selected: list[str]) -> set:
    wanted = {_key(s) for s in seeds}
    return {_key({n: b[n] for n in selected}) for b in full.bindings
            if _key({n: b[n] for n in seeds[0]}) in wanted}


SEEDED = [
    # one pattern, seeds on the subject
    (PatternQuery((TriplePattern(F, DIRECTED_BY, D),)),
     [{"f": "m.godfather"}, {"f": "m.godfather2"}, {"f": "m.usa"}]),
    # a chain through CVTs, seeds on the far end; literals and entities
    (PatternQuery((TriplePattern(F, STARRING, P), TriplePattern(P, ACTOR, A),
                   TriplePattern(P, CHARACTER, C))), [{"a": "m.pacino"}]),
    (PatternQuery((TriplePattern(F, RELEASE, X), TriplePattern(F, DIRECTED_BY, D))),
     [{"x": RELEASE_1972}, {"x": Literal("1999", "xsd:gYear")}]),
    # a constraint and a selection that leaves the seeded variable out
    (PatternQuery((TriplePattern(A, NATIONALITY, N), TriplePattern(P, ACTOR, A)),
                  constraints=(NotEqual(A, "m.brando"),), select=(P,)),
     [{"a": "m.brando"}, {"a": "m.pacino"}]),
    # a predicate variable: the embedded store cannot start a join from the seeds and
    # filters its one compiled query instead
    (PatternQuery((TriplePattern("m.godfather", Var("r"), X),)),
     [{"x": "m.usa"}, {"x": "m.coppola"}, {"x": "m.nobody"}]),
    # two seeded variables
    (PatternQuery((TriplePattern(F, STARRING, P), TriplePattern(P, ACTOR, A))),
     [{"f": "m.godfather", "a": "m.pacino"}, {"f": "m.godfather2", "a": "m.brando"}]),
]


@pytest.mark.parametrize(("query", "seeds"), SEEDED, ids=range(len(SEEDED)))
def test_a_seeded_match_is_the_unseeded_match_filtered(
        film_store: Store, query: PatternQuery, seeds: list[Binding]) -> None:
    full = film_store.match(PatternQuery(query.patterns, query.constraints))
    selected = [v.name for v in query.selected()]
    expected = _filtered(full, seeds, selected)
    assert expected   # every case has solutions
    seeded = film_store.match(query, seeds=seeds)
    assert seeded.variables == selected and not seeded.truncated
    assert {_key(b) for b in seeded.bindings} == expected
    assert len(seeded.bindings) == len(expected)   # distinct
    tried = film_store.try_match(query, seeds=seeds)
    assert tried is None or {_key(b) for b in tried.bindings} == expected


def test_a_seeded_match_keeps_the_limit(film_store: Store) -> None:
    query = PatternQuery((TriplePattern("m.godfather", Var("r"), X),), limit=1)
    result = film_store.match(query, seeds=[{"x": "m.usa"}, {"x": "m.coppola"}])
    assert len(result.bindings) == 1 and result.truncated


def test_no_seeds_no_solutions(film_store: Store) -> None:
    query = PatternQuery((TriplePattern(F, DIRECTED_BY, D),))
    assert film_store.match(query, seeds=[]).bindings == []


@pytest.mark.parametrize("seeds", [[{"q": "m.usa"}], [{"f": "m.godfather"}, {"d": "m.usa"}]])
def test_seeds_must_bind_the_same_variables_of_the_query(
        film_store: Store, seeds: list[Binding]) -> None:
    with pytest.raises(ValueError, match="seeds"):
        film_store.match(PatternQuery((TriplePattern(F, DIRECTED_BY, D),)), seeds=seeds)


def test_try_match_asks_whether_a_passing_solution_exists(film_store: Store) -> None:
    query = PatternQuery((TriplePattern(F, STARRING, P), TriplePattern(P, ACTOR, A)),
                         select=(F,))
    seeds: list[Binding] = [{"a": "m.pacino"}]
    found = film_store.try_match(query, seeds=seeds, exists=lambda b: b["p"] == "m.perf3")
    assert found is not None and found.bindings == [{"f": "m.godfather2"}]
    none = film_store.try_match(query, seeds=seeds, exists=lambda b: b["p"] == "m.perf1")
    assert none is not None and none.bindings == []


def test_the_store_says_how_far_a_bounded_join_reads(film_store: Store) -> None:
    from kgstore.algorithms.expansion import EXPANSION_LIMIT

    assert film_store.expansion_limit == EXPANSION_LIMIT
