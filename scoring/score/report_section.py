"""The "Model scores" section that ``kgbench score`` adds to a benchmark's
``report.html``.

The section sits between two HTML comments (:data:`SECTION_BEGIN`,
:data:`SECTION_END`) just before ``</body>``; a rerun replaces what lies between them
and leaves every other byte of the page as it was (:func:`splice_section`). Sample text
in the section is HTML-escaped, so no sample can close the section early or forge the
markers. A benchmark generated with ``--no-report`` has no page: the section then
becomes a page of its own (:func:`standalone_page`).

It shows the models and the provider that ran them, the label-consistency table
(:mod:`scoring.score.consistency`) and its sub-fact counterpart, the distributions of
the NLI probabilities per gold label and of CONNER's sentence cohesion per label
(figures drawn as :mod:`extension.outputs.report` draws its own: matplotlib, inline SVG), then
the samples the NLI model disagrees with **first** (lowest probability of the expected
outcome first) with their text, q̃, ã, the citations and the probabilities, up to
:data:`LISTED_SAMPLES` rows (scores.jsonl and flagged.jsonl hold them all).
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from matplotlib.ticker import MaxNLocator

from extension.core.labels import LABELS
from extension.outputs.figures import inline_svg, new_figure, no_data, styled
from extension.outputs.report import REPORT_CSS
from scoring.card import NLI_ROLES
from scoring.score.consistency import ConsistencyTable, OutcomeCounts

__all__ = ["LISTED_SAMPLES", "SECTION_BEGIN", "SECTION_END", "listing_order", "render_section",
           "splice_section", "standalone_page"]

SECTION_BEGIN = "<!-- kgbench score: model scores -->"
SECTION_END = "<!-- /kgbench score: model scores -->"
LISTED_SAMPLES = 100
"""Samples listed in the section (a page of 160k samples is not read by anyone)."""
PROBABILITY_BINS = 10

# Okabe–Ito colours, as in extension.outputs.report.
ROLE_COLOURS = {"entailment": "#009E73", "neutral": "#999999", "contradiction": "#D55E00"}
LABEL_COLOURS = {"supportive": "#009E73", "partially_supportive": "#56B4E9",
                 "contradictory": "#D55E00", "irrelevant": "#999999"}
_EXPECTED_WORDS = {"entailment": "entailment", "contradiction": "contradiction",
                   "not_entailment": "not entailment"}

_SECTION_CSS = """
#model-scores table.consistency td.share{font-weight:bold}
#model-scores tr.disagrees{background:#fde7ea}
#model-scores table.scored-samples td{text-align:left;vertical-align:top;font-size:.9rem}
#model-scores table.scored-samples td.p{text-align:right;white-space:nowrap}
#model-scores dl.text{margin:0}#model-scores dl.text dd{margin-left:1rem}
"""


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _share(row: OutcomeCounts) -> str:
    share = row.consistent_share
    return f"{share:.1%}" if share is not None else "–"


def _table_rows(rows: Mapping[Any, OutcomeCounts], head: str) -> str:
    cells = []
    for name, row in rows.items():
        outcomes = "".join(f"<td>{row.outcomes[role]:,}</td>" for role in NLI_ROLES)
        cells.append(f'<tr data-row="{_e(name)}"><th scope="row">{_e(name)}</th>'
                     f"<td>{_e(_EXPECTED_WORDS[row.expected])}</td><td>{row.n:,}</td>{outcomes}"
                     f'<td>{row.consistent:,}</td><td class="share">{_share(row)}</td></tr>')
    roles = "".join(f'<th scope="col">{role}</th>' for role in NLI_ROLES)
    return (f'<thead><tr><th scope="col">{head}</th><th scope="col">expected</th>'
            f'<th scope="col">pairs</th>{roles}<th scope="col">consistent</th>'
            f'<th scope="col">share</th></tr></thead><tbody>{"".join(cells)}</tbody>')


def consistency_html(table: ConsistencyTable) -> str:
    """The label-consistency table and the sub-fact table as HTML."""
    total = table.total
    total_row = (f'<tr class="total" data-row="total"><th scope="row">total</th><td></td>'
                 f"<td>{total.n:,}</td>"
                 + "".join(f"<td>{total.outcomes[role]:,}</td>" for role in NLI_ROLES)
                 + f'<td>{total.consistent:,}</td><td class="share">{_share(total)}</td></tr>')
    labels = _table_rows(table.by_label, "gold label").replace("</tbody>", total_row + "</tbody>")
    return (f'<table class="consistency" data-table="labels"><caption>Gold label × NLI '
            f"outcome (citations → answer statement)</caption>{labels}</table>"
            '<table class="consistency" data-table="sub-facts"><caption>Sub-facts of the '
            "partially supportive samples (citations → sub-fact)</caption>"
            f"{_table_rows(table.sub_facts, 'sub-fact')}</table>")


@styled
def _nli_figure(records: Sequence[Mapping[str, Any]]) -> str:
    labels = [lb for lb in LABELS if any(r["label"] == lb and r.get("nli") for r in records)]
    if not labels:
        return no_data("no NLI scores")
    columns = min(2, len(labels))
    rows = (len(labels) + columns - 1) // columns
    figure = new_figure(4.6 * columns, 2.5 * rows)
    axes = figure.subplots(rows, columns, squeeze=False, sharex=True)
    edges = [i / PROBABILITY_BINS for i in range(PROBABILITY_BINS + 1)]
    for index, ax in enumerate(axes.flat):
        if index >= len(labels):
            ax.set_axis_off()
            continue
        label = labels[index]
        scored = [r["nli"] for r in records if r["label"] == label and r.get("nli")]
        for role in NLI_ROLES:
            ax.hist([s[role] for s in scored], bins=edges, histtype="step", linewidth=1.6,
                    color=ROLE_COLOURS[role], label=f"P({role})")
        ax.set_xlim(0, 1)
        ax.set_title(f"{label} ({len(scored):,} samples)")
        ax.set_ylabel("samples")
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    axes.flat[0].legend(fontsize=7)
    for ax in axes[-1]:
        ax.set_xlabel("probability")
    return inline_svg(figure, "model-scores-nli")


@styled
def _cohesion_figure(records: Sequence[Mapping[str, Any]]) -> str:
    by_label = {lb: [r["lm"]["cohesion"] for r in records if r["label"] == lb
                     and r.get("lm") and r["lm"]["cohesion"] is not None] for lb in LABELS}
    present = [lb for lb in LABELS if by_label[lb]]
    if not present:
        return no_data("no language-model scores")
    figure = new_figure(5.4, 2.9)
    ax = figure.add_subplot()
    boxes = ax.boxplot([by_label[lb] for lb in present], patch_artist=True, widths=0.55,
                       medianprops={"color": "#222222"})
    for patch, label in zip(boxes["boxes"], present, strict=True):
        patch.set_facecolor(LABEL_COLOURS[label])
        patch.set_alpha(0.7)
    ax.set_xticks(range(1, len(present) + 1), [lb.replace("_", "\n") for lb in present])
    ax.set_ylabel("sentence cohesion (mean 1/PPL)")
    return inline_svg(figure, "model-scores-lm")


def listing_order(records: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The records with NLI scores, those that disagree with their label first, each
    group by rising probability of the expected outcome (ties in file order)."""
    scored = [r for r in records if r.get("nli")]
    return sorted(scored, key=lambda r: (r["nli"]["consistent"], r["nli"]["p_expected"]))


