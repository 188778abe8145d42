"""``--domain`` seed questions in CAQA Table 5's complexity mix by default (issue 34,
item 6), another mix on request, and §4.2's draw with ``--complexity-mix shapes``. Real
generation on the demo store; the CLI in a subprocess for the usage errors."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from extension.core.rules import rule_order
from extension.inputs.complexity_mix import (
    CAQA_MIX,
    ComplexityMix,
    parse_complexity_mix,
    seed_counts,
)
from extension.run.generate import GenerateConfig
from extension.run.generate_job import GenerateRequest, run_generate
from tests.kgbench.test_cli import assert_clean_error, run
from tests.shared_builds import copy_tree


def test_parse_mixes() -> None:
    assert parse_complexity_mix("caqa") is CAQA_MIX
    assert parse_complexity_mix(" Shapes ") is None
    mix = parse_complexity_mix("single=1, concatenation=3")
    assert mix == ComplexityMix({"single": 1.0, "concatenation": 3.0})
    assert mix.counts(8) == {"single": 2, "union": 0, "intersection": 0, "concatenation": 6}


@pytest.mark.parametrize("spec, message", [
    ("simple=1", "not COMPLEXITY=WEIGHT"), ("single", "not COMPLEXITY=WEIGHT"),
    ("single=-1", "must be a number >= 0"), ("single=nan", "must be a number >= 0"),
    ("single=x", "must be a number >= 0"), ("single=1,single=2", "given twice"),
    ("single=0", "needs a weight above 0"), ("", "needs a weight above 0"),
])
def test_bad_mixes_say_what_is_wrong(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_complexity_mix(spec)


def test_caqa_counts_follow_table5() -> None:
    assert CAQA_MIX.counts(100) == {"single": 52, "union": 4, "intersection": 10,
                                    "concatenation": 34}
    for n in (0, 1, 7, 33, 1000):
        assert sum(CAQA_MIX.counts(n).values()) == n
    assert seed_counts(100, CAQA_MIX) == {"single": 56, "tree": 10, "path": 34}


def test_a_seed_rule_goes_first_and_none_fits_every_shape() -> None:
    drawn = rule_order("path", random.Random(3))
    assert rule_order("path", random.Random(3), "none") == ["none", *drawn]
    single = rule_order("single", random.Random(3))
    with_union = rule_order("single", random.Random(3), "union")
    assert with_union[0] == "union" and sorted(with_union) == sorted(single)
    assert [r for r in with_union if r != "union"] == [r for r in single if r != "union"]


@pytest.fixture(scope="module")
def demo(shared_demo_store: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(copy_tree(shared_demo_store, tmp_path_factory.mktemp("demo") / "store"))


def _shares(demo: str, out: Path, mix: ComplexityMix | None) -> dict[str, float]:
    request = GenerateRequest(store=demo, out_dir=out, config=GenerateConfig(seed=0),
                              domain="people.person", n=60, complexity_mix=mix)
    inputs, result = run_generate(request)
    rules = Counter(q.rule for q in inputs.items)   # type: ignore[union-attr]
    assert (rules["none"] + rules["union"] == len(inputs.items)) == (mix is not None)
    counts = Counter({c: sum(by_label.get(c, 0) for split in result.stats["by_split"].values()
                             for by_label in split.values())
                      for c in ("single", "union", "intersection", "concatenation")})
    total = sum(counts.values())
    return {c: 100 * n / total for c, n in counts.items()}


def test_domain_runs_follow_caqa_table5_by_default(demo: str, tmp_path: Path) -> None:
    """Table 5: single 52.3%, concatenation 34.3%, intersection 9.6%, union 3.9% (the
    demo's people share no names, so its union share is 0)."""
    shares = _shares(demo, tmp_path / "caqa", CAQA_MIX)
    assert abs(shares["single"] - 52.3) < 10
    assert abs(shares["concatenation"] - 34.3) < 10
    assert abs(shares["intersection"] - 9.6) < 8


def test_another_mix_and_the_old_draw(demo: str, tmp_path: Path) -> None:
    chains = _shares(demo, tmp_path / "chains", ComplexityMix({"concatenation": 1.0}))
    assert chains["concatenation"] > 90
    shapes = _shares(demo, tmp_path / "shapes", None)   # §4.2: trees dominate
    assert shapes["intersection"] > 50 and shapes["single"] < 25


def test_cli_mix_needs_a_domain_and_a_readable_value(tmp_path: Path) -> None:
    questions = tmp_path / "q.jsonl"
    questions.write_text("{}\n")
    proc = run("generate", "--store", tmp_path / "s", "--questions", questions,
               "--complexity-mix", "caqa", "--out", tmp_path / "out")
    assert_clean_error(proc, code=2)
    assert "--complexity-mix applies to --domain runs only" in proc.stderr
    proc = run("generate", "--store", tmp_path / "s", "--domain", "film.",
               "--complexity-mix", "single=lots", "--out", tmp_path / "out")
    assert_clean_error(proc, code=2)
    assert "--complexity-mix: the weight of single must be a number >= 0" in proc.stderr
