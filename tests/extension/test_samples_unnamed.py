"""A question whose answer has no name in the store makes no samples (blind round 36:
an answer that listed "_:unfolded_…" ids was rated 1): the failure says why, and every
label of the question goes together (no supportive sample left without its partial)."""

from __future__ import annotations

from pathlib import Path

from extension.core.grounding import Grounder
from extension.core.query_graph import build_query_graph
from extension.core.samples import structured_samples
from kgstore import Entity, Fact, open_store
from tests.extension.test_extend import parsed

DIRECTED = "film.film.directed_by"


def test_an_answer_without_a_name_fails_the_question(tmp_path: Path) -> None:
    entities = [Entity("m.jaws", "Jaws"), Entity("m.noname", None),
                Entity("m.duel", "Duel"), Entity("m.ss", "Steven Spielberg")]
    facts = [Fact("m.jaws", DIRECTED, "m.noname"), Fact("m.duel", DIRECTED, "m.ss")]
    with open_store(tmp_path / "store", create=True) as store:
        store.ingest(entities, facts)
        for film, expect_samples in (("m.jaws", False), ("m.duel", True)):
            graph = build_query_graph([(film, DIRECTED, "?x")], answer="x")
            question = parsed(f"q-{film}", graph, store)
            samples, failures = structured_samples(store, Grounder(store), question, seed=0)
            if expect_samples:
                assert not any("unnamed_answer" in f.reason for f in failures)
            else:
                assert samples == []
                assert any(f.reason.startswith("unnamed_answer") for f in failures), failures