def _sample_row(record: Mapping[str, Any], text: Mapping[str, Any]) -> str:
    nli = record["nli"]
    disagrees = not nli["consistent"]
    probabilities = "".join(f'<td class="p">{nli[role]:.3f}</td>' for role in NLI_ROLES)
    citations = "".join(f"<li>{_e(c)}</li>" for c in text.get("citations", ()))
    return (f'<tr data-id="{_e(record["id"])}" data-consistent="{str(not disagrees).lower()}"'
            + (' class="disagrees"' if disagrees else "") + ">"
            f'<td><code>{_e(record["id"])}</code><br>{_e(record["label"])}</td>'
            f'<td>{_e(_EXPECTED_WORDS[nli["expected"]])}</td><td>{_e(nli["predicted"])}</td>'
            f"{probabilities}"
            f'<td><dl class="text"><dt>q̃</dt><dd>{_e(text.get("question_extended", ""))}</dd>'
            f'<dt>ã</dt><dd>{_e(text.get("answer", ""))}</dd>'
            f"<dt>citations</dt><dd><ol>{citations}</ol></dd></dl></td></tr>")


def _samples_html(listed: Sequence[Mapping[str, Any]], texts: Mapping[str, Mapping[str, Any]],
                  disagreeing: int, scored: int) -> str:
    if not listed:
        return ""
    rows = "".join(_sample_row(r, texts.get(r["id"], {})) for r in listed)
    roles = "".join(f'<th scope="col">P({role[:4]}.)</th>' for role in NLI_ROLES)
    more = (f" The first {len(listed):,} of {scored:,} are shown; scores.jsonl holds them all."
            if len(listed) < scored else "")
    return ('<h3>Samples, those the model disagrees with first</h3>'
            f"<p>{disagreeing:,} of {scored:,} samples disagree with their label (red), "
            f"lowest probability of the expected outcome first.{more} "
            "<code>kgbench score … --flag-below P</code> writes the doubtful ones to "
            "flagged.jsonl.</p>"
            '<table class="scored-samples"><thead><tr><th scope="col">sample</th>'
            f'<th scope="col">expected</th><th scope="col">predicted</th>{roles}'
            f'<th scope="col">text</th></tr></thead><tbody>{rows}</tbody></table>')


