"""The HTML report of a generated benchmark (``DIR/report.html`` of ``kgbench generate``).

One self-contained file — figures are inline SVG drawn by matplotlib (Agg canvas,
text kept as text), no scripts, no external assets — with:

* the run's summary from ``stats.json`` (questions, samples, seed, verbalizer, speed);
* the label × complexity table of CAQA (Hu et al. 2024, Table 5), one block per split
  and the total, counted from ``samples.jsonl`` itself; a label without samples is
  named in red above it and its rows are red;
* each label's and complexity's share of all samples beside CAQA Table 5's, a label
  more than 5 points away in red (:mod:`extension.outputs.caqa_table5`);
* the failures grouped by stage and kind of reason, with what the kind means and one
  example each (``stats['failures_by_kind']``, :mod:`extension.outputs.failure_kinds`): the
  stage alone hides the cause (WebQSP on FB15k-237 fails mostly with
  ``unknown_predicate``);
* plots: label × complexity bars per split, the supported fraction of the partially
  supportive samples, citations per sample, failures by stage, time per stage;
* one example per label × complexity cell that has samples: its subgraph drawn with
  networkx (:func:`~extension.outputs.figures.draw_subgraph`; entity names below their
  nodes, the store's predicate labels on edges, CVT nodes small and grey, triples of G the sample lacks dashed orange-red, a contradictory sample's replacement answer
  in its own colour), the question, extended question, answer statement, numbered
  citations and sub-facts with ✓/✗.

The samples file is streamed once (``orjson``; only the ≤16 examples are validated as
:class:`~extension.outputs.sample_schema.BenchmarkSample` and drawn), so a benchmark of 160k
samples takes seconds. All knowledge-graph text is HTML-escaped.
"""

from __future__ import annotations

import hashlib
import html
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
from matplotlib.ticker import MaxNLocator
from pydantic import ValidationError

from extension.core.labels import COMPLEXITIES, LABELS, SPLITS, Complexity, Label
from extension.outputs.caqa_table5 import (
    CAQA_TABLE5_SAMPLES,
    LABEL_TOLERANCE_POINTS,
    compare_with_caqa,
)
from extension.outputs.export import SamplesFileError
from extension.outputs.failure_kinds import describe_kind
from extension.outputs.figures import (
    COMPLEXITY_COLOURS,
    DELETED_COLOUR,
    barh_figure,
    draw_subgraph,
    hue_name,
    inline_svg,
    new_figure,
    no_data,
    styled,
)
from extension.outputs.output_file import write_atomic
from extension.outputs.sample_schema import BenchmarkSample
from extension.verbalize.quality import text_score

REPORT_FILE = "report.html"
FRACTION_BINS = 10
"""Bins of the supported-fraction histogram over [0, 1]."""


# ----------------------------------------------------------------------------------
# One pass over samples.jsonl
# ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SampleSummary:
    """What the report needs from a samples file: sample counts per
    ``(split, label, complexity)``, the supported fractions of the partially supportive
    samples (value -> samples), citations per sample (number -> samples) and one
    example per present ``(label, complexity)`` cell."""

    samples: int
    counts: Mapping[tuple[str, str, str], int]
    partial_fractions: Mapping[float, int]
    citations_per_sample: Mapping[int, int]
    examples: Mapping[tuple[Label, Complexity], BenchmarkSample]

    def count(self, split: str | None, label: str, complexity: str) -> int:
        """Samples of ``label`` × ``complexity`` in ``split`` (``None``: all splits)."""
        if split is not None:
            return self.counts.get((split, label, complexity), 0)
        return sum(self.counts.get((s, label, complexity), 0) for s in SPLITS)


def _example_key(seed: int, sample_id: str) -> bytes:
    # A hash of the id rather than the file position: the same example whatever order
    # the workers wrote the samples in.
    return hashlib.blake2b(f"{seed}:{sample_id}".encode(), digest_size=8).digest()


