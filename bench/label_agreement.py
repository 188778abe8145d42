"""Blind label agreement: does a careful reader give a sample the label kgbench gave it?
And how does its English read (issue 34: 1–5 ratings of q̃, ã and the citation)?

Issue 19 asks for at least 98% agreement per label between the generated label and a
reader who sees only the extended question q̃, the answer statement ã and the citation
text, with the four definitions of CAQA §3.2 (Hu et al., the paper in
``../shared/papers/``). CAQA itself validates its labels only in aggregate (§6.2:
evaluators' micro-F1 on generated vs. human labels correlate at Pearson 0.97); this
script measures agreement per label, per complexity and per KG.

Two steps, so that the reader never sees the generator, the labels or this code:

``draw``
    builds three stores — the bundled demo KG, the FB15k-237 slice (dev + test, named
    with ``entity2text.txt``, no type facts, in Freebase's layout: ``--reverse-properties``)
    and a Wikidata store from the JSON samples (predicates named by the property list) —
    runs ``kgbench generate`` on each (WebQSP questions on FB15k-237 with
    ``--no-classes``; ``--domain`` runs on all three), then draws a stratified sample:
    ``--per-label`` samples of each label, spread round-robin over (KG, complexity)
    cells, **at most one sample per source question** (a reader who saw a question's
    four variants could label them by elimination). It writes, *outside the
    repository* (the texts quote WebQSP), ``WORK/sheet/blind_sheet.md`` for the reader (the only
    file the reader is given: items under opaque shuffled ids, no label, no sample id, no KG)
    and ``WORK/key.json`` with the hidden labels.
``score``
    joins the reader's labels and ratings (``WORK/sheet/blind_labels.tsv``:
    ``B001<TAB>label<TAB>Q<TAB>A<TAB>C`` per line, the 1–5 ratings of the question,
    answer and citation; a sheet of labels alone is still read) with the key and writes
    to ``bench/results/``: ``label_agreement.md`` (protocol, command, agreement per
    label / complexity / KG with Wilson 95% intervals, confusion matrix, form-only
    giveaway check, and the English ratings: mean and share rated <= 2 per part, over
    all readers, per reader, KG and label, against issue 34's bar;
    :mod:`bench.english_ratings`), ``label_agreement_samples.tsv`` (sample ids with
    generated and blind labels and ratings — no texts) and a record appended to
    ``label_agreement.jsonl``.

Run::

    python -m bench.label_agreement draw --work /tmp/agree --seed 0 --per-label 55
    # the reader labels /tmp/agree/sheet/blind_sheet.md into /tmp/agree/sheet/blind_labels.tsv
    python -m bench.label_agreement score --work /tmp/agree --reader "helper, blind"
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import english_ratings
from bench.harness import REPO, git_commit, machine_info

RESULTS = REPO / "bench" / "results"
RATINGS = english_ratings.SCALE
AGREEMENT_BAR = 0.98
"""Issue 34 (and 19): each reader agrees with the generated label on at least this share of
every label's samples; the English bar (:mod:`bench.english_ratings`) is the other half."""
LABELS = ("supportive", "partially_supportive", "contradictory", "irrelevant")
COMPLEXITIES = ("single", "union", "intersection", "concatenation")

DEFINITIONS = """\
Each item has a QUESTION, an ANSWER statement and a CITATION (one or more numbered facts).
Judge only from the text: assume the citation's facts are true, use no outside knowledge
about whether they are true, and label how the CITATION relates to the ANSWER:

- supportive: the citation's facts fully support the answer statement (every fact the
  answer needs to be the answer to the question is stated).
- partially_supportive: the citation backs part of the answer, but at least one fact the
  answer depends on is not among its facts.
- contradictory: the citation's facts lead to another answer than the one given (they
  point to an answer other than the one given).
- irrelevant: nothing in the citation helps to establish the answer statement.
"""




@dataclass(frozen=True)
class Run:
    """One ``kgbench generate`` run the draw pools samples from."""

    kg: str
    name: str
    store: str
    args: tuple[str, ...]


