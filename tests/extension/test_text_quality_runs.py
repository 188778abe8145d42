"""Issue 34's "done means" over whole generate runs: no placeholder words, no doubled
words, no hub constant above the planner's threshold, no more than two constraints in
q̃, and the grammar gate's counts reported with nothing in the blocked categories
(:mod:`extension.verbalize.quality`, the same report ``bench/text_quality.py`` prints).

Each check failed on the code before issue 34 ("Which entity is the titles of …", "the
one that", "with with", "has the gender Male", three constraints at once).

Quick runs (no grammar gate; the demo KG always, a Wikidata country run with external
data): the demo questions and two ``--domain`` runs. The 1,000-sample runs (slow): one
``kgbench generate`` per KG per session (the runs of ``bench/text_quality.py``: the
demo KG, FB15k-237 + WebQSP, FB15k-237 ``--domain``, Wikidata ``--domain``), shared by
the xdist workers: the first to need a KG generates it under a lock and writes its report,
the others read it. The external KGs skip cleanly without ``KGBENCH_EXTERNAL_DATA``.

Every check passes on every KG but two sample counts, marked ``xfail(strict=False)``
with why (:data:`KNOWN_FAILURES`; an unexpected pass shows as XPASS).
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from extension.verbalize.quality import QualityReport, quality_report
from kgstore import open_store
from tests.bench import load_bench
from tests.extension.test_generate import demo_store  # noqa: F401, F811 (the fixture)
from tests.external import external_path
from tests.grammar import require_gate
from tests.kgbench.test_cli import run

text_quality = load_bench("text_quality")
KGS = tuple(text_quality.RUNS)
SAMPLES = 1000

KNOWN_FAILURES: dict[tuple[str, str], str] = {
    # A data limit, not the generator's: the sample store holds the dump's first 50
    # entities (4 humans), so no --n gives 1,000 questions about people.
    ("samples", "wikidata-domain"): "the Wikidata sample store (the dump's first 50 "
                                    "entities, 4 of them humans) gives 13 samples",
}
"""(check, KG) -> why today's generator fails it (measured with bench/text_quality.py)."""


def generate(store: Path, out: Path, *args: str) -> list[dict[str, Any]]:
    proc = run("generate", "--store", str(store), *args, "--out", str(out), "--seed", "7",
               cwd=out.parent)
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in (out / "samples.jsonl").read_text("utf-8").splitlines()]


def assert_reads_as_english(report: QualityReport) -> None:
    """No placeholder, no doubled word, at most two constants, no hub constant."""
    found = report.to_json()
    assert report.samples > 0
    assert [found[k] for k in ("placeholder_samples", "doubled_samples",
                               "over_constraint_samples", "hub_samples")] == [0, 0, 0, 0], (
        "\n".join(report.lines()))


@pytest.mark.parametrize("args", [
    ("--questions", "kgbench/demo/data/questions.jsonl"),
    ("--domain", "people.person", "--n", "90"),
    ("--domain", "film.film", "--n", "60"),
], ids=["questions", "domain-people", "domain-film"])
def test_demo_runs_read_as_english(demo_store: Path, tmp_path: Path,  # noqa: F811
                                   args: tuple[str, ...]) -> None:
    root = Path(__file__).resolve().parents[2]
    args = tuple(str(root / a) if a.endswith(".jsonl") else a for a in args)
    samples = generate(demo_store, tmp_path / "run", *args)
    with open_store(demo_store) as store:
        assert_reads_as_english(quality_report(samples, kg="demo", store=store))


@pytest.mark.external
def test_wikidata_country_run_reads_as_english(tmp_path: Path) -> None:
    """Countries (Q6256), which the 1,000-sample Wikidata run (humans) does not ask about."""
    wd = external_path("wikidata")
    proc = run("load", "wikidata", str(wd / "DERIVED_humans_Q5.jsonl"),
               str(wd / "wikibase-dump-filter_entities_first50lines.json"),
               "--store", str(tmp_path / "wd"), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    samples = generate(tmp_path / "wd", tmp_path / "run", "--domain", "Q6256", "--n", "80")
    with open_store(tmp_path / "wd") as store:
        assert_reads_as_english(quality_report(samples, kg="wikidata", store=store))



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
        # One lock per store: two KGs share the FB15k-237 store, which must be built once
        # and is written by each run (its type samples); runs on other stores go side by side.
        with open(root / f"{text_quality.RUNS[kg].store}.lock", "w") as lock:
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


@pytest.mark.slow
@pytest.mark.parametrize("kg", kgs("samples"))
def test_a_run_gives_1000_samples(quality: Callable[[str], dict], kg: str) -> None:
    assert quality(kg)["samples"] == SAMPLES


@pytest.mark.slow
@pytest.mark.parametrize("kg", kgs("placeholders"))
def test_no_placeholder_words(quality: Callable[[str], dict], kg: str) -> None:
    r = quality(kg)
    assert r["placeholder_samples"] == 0, (
        f"{r['placeholder_samples']} of {r['samples']} samples: {r['placeholders']}\n  "
        + _examples(r, "placeholder"))


@pytest.mark.slow
@pytest.mark.parametrize("kg", kgs("doubled"))
def test_no_doubled_words(quality: Callable[[str], dict], kg: str) -> None:
    r = quality(kg)
    assert r["doubled_samples"] == 0, f"{r['doubled']}\n  " + _examples(r, "doubled")


@pytest.mark.slow
@pytest.mark.parametrize("kg", kgs("hubs"))
def test_no_hub_constant(quality: Callable[[str], dict], kg: str) -> None:
    r = quality(kg)
    assert r["hub_samples"] == 0, (
        f"{r['hub_samples']} of {r['samples']} samples name a constant holding more than "
        f"{r['hub_share']:.0%} of its relation's facts: {r['hubs']}\n  " + _examples(r, "hub"))


@pytest.mark.slow
@pytest.mark.parametrize("kg", kgs("constraints"))
def test_at_most_two_constraints(quality: Callable[[str], dict], kg: str) -> None:
    r = quality(kg)
    assert r["over_constraint_samples"] == 0, (
        f"constants per q̃: {r['constraints']}\n  " + _examples(r, "constraints"))


@pytest.mark.slow
@pytest.mark.parametrize("kg", kgs("grammar"))
def test_the_grammar_gate_blocks_nothing(quality: Callable[[str], dict], kg: str) -> None:
    g = quality(kg)["grammar"]
    assert g["blocked_samples"] == 0, (
        f"{g['blocked_samples']} samples blocked: {g['blocked_by_rule']}\n  "
        + _examples(quality(kg), "grammar"))


@pytest.mark.slow
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