def _showcase_key(doc: Mapping[str, Any], seed: int) -> tuple[float, bytes]:
    """Best-rated first (issue 34, item 7): the text score of the sample's q̃, ã and
    citation (:func:`extension.verbalize.quality.text_score`), ties broken by the
    hash of ``"{seed}:{id}"``."""
    names = [str(a.get("name") or "") for a in doc.get("answer_entities") or ()
             if isinstance(a, Mapping)]
    for part in doc.get("subgraph") or ():
        if isinstance(part, Mapping):
            names += [str(part.get("s_name") or ""), str(part.get("o_name") or "")]
    score = text_score(str(doc.get("question_extended") or doc.get("question") or ""),
                       str(doc.get("answer") or ""), str(doc.get("citation") or ""), names)
    return (-score, _example_key(seed, str(doc.get("id", ""))))


def summarize_samples(path: Path, *, examples_seed: int = 0) -> SampleSummary:
    """Stream the samples file ``path`` once into a :class:`SampleSummary`.

    The example of a cell is its best-rated sample (:func:`_showcase_key`: the text
    score, then the smallest hash of ``"{examples_seed}:{id}"``): deterministic, and
    independent of the line order.
    Raises :class:`~extension.outputs.export.SamplesFileError` (``path:line: reason``) for a
    line that is not JSON or lacks a valid ``label``, ``complexity`` or ``split``, and
    for a chosen example that is not a valid benchmark sample."""
    counts: Counter[tuple[str, str, str]] = Counter()
    fractions: Counter[float] = Counter()
    citations: Counter[int] = Counter()
    chosen: dict[tuple[str, str], tuple[tuple[float, bytes], int, bytes]] = {}
    samples = 0
    with path.open("rb") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                doc = orjson.loads(line)
            except orjson.JSONDecodeError as exc:
                raise SamplesFileError(path, number, f"not JSON: {exc}") from None
            if not isinstance(doc, dict):
                raise SamplesFileError(path, number, "not a JSON object")
            label, complexity, split = doc.get("label"), doc.get("complexity"), doc.get("split")
            if label not in LABELS or complexity not in COMPLEXITIES or split not in SPLITS:
                raise SamplesFileError(
                    path, number, f"label {label!r}, complexity {complexity!r}, split "
                    f"{split!r}: expected one of {LABELS}, {COMPLEXITIES} and {SPLITS}")
            samples += 1
            counts[(split, label, complexity)] += 1
            citations[len(doc.get("citations") or ())] += 1
            if label == "partially_supportive":
                fractions[round(float(doc.get("supported_fraction", 0.0)), 6)] += 1
            key = _showcase_key(doc, examples_seed)
            best = chosen.get((label, complexity))
            if best is None or key < best[0]:
                chosen[(label, complexity)] = (key, number, line)
    examples: dict[tuple[Label, Complexity], BenchmarkSample] = {}
    for _cell, (_, number, line) in sorted(chosen.items()):
        try:
            sample = BenchmarkSample.model_validate_json(line)
        except ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            where = ".".join(str(p) for p in first["loc"])
            raise SamplesFileError(path, number, f"{where}: {first['msg']}") from None
        examples[(sample.label, sample.complexity)] = sample
    return SampleSummary(samples=samples, counts=dict(counts),
                         partial_fractions=dict(fractions),
                         citations_per_sample=dict(citations), examples=examples)


# ----------------------------------------------------------------------------------
# Figures
# ----------------------------------------------------------------------------------


