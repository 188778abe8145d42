"""Text quality per KG (issue 34): what a reader would trip over, counted over the first
``--limit`` samples (default 1,000) that one ``kgbench generate`` run makes on each KG.

Counted by :func:`extension.verbalize.quality.quality_report`: placeholder words
("something", "Which entity", "the one that"), doubled words, q̃ naming more than two
constants, hub constants, and the grammar gate's matches (LanguageTool's English rules,
:mod:`extension.verbalize.grammar_gate`) by part, category and rule, those of the blocked
categories marked. The tests (``tests/extension/test_text_quality_runs.py``) assert on the
same report.

Runs (seed 0; stores built as ``bench/label_agreement.py`` builds them; the ``--n`` give
1,000 samples or more after issue 34's planner, which refuses more candidates: the demo
run was ``--n 360`` until descriptions could nest only once, 998 samples then):

=================  ==========================================================
demo               the demo KG, ``--domain people.person --n 400``
fb15k237-webqsp    the FB15k-237 slice, WebQSP train + test (one file), ``--no-classes``
fb15k237-domain    the FB15k-237 slice, ``--domain film. --n 360 --no-classes``
wikidata-domain    the Wikidata sample store, ``--domain Q5 --n 1000``
=================  ==========================================================

Baseline in the same run: each generate run's own seconds; beside them the grammar
gate's seconds for the same samples (the ratio is what the gate adds as a ``generate
--grammar-gate`` filter) and its start-up. Appends to ``bench/results/text_quality.jsonl``
and writes ``bench/results/text_quality.md`` (counts only; the texts quote WebQSP).

    python bench/text_quality.py --work /tmp/text-quality
    python bench/text_quality.py --work /tmp/tq --kg demo --limit 200 --no-grammar
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.label_agreement import build_store, kgbench  # noqa: E402
from bench.store_bench import git_commit, machine_info  # noqa: E402
from extension.verbalize.quality import QualityReport, quality_report  # noqa: E402

RESULTS = REPO / "bench" / "results"
SEED = 0
LIMIT = 1000


@dataclass(frozen=True, slots=True)
class QualityRun:
    """One KG's generate run: its store (:func:`bench.label_agreement.build_store`) and
    the options that say what to ask (``{webqsp}``: WebQSP train + test in one file)."""

    store: str
    args: tuple[str, ...]
    external: bool = True


RUNS: dict[str, QualityRun] = {
    "demo": QualityRun("demo", ("--domain", "people.person", "--n", "400"), external=False),
    "fb15k237-webqsp": QualityRun("fb15k237", ("--questions", "{webqsp}", "--no-classes")),
    "fb15k237-domain": QualityRun("fb15k237", ("--domain", "film.", "--n", "360",
                                               "--no-classes")),
    "wikidata-domain": QualityRun("wikidata", ("--domain", "Q5", "--n", "1000")),
}


def external_data() -> Path | None:
    value = os.environ.get("KGBENCH_EXTERNAL_DATA")
    return Path(value) if value else None


def webqsp_questions(work: Path, ext: Path) -> Path:
    """WebQSP's test and train questions in one file (outside the repository: it is
    WebQSP's text), written once."""
    path = work / "inputs" / "WebQSP.test+train.json"
    if not path.exists():
        docs = [json.loads((ext / "webqsp" / f"WebQSP.{s}.json").read_text("utf-8"))
                for s in ("test", "train")]
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".part")
        tmp.write_text(json.dumps({**docs[0], "Questions": [q for d in docs
                                                            for q in d["Questions"]]}), "utf-8")
        tmp.replace(path)
    return path


def generate_run(work: Path, name: str, ext: Path | None) -> tuple[Path, dict[str, Any]]:
    """Build the run's store and generate (a finished run is not redone): the benchmark
    directory and its ``timings.json``."""
    run = RUNS[name]
    store = build_store(work, ext, run.store)
    args = list(run.args)
    if "{webqsp}" in args:
        assert ext is not None, "the WebQSP run needs KGBENCH_EXTERNAL_DATA"
        args[args.index("{webqsp}")] = str(webqsp_questions(work, ext))
    out = work / "runs" / name
    kgbench("generate", "--store", str(store), *args, "--out", str(out), "--seed", str(SEED),
            "--no-report")
    return out, json.loads((out / "timings.json").read_text("utf-8"))


def first_samples(out: Path, limit: int) -> list[dict[str, Any]]:
    """The first ``limit`` samples of a benchmark directory, in file order."""
    docs = []
    with open(out / "samples.jsonl", encoding="utf-8") as lines:
        for line in lines:
            if len(docs) >= limit:
                break
            docs.append(json.loads(line))
    return docs