def external() -> Path:
    value = os.environ.get("KGBENCH_EXTERNAL_DATA")
    if not value:
        default = REPO.parent / "shared" / "data" / "external"
        if default.is_dir():
            return default
        raise SystemExit("label_agreement: set KGBENCH_EXTERNAL_DATA to ../shared/data/external "
                         "(the FB15k-237, WebQSP and Wikidata samples)")
    return Path(value)


def kgbench(*args: str) -> None:
    """Run the real CLI, as a user would, and stop with its own message on failure."""
    cmd = [sys.executable, "-m", "kgbench.cli", *args]
    done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"label_agreement: `kgbench {' '.join(args)}` failed "
                         f"({done.returncode}):\n{done.stderr[-2000:]}")


STORES = ("demo", "fb15k237", "wikidata")


def build_store(work: Path, ext: Path | None, name: str) -> Path:
    """``WORK/stores/NAME`` (one of :data:`STORES`), loaded unless it is there: the demo
    KG; the FB15k-237 slice (dev + test, named by ``entity2text.txt``, no type facts); a
    Wikidata store from the JSON samples. ``ext`` (the external data) is needed for the
    last two."""
    from kgbench.demo import DEMO_KG

    store = work / "stores" / name
    if store.exists():
        return store
    if name == "demo":
        kgbench("load", "triples", str(DEMO_KG), "--store", str(store))
        return store
    if ext is None:
        raise SystemExit(f"label_agreement: the {name} store needs KGBENCH_EXTERNAL_DATA")
    fb, wd = ext / "freebase" / "fb15k237", ext / "wikidata"
    if name == "fb15k237":
        # Freebase's layout: mediators for folded relations (the default) and the
        # reverse facts FB15k-237 dropped (issue 34).
        kgbench("load", "triples", str(fb / "dev.tsv"), str(fb / "test.tsv"), "--names",
                str(fb / "entity2text.txt"), "--reverse-properties", "--store", str(store))
    elif name == "wikidata":
        kgbench("load", "wikidata", str(wd / "DERIVED_humans_Q5.jsonl"),
                str(wd / "wikibase-dump-filter_entities_first50lines.json"),
                "--predicate-names", str(wd / "DERIVED_wikidata_properties_en.jsonl"),
                "--store", str(store))
    else:
        raise ValueError(f"unknown store {name!r}; one of {', '.join(STORES)}")
    return store


def build_stores(work: Path, ext: Path) -> None:
    for name in STORES:
        build_store(work, ext, name)


def runs(ext: Path) -> list[Run]:
    from kgbench.demo import DEMO_QUESTIONS

    webqsp = ext / "webqsp"
    return [
        Run("demo", "demo-questions", "demo", ("--questions", str(DEMO_QUESTIONS))),
        Run("demo", "demo-domain-people", "demo", ("--domain", "people.person", "--n", "80")),
        Run("demo", "demo-domain-film", "demo", ("--domain", "film.film", "--n", "60")),
        Run("fb15k237", "webqsp-test", "fb15k237",
            ("--questions", str(webqsp / "WebQSP.test.json"), "--no-classes")),
        Run("fb15k237", "webqsp-train", "fb15k237",
            ("--questions", str(webqsp / "WebQSP.train.json"), "--no-classes")),
        Run("fb15k237", "fb-domain-film", "fb15k237",
            ("--domain", "film.", "--n", "100", "--no-classes")),
        Run("wikidata", "wd-domain-Q5", "wikidata", ("--domain", "Q5", "--n", "60")),
        Run("wikidata", "wd-domain-country", "wikidata", ("--domain", "Q6256", "--n", "80")),
    ]


def generate_all(work: Path, ext: Path, seed: int) -> list[dict[str, Any]]:
    pooled: list[dict[str, Any]] = []
    for run in runs(ext):
        out = work / "runs" / run.name
        kgbench("generate", "--store", str(work / "stores" / run.store), *run.args,
                "--out", str(out), "--seed", str(seed), "--workers", "2")
        with open(out / "samples.jsonl", encoding="utf-8") as fh:
            for line in fh:
                s = json.loads(line)
                pooled.append({
                    "kg": run.kg, "run": run.name, "id": s["id"], "qid": s["source"]["qid"],
                    "label": s["label"], "complexity": s["complexity"],
                    "question": s.get("question_extended") or s["question"],
                    "answer": s["answer"], "citation": s["citation"],
                    "n_citations": len(s.get("citations") or ()),
                })
    return pooled