@styled
def _counts_figure(summary: SampleSummary) -> str:
    splits = [s for s in SPLITS if any(summary.count(s, lb, c) for lb in LABELS
                                       for c in COMPLEXITIES)]
    if not splits:
        return no_data("no samples")
    figure = new_figure(5.2 * len(splits), 3.4)
    axes = figure.subplots(1, len(splits), squeeze=False, sharey=True)[0]
    width = 0.8 / len(COMPLEXITIES)
    for ax, split in zip(axes, splits, strict=True):
        total = sum(summary.count(split, lb, c) for lb in LABELS for c in COMPLEXITIES)
        for i, complexity in enumerate(COMPLEXITIES):
            ax.bar([x + (i - 1.5) * width for x in range(len(LABELS))],
                   [summary.count(split, lb, complexity) for lb in LABELS], width,
                   label=complexity, color=COMPLEXITY_COLOURS[complexity])
        ax.set_xticks(range(len(LABELS)), [lb.replace("_", "\n") for lb in LABELS])
        ax.set_title(f"{split} ({total:,} samples)")
        ax.set_ylabel("samples")
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    axes[-1].legend(title="complexity", fontsize=7, title_fontsize=7)
    return inline_svg(figure, "counts")


@styled
def _fraction_figure(summary: SampleSummary) -> str:
    if not summary.partial_fractions:
        return no_data("no partially supportive samples")
    bins = [0] * FRACTION_BINS
    for value, n in summary.partial_fractions.items():
        bins[min(int(value * FRACTION_BINS), FRACTION_BINS - 1)] += n
    figure = new_figure(5.0, 2.8)
    ax = figure.add_subplot()
    ax.bar([(i + 0.5) / FRACTION_BINS for i in range(FRACTION_BINS)], bins,
           1 / FRACTION_BINS * 0.92, color=COMPLEXITY_COLOURS["intersection"])
    ax.set_xlim(0, 1)
    ax.set_xlabel("supported fraction of the sub-facts of G")
    ax.set_ylabel("partially supportive samples")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    return inline_svg(figure, "fractions")


@styled
def _citations_figure(summary: SampleSummary) -> str:
    if not summary.citations_per_sample:
        return no_data("no samples")
    numbers = sorted(summary.citations_per_sample)
    figure = new_figure(5.0, 2.8)
    ax = figure.add_subplot()
    ax.bar(numbers, [summary.citations_per_sample[n] for n in numbers], 0.7,
           color=COMPLEXITY_COLOURS["single"])
    ax.set_xticks(numbers)
    ax.set_xlabel("citations per sample")
    ax.set_ylabel("samples")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    return inline_svg(figure, "citations")


def _numbers(raw: Any) -> dict[str, float]:
    if not isinstance(raw, Mapping):
        return {}
    return {str(k): number for k, v in raw.items() if (number := _number(v)) is not None}


# ----------------------------------------------------------------------------------
# HTML
# ----------------------------------------------------------------------------------

REPORT_CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2rem auto;max-width:72rem;
 padding:0 1rem;color:#222;line-height:1.45}
