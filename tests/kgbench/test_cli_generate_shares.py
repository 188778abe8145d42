"""``kgbench generate`` prints the label and complexity shares beside CAQA Table 5
under its Table-5 counts, and records them and the failures by kind of reason in
``stats.json`` (real CLI in a subprocess, real demo store)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from extension.core.labels import COMPLEXITIES, LABELS
from extension.outputs.caqa_table5 import CAQA_TABLE5_SAMPLES, CAQA_TABLE5_TOTALS
from extension.outputs.failure_kinds import failure_kind
from kgbench.cli.render import COMPLEXITY_TITLES, LABEL_TITLES
from tests.kgbench.test_cli import run
from tests.kgbench.test_cli_generate import QUESTIONS, samples


def test_generate_prints_and_records_the_shares_beside_caqa(demo_store: Path,
                                                           tmp_path: Path) -> None:
    out = tmp_path / "bench"
    proc = run("generate", "--store", demo_store, "--out", out, "--questions", QUESTIONS,
               "--seed", "3")
    assert proc.returncode == 0, proc.stderr
    made = samples(out)
    lines = [" ".join(line.split()) for line in proc.stdout.splitlines()]
    table5_at = next(i for i, line in enumerate(lines) if "Table 5" in line)
    stats = json.loads((out / "stats.json").read_text("utf-8"))
    for group, names, titles, of in (("label", LABELS, LABEL_TITLES, lambda s: s.label),
                                     ("complexity", COMPLEXITIES, COMPLEXITY_TITLES,
                                      lambda s: s.complexity)):
        counts = Counter(of(s) for s in made)
        for name in names:
            ours = 100 * counts[name] / len(made)
            caqa = 100 * CAQA_TABLE5_TOTALS[group][name] / CAQA_TABLE5_SAMPLES
            row = f"{group} {titles[name]} {ours:.1f}% {caqa:.1f}% {ours - caqa:+.1f}"
            at = next(i for i, line in enumerate(lines) if line.startswith(row))
            assert at > table5_at
            assert ("off by > 5" in lines[at]) == (group == "label" and abs(ours - caqa) > 5)
            recorded = stats["caqa_table5"][group][name]
            assert recorded["count"] == counts[name]
            assert recorded["share_pct"] == round(ours, 2)
            assert recorded["diff_points"] == round(ours - caqa, 2)
    failures = [json.loads(x) for x in (out / "failures.jsonl").read_text("utf-8").splitlines()]
    assert failures
    expected = Counter((f["stage"], failure_kind(f["reason"])) for f in failures)
    assert {(k["stage"], k["kind"]): k["count"] for k in stats["failures_by_kind"]} == expected
    report = (out / "report.html").read_text("utf-8")
    assert 'class="caqa-shares"' in report and 'class="failure-kinds"' in report
