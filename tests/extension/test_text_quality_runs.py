"""Issue 34's "done means" over 1,000 generated samples from each KG: no placeholder
words, no doubled words, no hub constant above the planner's threshold, no more than two
constraints in q̃, and the grammar gate's counts reported with nothing in the blocked
categories (:mod:`extension.verbalize.quality`, the same report ``bench/text_quality.py``
prints).

One ``kgbench generate`` per KG per session (the runs of ``bench/text_quality.py``: the
demo KG, FB15k-237 + WebQSP, FB15k-237 ``--domain``, Wikidata ``--domain``), shared by
the xdist workers: the first to need a KG generates it under a lock and writes its report,
the others read it. The external KGs skip cleanly without ``KGBENCH_EXTERNAL_DATA``.

Today's generator fails many of these: the checks that fail on it are marked
``xfail(strict=False)`` with the part of issue 34 that fixes them; remove a mark when
that work lands (an unexpected pass shows as XPASS).
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.bench import load_bench
from tests.external import external_path
from tests.grammar import require_gate

pytestmark = pytest.mark.slow

text_quality = load_bench("text_quality")
KGS = tuple(text_quality.RUNS)
SAMPLES = 1000

PLANNER = "issue 34 item 2 (planner, h/nl-core)"
TEXT = "issue 34 items 1, 4 (lexicon and realised q̃/ã, h/nl-core)"
UNFOLD = "issue 34 item 3 (folded relations unfolded, h/nl-data)"
KNOWN_FAILURES: dict[tuple[str, str], str] = {
    ("samples", "fb15k237-webqsp"): f"{UNFOLD}: 495 samples from WebQSP train + test today",
    ("samples", "wikidata-domain"): "issue 34: the Wikidata sample store (50 entities of the "
                                    "dump's first lines) gives 13 samples",
    **{("placeholders", kg): f"{TEXT}: 'the one that', 'Which entity'"
       for kg in ("demo", "fb15k237-webqsp", "fb15k237-domain")},
    **{("hubs", kg): f"{PLANNER}: hub constants (Male, English Language, Drama)"
       for kg in ("demo", "fb15k237-webqsp", "fb15k237-domain")},
    **{("constraints", kg): f"{PLANNER}: three constants in q̃"
       for kg in ("demo", "fb15k237-domain")},
    # Still failing with h/nl-core's text (main at e2959fc + this branch): "a citizen of
    # United States" (no "the" before such country names), "netflix", "the genre the
    # genre", "has a marriage with the from 2005" — 10-17% of the samples blocked.
    **{("grammar", kg): f"{TEXT}: 'citizen of United States', 'whose films is', "
                        "'olympic', lower-case WebQSP text in q̃"
       for kg in ("demo", "fb15k237-webqsp", "fb15k237-domain")},
}
"""(check, KG) -> why today's generator fails it (measured with bench/text_quality.py)."""


def kgs(check: str) -> list[Any]:
    """The KGs as parameters, each known failure of ``check`` marked xfail."""
    return [pytest.param(kg, marks=pytest.mark.xfail(strict=False,
                                                     reason=KNOWN_FAILURES[(check, kg)]))
            if (check, kg) in KNOWN_FAILURES else kg for kg in KGS]


def _shared_root(factory: pytest.TempPathFactory) -> Path:
    """A folder every xdist worker of this session sees (the workers' base temp folders
    are siblings under one root)."""
    base = factory.getbasetemp()
    return (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "text-quality"


@pytest.fixture(scope="session")
def quality(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[str], dict]]:
    """``quality(kg)``: the run's quality report (JSON) over its first 1,000 samples, with
    the grammar gate; generated once per session across workers."""
    root = _shared_root(tmp_path_factory)
    root.mkdir(parents=True, exist_ok=True)
    seen: dict[str, dict] = {}

    def report(kg: str) -> dict:
        if kg in seen:
            return seen[kg]
        ext = external_path() if text_quality.RUNS[kg].external else None
        require_gate()
        path = root / f"{kg}.report.json"
        # One lock for all runs: two KGs share the FB15k-237 store, which must be built once.
        with open(root / "runs.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not path.exists():
                found, _ = text_quality.measure(root, kg, limit=SAMPLES, ext=ext)
                path.write_text(json.dumps(found.to_json()), "utf-8")
        seen[kg] = json.loads(path.read_text("utf-8"))
        return seen[kg]

    yield report


def _examples(report: dict, prefix: str) -> str:
    lines = [f"{kind}: {text}" for kind, texts in report["examples"].items()
             if kind.startswith(prefix) for text in texts]
    return "\n  ".join(lines[:6])


@pytest.mark.parametrize("kg", kgs("samples"))
def test_a_run_gives_1000_samples(quality: Callable[[str], dict], kg: str) -> None:
    assert quality(kg)["samples"] == SAMPLES


@pytest.mark.parametrize("kg", kgs("placeholders"))
def test_no_placeholder_words(quality: Callable[[str], dict], kg: str) -> None:
    r = quality(kg)
    assert r["placeholder_samples"] == 0, (
        f"{r['placeholder_samples']} of {r['samples']} samples: {r['placeholders']}\n  "
        + _examples(r, "placeholder"))


@pytest.mark.parametrize("kg", kgs("doubled"))
def test_no_doubled_words(quality: Callable[[str], dict], kg: str) -> None:
    r = quality(kg)
    assert r["doubled_samples"] == 0, f"{r['doubled']}\n  " + _examples(r, "doubled")


@pytest.mark.parametrize("kg", kgs("hubs"))
def test_no_hub_constant(quality: Callable[[str], dict], kg: str) -> None:
    r = quality(kg)
    assert r["hub_samples"] == 0, (
        f"{r['hub_samples']} of {r['samples']} samples name a constant holding more than "
        f"{r['hub_share']:.0%} of its relation's facts: {r['hubs']}\n  " + _examples(r, "hub"))


@pytest.mark.parametrize("kg", kgs("constraints"))
def test_at_most_two_constraints(quality: Callable[[str], dict], kg: str) -> None:
    r = quality(kg)
    assert r["over_constraint_samples"] == 0, (
        f"constants per q̃: {r['constraints']}\n  " + _examples(r, "constraints"))


@pytest.mark.parametrize("kg", kgs("grammar"))
def test_the_grammar_gate_blocks_nothing(quality: Callable[[str], dict], kg: str) -> None:
    g = quality(kg)["grammar"]
    assert g["blocked_samples"] == 0, (
        f"{g['blocked_samples']} samples blocked: {g['blocked_by_rule']}\n  "
        + _examples(quality(kg), "grammar"))


@pytest.mark.parametrize("kg", KGS)
def test_the_grammar_gates_counts_are_reported(quality: Callable[[str], dict], kg: str,
                                               record_property: Callable[[str, Any], None]
                                               ) -> None:
    r = quality(kg)
    g = r["grammar"]
    record_property("grammar_by_rule", g["by_rule"])
    assert g["languagetool"] == "6.8"
    assert g["texts"] >= 2 * r["samples"] and 0 < g["unique_texts"] <= g["texts"]
    assert set(g["blocked_by_rule"]) <= set(g["by_rule"])
    assert all(g["blocked_by_rule"][k] == g["by_rule"][k] for k in g["blocked_by_rule"])
    assert g["blocked_samples"] <= g["samples_with_matches"] <= r["samples"]