def stratified_draw(pool: Sequence[dict[str, Any]], per_label: int, seed: int
                    ) -> list[dict[str, Any]]:
    """``per_label`` samples of each label, round-robin over (KG, complexity) cells in a
    seeded order, at most one sample per source question over the whole draw."""
    rng = random.Random(f"agreement:{seed}")
    used: set[tuple[str, str]] = set()
    drawn: list[dict[str, Any]] = []
    # Scarce labels pick their questions first, so that a question's other labels do not
    # use up the only sources of, say, union contradictions.
    counts = Counter(s["label"] for s in pool)
    for label in sorted(LABELS, key=lambda lab: (counts[lab], lab)):
        cells: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
        for s in pool:
            if s["label"] == label:
                cells[(s["kg"], s["complexity"])].append(s)
        for members in cells.values():
            rng.shuffle(members)
        order = sorted(cells)
        rng.shuffle(order)
        taken = 0
        while taken < per_label and any(cells[c] for c in order):
            for c in order:
                while cells[c]:
                    s = cells[c].pop()
                    if (s["run"], s["qid"]) in used:
                        continue
                    used.add((s["run"], s["qid"]))
                    drawn.append(s)
                    taken += 1
                    break
                if taken >= per_label:
                    break
    rng.shuffle(drawn)
    return drawn


def write_sheet(work: Path, drawn: Sequence[dict[str, Any]]) -> None:
    lines = ["# Blind labelling sheet", "", DEFINITIONS, "", RATINGS, "",
             "Write one line per item to blind_labels.tsv: the item id, a TAB, one of "
             + ", ".join(LABELS) + ", then a TAB and the three ratings separated by TABs "
             "(QUESTION, ANSWER, CITATION), optionally a TAB and a short note. Example: "
             "`B001<TAB>supportive<TAB>4<TAB>5<TAB>3<TAB>citation lists ids`.", ""]
    key: dict[str, dict[str, Any]] = {}
    for i, s in enumerate(drawn, 1):
        bid = f"B{i:03d}"
        key[bid] = {k: s[k] for k in ("kg", "run", "id", "label", "complexity", "n_citations")}
        key[bid]["chars"] = len(s["citation"])
        lines += [f"## {bid}", f"QUESTION: {s['question']}", f"ANSWER: {s['answer']}",
                  f"CITATION: {s['citation']}", ""]
    (work / "sheet").mkdir(exist_ok=True)
    (work / "sheet" / "blind_sheet.md").write_text("\n".join(lines), encoding="utf-8")
    (work / "key.json").write_text(json.dumps(key, indent=1, sort_keys=True), encoding="utf-8")


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion k/n (Wilson 1927)."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (max(0.0, centre - half), min(1.0, centre + half))


def read_blind(path: Path, key: dict[str, Any]
               ) -> tuple[dict[str, str], dict[str, english_ratings.Ratings]]:
    """A reader's labels and, when the file has them, the 1–5 ratings of each item's
    question, answer and citation (every item rated, or none: an older sheet)."""
    blind: dict[str, str] = {}
    ratings: dict[str, english_ratings.Ratings] = {}
    for no, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not raw.strip() or raw.startswith("#"):
            continue
        parts = raw.split("\t")
        if len(parts) < 2 or parts[0].strip() not in key or parts[1].strip() not in LABELS:
            raise SystemExit(f"{path}:{no}: expected `B001<TAB>label<TAB>Q<TAB>A<TAB>C` with a "
                             f"label among {', '.join(LABELS)}; got {raw[:80]!r}")
        try:
            rated = english_ratings.parse_ratings(parts[2:])
        except ValueError as exc:
            raise SystemExit(f"{path}:{no}: {exc}") from None
        blind[parts[0].strip()] = parts[1].strip()
        if rated is not None:
            ratings[parts[0].strip()] = rated
    missing = sorted(set(key) - set(blind))
    if missing:
        raise SystemExit(f"{path}: {len(missing)} items unlabelled (first {missing[0]}); "
                         "label every item of the sheet")
    unrated = sorted(set(blind) - set(ratings))
    if ratings and unrated:
        raise SystemExit(f"{path}: {len(unrated)} items without ratings (first {unrated[0]}); "
                         "rate every item's question, answer and citation 1–5")
    return blind, ratings


