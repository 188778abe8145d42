"""A question's reads on Neo4j take at most three read transactions (issue 35, item 3),
and its samples are the embedded store's, byte for byte.

The transactions are counted where the driver begins them (the public ``neo4j.Session``
methods that start one: ``begin_transaction``, ``execute_read`` / ``execute_write`` and an
auto-commit ``run``), on a real server: whatever the store does inside, every
transaction it asks the server for is counted. Each read in a transaction of its own
(the store before this issue) took 8 to 19 per demo question; `kgbench generate` without
its own transaction around a question and its text, up to 8.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import neo4j
import pytest

from extension.core.grounding import Grounder
from extension.core.samples import structured_samples
from extension.inputs.questions import ParsedQuestion, parse_question
from extension.run.generate import GenerateConfig, QuestionGenerator
from kgbench.demo.tour import DEMO_QUESTIONS, build_demo_store
from kgstore import Store, open_store
from loaders.kgqa import read_kgqa_jsonl
from tests import neo4j_server

pytestmark = [neo4j_server.requires_neo4j, pytest.mark.neo4j]

MOST_TRANSACTIONS = 3


def _count_driver_transactions(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A one-item list holding the transactions every session of the process begins
    from now on."""
    begun = [0]
    for name in ("begin_transaction", "execute_read", "execute_write", "run"):
        original: Callable[..., Any] = getattr(neo4j.Session, name)

        def counted(self: neo4j.Session, *args: Any, _original: Callable[..., Any] = original,
                    **kwargs: Any) -> Any:
            begun[0] += 1
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(neo4j.Session, name, counted)
    return begun


def _questions(store: Store) -> list[ParsedQuestion]:
    cvt_types = store.cvt_types() or None
    return [parse_question(q, cvt_types=cvt_types)
            for q in read_kgqa_jsonl(DEMO_QUESTIONS, strict=True)]


def _samples(store: Store, question: ParsedQuestion) -> str:
    made, failed = structured_samples(store, Grounder(store, classes=False), question, seed=3)
    return "".join(r.model_dump_json() + "\n" for r in (*made, *failed))


@pytest.fixture(scope="module")
def demo_in_neo4j(shared_demo_store: Path, tmp_path_factory: pytest.TempPathFactory
                  ) -> Iterator[str]:
    """The demo KG loaded into the Neo4j test database (its URI); the embedded one is
    ``shared_demo_store``."""
    assert neo4j_server.URI is not None
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KGBENCH_NEO4J_WORK", str(tmp_path_factory.mktemp("neo4j-work")))
        neo4j_server.wipe()
        build_demo_store(neo4j_server.URI)
    yield neo4j_server.URI


def test_each_demo_question_reads_neo4j_in_at_most_three_transactions(
        shared_demo_store: Path, demo_in_neo4j: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with open_store(str(shared_demo_store), read_only=True) as embedded, \
            open_store(demo_in_neo4j, read_only=True) as neo:
        questions = _questions(embedded)
        assert len(questions) >= 10
        expected = [_samples(embedded, q) for q in questions]
        begun = _count_driver_transactions(monkeypatch)
        per_question = []
        for question, want in zip(questions, expected, strict=True):
            before = begun[0]
            assert _samples(neo, question) == want, question.id
            per_question.append(begun[0] - before)
    assert sum('"label"' in s for s in expected) >= 10   # questions that made samples
    assert max(per_question) <= MOST_TRANSACTIONS, per_question


def test_generate_reads_a_question_and_its_text_in_at_most_three_transactions(
        shared_demo_store: Path, demo_in_neo4j: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``kgbench generate``'s per-question work (samples, then their text, whose
    verbalizer reads the store again) on Neo4j."""
    config = GenerateConfig(seed=3)
    with open_store(str(shared_demo_store), read_only=True) as embedded, \
            open_store(demo_in_neo4j, read_only=True) as neo:
        questions = _questions(embedded)
        on_embedded = QuestionGenerator(embedded, config)
        on_neo4j = QuestionGenerator(neo, config)
        begun = _count_driver_transactions(monkeypatch)
        per_question = []
        for question in questions:
            want = on_embedded.run_chunk(0, [question])
            before = begun[0]
            got = on_neo4j.run_chunk(0, [question])
            per_question.append(begun[0] - before)
            assert (got.samples, got.failures) == (want.samples, want.failures), question.id
            assert got.stats.samples == want.stats.samples
    assert max(per_question) <= MOST_TRANSACTIONS, per_question