h1{margin-bottom:.2rem}h2{border-bottom:1px solid #ccc;padding-bottom:.2rem;margin-top:2.2rem}
table{border-collapse:collapse;margin:.6rem 1.4rem .8rem 0;display:inline-table;vertical-align:top}
th,td{padding:.2rem .6rem;border-bottom:1px solid #e4e4e4}td{text-align:right}
th[scope=row]{text-align:left;font-weight:normal}caption{font-weight:bold;text-align:left}
tr.total td,tr.total th,td.total{font-weight:bold}
dl.summary{display:grid;grid-template-columns:max-content auto;gap:.15rem 1rem}
dl.summary dt{color:#666}dl.summary dd{margin:0}
.plots{display:flex;flex-wrap:wrap;gap:1.5rem}.plots figure{margin:0}
figcaption{font-size:.9rem;color:#555}svg{max-width:100%;height:auto}
article.example{border:1px solid #ddd;border-radius:6px;padding:.6rem 1rem;margin:1rem 0}
article.example h3{margin:.2rem 0}.meta{color:#666;font-size:.9rem}
dl.text dt{font-weight:bold;margin-top:.4rem}dl.text dd{margin-left:1rem}
ul.sub-facts{list-style:none;padding-left:0}li.supported{color:#1b5e20}li.unsupported{color:#a33}
.warning{background:#fff3cd;padding:.4rem .8rem;border-radius:4px}.empty{color:#888}
code{font-size:.9em}
tr.zero th,tr.zero td{color:#b00020;font-weight:bold}
td.flagged{color:#b00020;font-weight:bold}
.alert{background:#fde7ea;color:#b00020;padding:.4rem .8rem;border-radius:4px;font-weight:bold}
table.failure-kinds{display:table;width:100%;table-layout:fixed}
table.failure-kinds th:nth-child(1){width:9rem}table.failure-kinds th:nth-child(2){width:4.5rem}
table.failure-kinds td.kind,table.failure-kinds td.example{text-align:left;vertical-align:top}
table.failure-kinds td.example{font-size:.9rem;color:#444}
table.failure-kinds .mentions,table.failure-kinds .advice{font-size:.9rem;color:#444}
th,td,dd,code,figcaption{overflow-wrap:anywhere}
table{max-width:100%}figure{margin:.6rem 0;max-width:100%}.plots figure{min-width:0}
"""


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _counts_table(summary: SampleSummary, split: str | None, caption: str) -> str:
    head = "".join(f'<th scope="col">{c}</th>' for c in (*COMPLEXITIES, "total"))
    rows = []
    for label in LABELS:
        values = [summary.count(split, label, c) for c in COMPLEXITIES]
        cells = "".join(f"<td>{v:,}</td>" for v in values)
        zero = ' class="zero" title="no samples of this label"' if not sum(values) else ""
        rows.append(f'<tr data-label="{label}"{zero}><th scope="row">{label}</th>{cells}'
                    f'<td class="total">{sum(values):,}</td></tr>')
    column_totals = [sum(summary.count(split, lb, c) for lb in LABELS) for c in COMPLEXITIES]
    cells = "".join(f"<td>{v:,}</td>" for v in column_totals)
    rows.append(f'<tr class="total" data-label="total"><th scope="row">total</th>{cells}'
                f"<td>{sum(column_totals):,}</td></tr>")
    return (f'<table class="counts" data-split="{split or "total"}"><caption>{_e(caption)}'
            f'</caption><thead><tr><th scope="col">label</th>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>")


def _stats_disagreement(summary: SampleSummary, stats: Mapping[str, Any]) -> str | None:
    """A note when ``stats['by_split']`` does not match the samples file."""
    by_split = stats.get("by_split")
    if not isinstance(by_split, Mapping):
        return None
    for split in SPLITS:
        table = by_split.get(split)
        for label in LABELS:
            row = _numbers(table.get(label) if isinstance(table, Mapping) else None)
            for complexity in COMPLEXITIES:
                stated = row.get(complexity, 0.0)
                if stated != summary.count(split, label, complexity):
                    return (f"stats.json and the samples file disagree ({split}, {label}, "
                            f"{complexity}: {stated:,.0f} in stats.json, "
                            f"{summary.count(split, label, complexity):,} in the file); the "
                            "tables show the file's counts")
    return None


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _summary_list(summary: SampleSummary, stats: Mapping[str, Any]) -> str:
    items: list[tuple[str, str]] = []
    source = stats.get("source")
    if isinstance(source, Mapping) and source.get("file"):
        items.append(("source", f"<code>{_e(source['file'])}</code>"))
    questions = _number(stats.get("questions"))
    if questions is not None:
        by_split = _numbers(stats.get("questions_by_split"))
        detail = (" (" + ", ".join(f"{_e(k)} {v:,.0f}" for k, v in by_split.items()) + ")"
                  if by_split else "")
        items.append(("questions", f"{questions:,.0f}{detail}"))
    items.append(("samples", f"{summary.samples:,}"))
    for key in ("seed", "verbalizer", "shard"):
        if stats.get(key) is not None:
            items.append((key, _e(stats[key])))
    seconds = _number(stats.get("seconds"))
    if seconds is not None:
        items.append(("generation time", f"{seconds:,.1f} s"))
    rate = _number(stats.get("samples_per_s"))
    if rate is not None:
        items.append(("samples / s", f"{rate:,.1f}"))
    failures = _numbers(stats.get("failures_by_stage"))
    if failures:
        items.append(("failures", f"{sum(failures.values()):,.0f}"))
    return '<dl class="summary">' + "".join(
        f"<dt>{name}</dt><dd>{value}</dd>" for name, value in items) + "</dl>"


def _edit_text(sample: BenchmarkSample) -> str:
    edit = sample.edit

    def answer_name(a: Any) -> str:
        return str(a.name or a.id or a.value) if a is not None else "?"

    if edit.kind == "none":
        return "none: the supporting subgraph G itself"
    if edit.kind in ("delete_triple", "delete_path"):
        what = "one triple" if edit.kind == "delete_triple" else "the path of one subject"
        return f"{edit.kind}: removed {what} ({len(edit.deleted)} triple(s)) from G"
    if edit.kind == "replace_answer":
        shared = f" (shared type {edit.shared_type})" if edit.shared_type else ""
        return (f"replace_answer: {answer_name(edit.replaced)} replaced by "
                f"{answer_name(edit.replacement)}{shared}")
    return "swap_subgraph: G replaced by a similar subgraph around the subject over other relations"


def _example_html(sample: BenchmarkSample, index: int,
                  predicate_labels: Mapping[str, str] | None = None) -> str:
    answers = ", ".join(str(a.name or a.id or a.value) for a in sample.answer_entities)
    citations = "".join(f"<li>{_e(c.text)}</li>" for c in sample.citations)
    sub_facts = "".join(
        f'<li class="supported" title="kept by the sample">✓ {_e(s.text)}</li>' if s.supported
        else f'<li class="unsupported" title="missing from the sample">✗ {_e(s.text)}</li>'
        for s in sample.sub_facts)
    return (
        f'<article class="example" id="example-{sample.label}-{sample.complexity}" '
        f'data-label="{sample.label}" data-complexity="{sample.complexity}">'
        f"<h3>{sample.label} × {sample.complexity}</h3>"
        f'<p class="meta"><code>{_e(sample.id)}</code> · split {sample.split} · rule '
        f"{_e(sample.query.rule)} · shape {_e(sample.query.shape)} · supported fraction "
        f"{sample.supported_fraction:.2f} · edit {_e(_edit_text(sample))}</p>"
        f"<figure>{draw_subgraph(sample, name=f'example-{index}', predicate_labels=predicate_labels)}"
        "<figcaption>The sample's subgraph (what its citations state); dashed "
        f"{hue_name(DELETED_COLOUR)}: triples of the original subgraph G it lacks."
        "</figcaption></figure>"
        '<dl class="text">'
        f"<dt>Question (q)</dt><dd>{_e(sample.question)}</dd>"
        f"<dt>Extended question (q̃)</dt><dd>{_e(sample.question_extended)}</dd>"
        f"<dt>Answer statement (ã)</dt><dd>{_e(sample.answer)}</dd>"
        f"<dt>Answers</dt><dd>{_e(answers)}"
        f"{' (capped)' if sample.answers_capped else ''}</dd>"
        f"<dt>Citations</dt><dd><ol>{citations}</ol></dd>"
        f'<dt>Sub-facts of G</dt><dd><ul class="sub-facts">{sub_facts}</ul></dd></dl></article>')


def _missing_labels(summary: SampleSummary) -> str:
    """A red line naming each label without a single sample (a benchmark should have
    all four: issue 19), or nothing."""
    missing = [lb for lb in LABELS if not any(summary.count(None, lb, c) for c in COMPLEXITIES)]
    if not summary.samples or not missing:
        return ""
    return (f'<p class="alert missing-labels" data-labels="{" ".join(missing)}">No '
            f"{_e(' and no '.join(missing))} samples: failures.jsonl says why (see "
            '<a href="#failures">failures by kind</a>).</p>')


def _shares_table(summary: SampleSummary) -> str:
    """Our label and complexity shares beside CAQA Table 5's (:mod:`extension.
    caqa_table5`), a label more than the tolerance away in red."""
    counts: dict[tuple[str, str], int] = {
        (lb, c): summary.count(None, lb, c) for lb in LABELS for c in COMPLEXITIES}
    comparison = compare_with_caqa(counts)
    rows = []
    for row in comparison.rows:
        flag = (' class="flagged" title="more than '
                f'{LABEL_TOLERANCE_POINTS:g} points from CAQA"' if row.flagged else "")
        rows.append(
            f'<tr data-group="{row.group}" data-name="{row.name}"'
            f' data-flagged="{str(row.flagged).lower()}"><th scope="row">{row.group}</th>'
            f'<th scope="row">{row.name}</th><td>{row.count:,}</td><td>{row.share:.1f}%</td>'
            f"<td>{row.caqa_share:.1f}%</td><td{flag}>{row.diff_points:+.1f}</td></tr>")
    return (f'<table class="caqa-shares"><caption>Share of all samples: ours '
            f"({comparison.samples:,}) and CAQA Table 5 ({CAQA_TABLE5_SAMPLES:,})</caption>"
            '<thead><tr><th scope="col"></th><th scope="col"></th><th scope="col">samples'
            '</th><th scope="col">ours</th><th scope="col">CAQA</th>'
            '<th scope="col">difference (points)</th></tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>")


def _failure_kinds_table(stats: Mapping[str, Any]) -> str:
    """``stats['failures_by_kind']`` as a table: stage, count, the kind (a coded kind
    as code with its meaning, a prose kind as text), the ids its reasons name most
    often, what to do, and one example (question id and full reason)."""
    kinds = stats.get("failures_by_kind")
    if not isinstance(kinds, Sequence) or not kinds:
        return no_data("no failure reasons recorded" if stats.get("failures_by_stage")
                        else "no failures")
    rows = []
    for kind in kinds:
        if not isinstance(kind, Mapping):
            continue
        raw = kind.get("example")
        example: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
        count = _number(kind.get("count")) or 0
        text = str(kind.get("kind", ""))
        meaning = str(kind.get("meaning") or describe_kind(text))
        said = (f"<code>{_e(text)}</code><br>{_e(meaning)}" if meaning != text
                else f'<span class="prose">{_e(text)}</span>')
        mentions = [m for m in kind.get("mentions") or () if isinstance(m, Mapping)]
        if mentions:
            said += ('<br><span class="mentions">most often: ' + ", ".join(
                f"<code>{_e(m.get('id', ''))}</code> {_number(m.get('count')) or 0:,.0f}"
                for m in mentions) + "</span>")
        if kind.get("what_to_do"):
            said += f'<br><span class="advice">What to do: {_e(kind["what_to_do"])}</span>'
        rows.append(
            f'<tr data-stage="{_e(kind.get("stage", ""))}" data-kind="{_e(text)}">'
            f'<th scope="row">{_e(kind.get("stage", ""))}</th>'
            f'<td class="count">{count:,.0f}</td><td class="kind">{said}</td>'
            f'<td class="example"><code>{_e(example.get("qid", ""))}</code> '
            f'{_e(example.get("reason", ""))}</td></tr>')
    return ('<table class="failure-kinds"><thead><tr><th scope="col">stage</th>'
            '<th scope="col">count</th><th scope="col">kind of reason</th>'
            '<th scope="col">example</th></tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>")


def render_report(summary: SampleSummary, stats: Mapping[str, Any], *,
                  title: str = "kgbench benchmark report",
                  predicate_labels: Mapping[str, str] | None = None) -> str:
    """The report page (see the module docstring) of a summarized samples file and the
    run's ``stats.json`` mapping (any of its keys may be missing) as one HTML string;
    ``predicate_labels`` (predicate id -> the store's label) name the drawings' edges."""
    failures = _numbers(stats.get("failures_by_stage"))
    stage_seconds = _numbers(stats.get("stage_seconds"))
    warning = _stats_disagreement(summary, stats)
    tables = "".join(
        _counts_table(summary, split, split) for split in SPLITS
        if any(summary.count(split, lb, c) for lb in LABELS for c in COMPLEXITIES))
    tables += _counts_table(summary, None, "total")

    def plot(body: str, caption: str) -> str:
        return f"<figure>{body}<figcaption>{_e(caption)}</figcaption></figure>"

    plots = "".join((
        plot(_counts_figure(summary), "Samples by label and complexity, per split."),
        plot(_fraction_figure(summary),
             "Partially supportive samples: share of G's sub-facts the citations keep."),
        plot(_citations_figure(summary), "Citations per sample."),
        plot(barh_figure(failures, "failures", "questions or samples not produced",
                          DELETED_COLOUR, "{0:,.0f}") if failures else no_data("no failures"),
             "Failures by stage (their reasons: the table above)."),
        plot(barh_figure(stage_seconds, "stages", "seconds", COMPLEXITY_COLOURS["single"],
                          "{0:,.2f} s ({1:.0%})") if stage_seconds
             else no_data("no stage times"), "Time per stage."),
    ))
    cells = [cell for cell in present_cells(summary) if cell in summary.examples]
    index = "".join(f'<li><a href="#example-{lb}-{c}">{lb} × {c}</a></li>' for lb, c in cells)
    examples = "".join(_example_html(summary.examples[cell], i, predicate_labels)
                       for i, cell in enumerate(cells))
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(title)}</title><style>{REPORT_CSS}</style></head><body>"
        f"<h1>{_e(title)}</h1>"
        '<section id="summary"><h2>Run</h2>'
        f"{_summary_list(summary, stats)}</section>"
        '<section id="distribution"><h2>Samples by label and complexity</h2>'
        + (f'<p class="warning">{_e(warning)}</p>' if warning else "")
        + _missing_labels(summary)
        + f"{tables}{_shares_table(summary)}</section>"
        '<section id="failures"><h2>Failures by kind of reason</h2>'
        f"{_failure_kinds_table(stats)}</section>"
        f'<section id="plots"><h2>Distributions</h2><div class="plots">{plots}</div></section>'
        '<section id="examples"><h2>One example per label × complexity</h2>'
        + (f"<ul>{index}</ul>{examples}" if cells else no_data("no samples"))
        + "</section></body></html>\n")


def write_report(out_dir: Path, samples_path: Path, stats: Mapping[str, Any], *,
                 examples_seed: int = 0,
                 predicate_labels: Mapping[str, str] | None = None) -> Path:
    """Write ``out_dir/report.html`` for the samples file ``samples_path`` and the run's
    ``stats`` (the ``stats.json`` mapping of ``kgbench generate``) and return its path.

    ``examples_seed`` picks which sample of each label × complexity cell is shown
    (:func:`summarize_samples`); ``predicate_labels`` (predicate id -> the store's
    label) name the drawings' edges. Written to ``report.html.part`` and renamed
    (:func:`~extension.outputs.output_file.write_atomic`), so a failure leaves no partial report. Raises
    :class:`~extension.outputs.export.SamplesFileError` for a bad samples line."""
    summary = summarize_samples(samples_path, examples_seed=examples_seed)
    page = render_report(summary, stats, predicate_labels=predicate_labels)
    return write_atomic(out_dir / REPORT_FILE, page)


def present_cells(summary: SampleSummary) -> Sequence[tuple[Label, Complexity]]:
    """The ``(label, complexity)`` cells with at least one sample, in table order."""
    return [(lb, c) for lb in LABELS for c in COMPLEXITIES if summary.count(None, lb, c)]