def measure(work: Path, name: str, *, limit: int = LIMIT, grammar: bool = True,
            ext: Path | None = None) -> tuple[QualityReport, dict[str, Any]]:
    """Generate ``name``'s run and count its first ``limit`` samples' findings (with the
    grammar gate unless ``grammar`` is false): the report and the run's timings."""
    from extension.verbalize.grammar_gate import GrammarGate
    from kgstore import open_store

    out, timings = generate_run(work, name, ext or external_data())
    docs = first_samples(out, limit)
    with open_store(work / "stores" / RUNS[name].store, read_only=True) as store:
        if not grammar:
            return quality_report(docs, kg=name, store=store), timings
        with GrammarGate() as gate:
            return quality_report(docs, kg=name, store=store, gate=gate), timings


def markdown(records: Sequence[dict[str, Any]]) -> list[str]:
    lines = ["# Text quality per KG (issue 34)", "",
             "`python bench/text_quality.py` — counts over the first samples of one "
             "`kgbench generate` run per KG (see the script's docstring for the runs). "
             "`*_samples`: samples with at least one finding.", "",
             "| KG | samples | placeholder | doubled | > 2 constraints | hub | "
             "grammar blocked | any match | gate s | generate s |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in records:
        q, g = r["report"], r["report"]["grammar"] or {}
        lines.append(f"| {q['kg']} | {q['samples']} | {q['placeholder_samples']} | "
                     f"{q['doubled_samples']} | {q['over_constraint_samples']} | "
                     f"{q['hub_samples']} | {g.get('blocked_samples', '–')} | "
                     f"{g.get('samples_with_matches', '–')} | {g.get('seconds', '–')} | "
                     f"{r['generate_seconds']} |")
    lines.append("")
    for r in records:
        g = r["report"]["grammar"]
        if not g:
            continue
        lines += [f"## {r['report']['kg']}: LanguageTool {g['languagetool']} matches outside "
                  "names", "", "| part | category | rule | matches | blocked |",
                  "|---|---|---|---:|---|"]
        for key, n in g["by_rule"].items():
            part, category, rule = key.split("|")
            lines.append(f"| {part} | {category} | {rule} | {n} | "
                         f"{'yes' if key in g['blocked_by_rule'] else ''} |")
        lines += ["", f"On names (not counted): {json.dumps(g['on_names_by_category'])}", ""]
    return lines


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", type=Path, required=True,
                    help="folder outside the repository for the stores and runs")
    ap.add_argument("--kg", action="append", choices=sorted(RUNS),
                    help="a KG's run (repeat); default all four")
    ap.add_argument("--limit", type=int, default=LIMIT, help="samples counted per KG")
    ap.add_argument("--no-grammar", action="store_true", help="leave the grammar gate out")
    args = ap.parse_args(argv)
    if args.work.resolve().is_relative_to(REPO):
        raise SystemExit("text_quality: --work must be outside the repository "
                         "(the runs quote WebQSP)")
    ext = external_data()
    names = args.kg or [n for n in RUNS if ext is not None or not RUNS[n].external]
    records = []
    for name in names:
        started = time.monotonic()
        report, timings = measure(args.work, name, limit=args.limit, grammar=not args.no_grammar,
                                  ext=ext)
        print("\n".join(report.lines()), flush=True)
        gate = report.grammar
        ratio = (round(gate.seconds / timings["seconds"], 2)
                 if gate is not None and timings.get("seconds") else None)
        if ratio is not None:
            print(f"  gate / generate seconds: {ratio} (generate {timings['seconds']:.1f} s)")
        # Examples stay on the screen: they quote WebQSP, which the repository must not.
        counts = {k: v for k, v in report.to_json().items() if k != "examples"}
        records.append({"report": counts, "generate_seconds": timings.get("seconds"),
                        "generate_samples_per_s": timings.get("samples_per_s"),
                        "gate_over_generate": ratio,
                        "wall_seconds": round(time.monotonic() - started, 1)})
    record = {"bench": "text_quality", "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
              "commit": git_commit(), "seed": SEED, "limit": args.limit, "runs": records,
              "machine": machine_info(), "load": os.getloadavg()}
    RESULTS.mkdir(parents=True, exist_ok=True)
    with open(RESULTS / "text_quality.jsonl", "a", encoding="utf-8") as fh:
        fh.write(json.dumps(record, sort_keys=True) + "\n")
    (RESULTS / "text_quality.md").write_text("\n".join(markdown(records)) + "\n", "utf-8")


if __name__ == "__main__":
    main()