def agreement_rows(rows: Sequence[dict[str, Any]], field: str, values: Sequence[str]
                   ) -> list[dict[str, Any]]:
    out = []
    for v in values:
        group = [r for r in rows if r[field] == v]
        k = sum(r["label"] == r["blind"] for r in group)
        lo, hi = wilson(k, len(group))
        out.append({field: v, "n": len(group), "agree": k,
                    "rate": round(k / len(group), 4) if group else None,
                    "wilson95": [round(lo, 4), round(hi, 4)]})
    return out


def form_only_accuracy(rows: Sequence[dict[str, Any]]) -> float:
    """Leave-one-out accuracy of guessing the label from the text's form alone (number
    of citations, citation length quartile): near 1/4 means the form gives nothing away."""
    lengths = sorted(r["chars"] for r in rows)
    cuts = [lengths[len(lengths) * q // 4] for q in (1, 2, 3)]

    def cell(r: dict[str, Any]) -> tuple[int, int]:
        return (min(r["n_citations"], 4), sum(r["chars"] >= c for c in cuts))

    by_cell: dict[tuple[int, int], Counter[str]] = defaultdict(Counter)
    for r in rows:
        by_cell[cell(r)][r["label"]] += 1
    right = 0
    for r in rows:
        c = by_cell[cell(r)].copy()
        c[r["label"]] -= 1
        guess = max(sorted(LABELS), key=lambda lab: c[lab])
        right += guess == r["label"]
    return right / len(rows)


def table(rows: Sequence[dict[str, Any]], field: str) -> list[str]:
    lines = [f"| {field} | n | agree | rate | Wilson 95% |", "|---|---:|---:|---:|---|"]
    for r in rows:
        if r["n"]:
            lines.append(f"| {r[field]} | {r['n']} | {r['agree']} | {100 * r['rate']:.1f}% | "
                         f"{100 * r['wilson95'][0]:.1f}–{100 * r['wilson95'][1]:.1f}% |")
    return lines


def cohen_kappa(a: Sequence[str], b: Sequence[str]) -> float:
    """Cohen's kappa of two readers' labels of the same items (Cohen 1960)."""
    n = len(a)
    observed = sum(x == y for x, y in zip(a, b, strict=True)) / n
    ca, cb = Counter(a), Counter(b)
    expected = sum(ca[lab] * cb[lab] for lab in LABELS) / (n * n)
    return 1.0 if expected == 1 else (observed - expected) / (1 - expected)


def reader_result(rows: Sequence[dict[str, Any]], kgs: Sequence[str]) -> dict[str, Any]:
    """One reader's agreement with the generated labels: per label, complexity and KG
    (Wilson 95%), overall, and the confusion matrix."""
    k = sum(r["label"] == r["blind"] for r in rows)
    lo, hi = wilson(k, len(rows))
    return {
        "n": len(rows), "agree": k, "rate": round(k / len(rows), 4),
        "wilson95": [round(lo, 4), round(hi, 4)],
        "by_label": agreement_rows(rows, "label", LABELS),
        "by_complexity": agreement_rows(rows, "complexity", COMPLEXITIES),
        "by_kg": agreement_rows(rows, "kg", kgs),
        "confusion": {g: {b: sum(1 for r in rows if r["label"] == g and r["blind"] == b)
                          for b in LABELS} for g in LABELS},
    }


def reader_lines(name: str, result: dict[str, Any]) -> list[str]:
    confusion = result["confusion"]
    return [
        f"### Reader: {name}", "",
        f"Overall: {result['agree']}/{result['n']} = {100 * result['rate']:.1f}% "
        f"(Wilson 95% {100 * result['wilson95'][0]:.1f}–{100 * result['wilson95'][1]:.1f}%).",
        "", *table(result["by_label"], "label"), "",
        *table(result["by_complexity"], "complexity"), "", *table(result["by_kg"], "kg"), "",
        "Confusion (rows generated, columns blind):", "",
        "| generated \\ blind | " + " | ".join(LABELS) + " |",
        "|---|" + "---:|" * len(LABELS),
        *[f"| {g} | " + " | ".join(str(confusion[g][b]) for b in LABELS) + " |"
          for g in LABELS], "",
    ]


def score(work: Path, readers: Sequence[tuple[str, Path]]) -> dict[str, Any]:
    """Join each reader's labels with the key; the first reader is the primary one."""
    key = json.loads((work / "key.json").read_text(encoding="utf-8"))
    meta = json.loads((work / "draw.json").read_text(encoding="utf-8"))
    read = [(name, read_blind(path, key)) for name, path in readers]
    blinds = [(name, labels) for name, (labels, _) in read]
    rated = {name: r for name, (_, r) in read if r}   # reader -> item -> its three ratings
    ratings = english_ratings.ratings_result(
        {name: [{**key[b], "ratings": r[b]} for b in sorted(key)] for name, r in rated.items()}
    ) if rated else None
    kgs = sorted({v["kg"] for v in key.values()})
    results = {}
    for name, blind in blinds:
        rows = [{**key[b], "bid": b, "blind": blind[b]} for b in sorted(key)]
        results[name] = reader_result(rows, kgs)
    primary_rows = [{**key[b], "bid": b, "blind": blinds[0][1][b]} for b in sorted(key)]
    form = form_only_accuracy(primary_rows)
    between: dict[str, Any] | None = None
    if len(blinds) > 1:
        a, b = (blinds[0][1][i] for i in sorted(key)), (blinds[1][1][i] for i in sorted(key))
        la, lb = list(a), list(b)
        same = sum(x == y for x, y in zip(la, lb, strict=True))
        between = {"readers": [blinds[0][0], blinds[1][0]], "agree": same, "n": len(la),
                   "rate": round(same / len(la), 4), "cohen_kappa": round(cohen_kappa(la, lb), 4)}
    shares, share_lines = share_tables(meta["pool_cells"])
    record = {
        "bench": "label_agreement", "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "commit": meta.get("commit"), "seed": meta["seed"], "per_label": meta["per_label"],
        "readers": results, "between_readers": between,
        "form_only_accuracy": round(form, 4), "pool": meta["pool"],
        "caqa_table5_shares": shares,
        # each reader's summary (as h/nl-core's first version wrote it), then all of it
        "ratings": ratings["by_reader"] if ratings else {}, "english_ratings": ratings,
        "machine": machine_info(), "load": os.getloadavg(),
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    with open(RESULTS / "label_agreement.jsonl", "a", encoding="utf-8") as fh:
        fh.write(json.dumps(record, sort_keys=True) + "\n")
    with open(RESULTS / "label_agreement_samples.tsv", "w", encoding="utf-8") as fh:
        fh.write("item\tkg\trun\tsample_id\tcomplexity\tgenerated\t"
                 + "\t".join(f"blind:{name}" for name, _ in blinds)
                 + "".join(f"\trating:{name}" for name in rated) + "\n")
        for b in sorted(key):
            k = key[b]
            fh.write(f"{b}\t{k['kg']}\t{k['run']}\t{k['id']}\t{k['complexity']}\t{k['label']}\t"
                     + "\t".join(blind[b] for _, blind in blinds)
                     + "".join("\t" + "/".join(map(str, r[b])) for r in rated.values())
                     + "\n")
    md = [
        "# Blind label agreement (issue 19) and English ratings (issue 34)", "",
        f"Commit `{meta.get('commit')}`, seed {meta['seed']}, "
        f"readers: {', '.join(name for name, _ in blinds)}, {time.strftime('%Y-%m-%d')}.", "",
        "## Protocol", "",
        "1. `python -m bench.label_agreement draw --work WORK --seed "
        f"{meta['seed']} --per-label {meta['per_label']}` builds three stores (demo KG; "
        "FB15k-237 dev+test named by entity2text.txt, no type facts; Wikidata from "
        "DERIVED_humans_Q5.jsonl + the dump's first 50 lines), runs `kgbench generate` "
        "(commands below) and draws a stratified sample: the same number of samples per "
        "label, spread round-robin over (KG, complexity) cells, at most one sample per "
        "source question.",
        "2. Readers who have not seen the code (helpers with a fresh context, told to open "
        "nothing but the sheet) label `WORK/sheet/blind_sheet.md` independently: only q̃, "
        "the answer statement and the citation, with CAQA §3.2's four definitions (below), "
        "in a shuffled order with opaque item ids; they are told the labels need not be "
        "balanced, rate the English of the question, the answer and the citation from 1 "
        "to 5 (scale below) and write a note per item.",
        "3. `python -m bench.label_agreement score --work WORK --labels A.tsv --reader A "
        "[--labels B.tsv --reader B]` joins the labels with the hidden key. Agreement of a "
        "label = share of the samples generated with that label that the reader gave the "
        "same label; intervals are Wilson 95%.", "",
        "Definitions given to the readers:", "", "```", DEFINITIONS.strip(), "```", "",
        "Generate commands (the texts are not kept here: they quote WebQSP):", "",
        *[f"- `{c}`" for c in meta["commands"]], "",
        f"Samples drawn per KG and label: {json.dumps(meta.get('drawn', {}))}", "",
        f"Pool (every sample the runs made): {json.dumps(meta['pool'])}", "",
        "## Agreement", "",
    ]
    for name, result in results.items():
        md += reader_lines(name, result)
    if between is not None:
        md += [f"Between the two readers: {between['agree']}/{between['n']} = "
               f"{100 * between['rate']:.1f}%, Cohen's kappa {between['cohen_kappa']:.3f}.", ""]
    if ratings is not None:
        md += english_ratings.markdown(ratings)
    md += ["## Every run so far", "",
           "| when | commit | seed | reader | n | " + " | ".join(LABELS) + " |",
           "|---|---|---:|---|---:|" + "---:|" * len(LABELS)]
    for past in history():
        for name, result in past["readers"].items():
            rates = {r["label"]: r for r in result["by_label"]}
            md.append(f"| {past['when'][:16]} | `{(past.get('commit') or '?')[:10]}` | "
                      f"{past['seed']} | {name} | {result['n']} | "
                      + " | ".join(f"{rates[lab]['agree']}/{rates[lab]['n']}" for lab in LABELS)
                      + " |")
    md += [
        "", "## Label and complexity shares beside CAQA Table 5", "",
        "Every sample the generate commands above made (the pool the draw came from):", "",
        *share_lines,
        "## Template giveaways", "",
        f"Guessing the label from the form alone (number of citations × citation length "
        f"quartile, leave-one-out): {100 * form:.1f}% (chance 25%).", "",
        "| label | mean citations | mean citation chars |", "|---|---:|---:|",
        *[f"| {lab} | {_mean([r['n_citations'] for r in primary_rows if r['label'] == lab]):.2f} | "
          f"{_mean([r['chars'] for r in primary_rows if r['label'] == lab]):.0f} |"
          for lab in LABELS],
        "",
    ]
    (RESULTS / "label_agreement.md").write_text("\n".join(md), encoding="utf-8")
    return record


def share_tables(pool_cells: dict[str, dict[str, int]]) -> tuple[dict[str, Any], list[str]]:
    """Each KG's and the whole pool's label and complexity shares beside CAQA Table 5."""
    from extension.outputs.caqa_table5 import compare_with_caqa

    groups: dict[str, dict[tuple[str, str], int]] = {}
    for kg, cells in sorted(pool_cells.items()):
        groups[kg] = {(k.split("|")[0], k.split("|")[1]): n for k, n in cells.items()}
    everything: Counter[tuple[str, str]] = Counter()
    for counts in groups.values():
        everything.update(counts)
    groups["all KGs"] = dict(everything)
    docs: dict[str, Any] = {}
    lines: list[str] = []
    for name, counts in groups.items():
        comparison = compare_with_caqa(counts)
        docs[name] = comparison.to_json()
        lines += [f"### {name}", "", "```", *comparison.lines(), "```", ""]
    return docs, lines


def history() -> list[dict[str, Any]]:
    """Every scored run in ``bench/results/label_agreement.jsonl``, oldest first."""
    path = RESULTS / "label_agreement.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def _mean(xs: Sequence[float]) -> float:
    return sum(xs) / len(xs) if xs else 0.0


def draw(work: Path, seed: int, per_label: int) -> dict[str, Any]:
    ext = external()
    work.mkdir(parents=True, exist_ok=True)
    build_stores(work, ext)
    pool = generate_all(work, ext, seed)
    drawn = stratified_draw(pool, per_label, seed)
    write_sheet(work, drawn)
    pool_counts: dict[str, dict[str, int]] = defaultdict(dict)
    for (kg, label), n in sorted(Counter((s["kg"], s["label"]) for s in pool).items()):
        pool_counts[kg][label] = n
    drawn_counts = Counter((s["kg"], s["label"]) for s in drawn)
    cells: dict[str, dict[str, int]] = defaultdict(dict)
    for (kg, label, complexity), n in sorted(
            Counter((s["kg"], s["label"], s["complexity"]) for s in pool).items()):
        cells[kg][f"{label}|{complexity}"] = n
    meta = {
        "seed": seed, "per_label": per_label, "commit": git_commit(),
        "pool": pool_counts, "pool_cells": cells,
        "drawn": {f"{kg}/{lab}": n for (kg, lab), n in sorted(drawn_counts.items())},
        "commands": [f"kgbench generate --store {r.store} "
                     + " ".join(a.replace(str(ext), "$KGBENCH_EXTERNAL_DATA")
                                .replace(str(REPO) + "/", "") for a in r.args)
                     + f" --seed {seed}" for r in runs(ext)],
    }
    (work / "draw.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
    return meta


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="step", required=True)
    d = sub.add_parser("draw", help="build the stores, generate, write the blind sheet")
    d.add_argument("--work", type=Path, required=True, help="folder outside the repository")
    d.add_argument("--seed", type=int, default=0)
    d.add_argument("--per-label", type=int, default=55)
    s = sub.add_parser("score", help="join the blind labels with the key, write results")
    s.add_argument("--work", type=Path, required=True)
    s.add_argument("--labels", type=Path, action="append",
                   help="a reader's labels (repeat for a second reader); "
                        "default WORK/sheet/blind_labels.tsv")
    s.add_argument("--reader", action="append",
                   help="the reader's name, one per --labels, in the same order")
    args = ap.parse_args(argv)
    if args.work.resolve().is_relative_to(REPO):
        raise SystemExit("label_agreement: --work must be outside the repository "
                         "(the sheet quotes WebQSP)")
    if args.step == "draw":
        meta = draw(args.work, args.seed, args.per_label)
        print(json.dumps({"drawn": meta["drawn"], "pool": meta["pool"]}, indent=1))
        print(f"sheet: {args.work / 'sheet' / 'blind_sheet.md'}")
    else:
        files = args.labels or [args.work / "sheet" / "blind_labels.tsv"]
        names = args.reader or []
        if len(names) > len(files):
            raise SystemExit("label_agreement: give one --labels file per --reader")
        names += [f"reader {i + 1}" for i in range(len(names), len(files))]
        rec = score(args.work, list(zip(names, files, strict=True)))
        for name, result in rec["readers"].items():
            print(name)
            for r in result["by_label"]:
                print(f"  {r['label']:<22} {r['agree']}/{r['n']}  {r['rate']}  {r['wilson95']}")
            print(f"  overall {result['agree']}/{result['n']} = {result['rate']}")
        if rec["between_readers"]:
            print(f"between readers: {rec['between_readers']}")
        if rec["english_ratings"]:
            r = rec["english_ratings"]["all_readers"]
            print("English ratings (all readers): " + ", ".join(
                f"{p} mean {r[p]['mean']} (≤2: {100 * r[p]['low_share']:.1f}%)"
                for p in english_ratings.PARTS)
                + f"; English bar met: {rec['english_ratings']['meets_issue34_bar']}")
        lowest = min((r["rate"] for result in rec["readers"].values()
                      for r in result["by_label"] if r["n"]), default=0.0)
        print(f"every reader ≥ {AGREEMENT_BAR:.0%} on every label: {lowest >= AGREEMENT_BAR} "
              f"(lowest {lowest:.1%})")
        print(f"form-only {rec['form_only_accuracy']}")

if __name__ == "__main__":
    main()