def _models_html(run: Mapping[str, Any]) -> str:
    items = []
    for role, model in (run.get("models") or {}).items():
        runtime = model.get("runtime") or {}
        items.append(f"<dt>{_e(role)}</dt><dd><code>{_e(model.get('dir', ''))}</code> · "
                     f"{_e(model.get('task', ''))} · provider {_e(runtime.get('provider', '?'))}"
                     f" · {_e(runtime.get('precision', ''))}</dd>")
    benchmark = run.get("benchmark") or {}
    items.append(f"<dt>samples scored</dt><dd>{benchmark.get('samples', 0):,} (split "
                 f"{_e(benchmark.get('split', 'all'))})</dd>")
    return '<dl class="summary">' + "".join(items) + "</dl>"


def render_section(records: Sequence[Mapping[str, Any]], table: ConsistencyTable | None,
                   texts: Mapping[str, Mapping[str, Any]], run: Mapping[str, Any]) -> str:
    """The section (markers included) for the ``scores.jsonl`` ``records``, their
    consistency ``table`` (``None`` without an NLI model), the listed samples' ``texts``
    (id -> ``question_extended``, ``answer``, ``citations``; see :func:`listing_order`)
    and ``run`` (the ``score_run.json`` mapping)."""
    parts = [_models_html(run)]
    if table is not None:
        ordered = listing_order(records)
        disagreeing = sum(not r["nli"]["consistent"] for r in ordered)
        parts += [
            "<h3>Label consistency</h3>"
            "<p>How often the NLI model's outcome (argmax) is the one the gold label "
            "expects: supportive → entailment, contradictory → contradiction, partially "
            "supportive and irrelevant → not entailment (neutral or contradiction); a "
            "sub-fact the sample kept → entailment, one it lost → not entailment.</p>",
            consistency_html(table),
            "<figure>" + _nli_figure(records) + "<figcaption>NLI probabilities of the "
            "citations → answer statement pairs, per gold label.</figcaption></figure>"]
    if any(r.get("lm") for r in records):
        parts.append("<figure>" + _cohesion_figure(records) + "<figcaption>CONNER's "
                     "sentence cohesion (Eq. 3: the mean of 1/perplexity over the "
                     "citations), per gold label.</figcaption></figure>")
    if table is not None:
        parts.append(_samples_html(ordered[:LISTED_SAMPLES], texts, disagreeing, len(ordered)))
    return (f'{SECTION_BEGIN}<section id="model-scores"><style>{_SECTION_CSS}</style>'
            f'<h2>Model scores</h2>{"".join(parts)}</section>{SECTION_END}')


def splice_section(page: str, section: str, *, markers: tuple[str, str] = (
        SECTION_BEGIN, SECTION_END)) -> str:
    """``page`` with ``section`` in place of its earlier section between ``markers``
    (default: the model-scores section's), or inserted before ``</body>`` (at the end
    when there is none); nothing else of the page changes."""
    first, last = markers
    begin = page.find(first)
    end = page.find(last, begin) if begin >= 0 else -1
    if begin >= 0 and end >= 0:
        return page[:begin] + section + page[end + len(last):]
    body = page.rfind("</body>")
    if body < 0:
        return page + section
    return page[:body] + section + page[body:]


def standalone_page(section: str, *, title: str = "kgbench model scores") -> str:
    """A report page that holds only the section (a benchmark generated with
    ``--no-report`` has no report.html to add it to)."""
    return ("<!DOCTYPE html>\n"
            '<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{_e(title)}</title><style>{REPORT_CSS}</style></head><body>"
            f"<h1>{_e(title)}</h1>{section}</body></html>\n")
