"""``report.html`` of a ``kgbench kalma generate`` run: one small self-contained page
(no scripts, no external files) with the run's counts, why starts were skipped, the
relations of the minimum knowledge sets as a histogram, and a few entries with their
questions, paragraph and minimum knowledge set. Every text from the store or the LLM is
HTML-escaped: entity names are data, not markup."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from kalma.builder import BuildConfig
from kalma.entry import KalmaEntry

__all__ = ["render_report"]

CSS = """
body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;
color:#222;line-height:1.4}
h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.5rem 0}th,td{padding:.2rem .6rem;text-align:left;
vertical-align:top;border-bottom:1px solid #eee}td.n{text-align:right;font-variant-numeric:
tabular-nums}.bar{background:#4c78a8;height:.8rem;display:inline-block}
.entry{border:1px solid #ddd;border-radius:6px;padding:.5rem 1rem;margin:1rem 0}
code{font-size:.9em}.muted{color:#666}
"""
HISTOGRAM_ROWS = 25


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _list(items: Sequence[tuple[str, Any]]) -> str:
    return "<table>" + "".join(f'<tr><th scope="row">{_e(k)}</th><td>{_e(v)}</td></tr>'
                               for k, v in items) + "</table>"


def _histogram(counts: Mapping[str, int]) -> str:
    if not counts:
        return '<p class="muted">no knowledge</p>'
    rows = list(counts.items())[:HISTOGRAM_ROWS]
    top = max(n for _, n in rows)
    body = "".join(
        f'<tr><td>{_e(relation)}</td><td class="n">{n:,}</td>'
        f'<td><span class="bar" style="width:{max(1, round(12 * n / top))}rem"></span></td></tr>'
        for relation, n in rows)
    more = len(counts) - len(rows)
    note = f'<p class="muted">{more:,} more relation(s) in run.json</p>' if more > 0 else ""
    return ('<table><thead><tr><th scope="col">relation</th><th scope="col">pieces</th>'
            f'<th scope="col"></th></tr></thead><tbody>{body}</tbody></table>{note}')


def _entry(entry: KalmaEntry) -> str:
    names = ", ".join(f"{e.name} ({e.id})" for e in entry.entities)
    rows = "".join(f"<tr><td><code>{_e(k.subject_id)}</code></td><td>{_e(k.relation)}</td>"
                   f"<td>{_e(k.object)}</td></tr>" for k in entry.minimum_knowledge_set)
    return (f'<div class="entry" id="{_e(entry.id)}"><h3>{_e(entry.id)}: {_e(names)}</h3>'
            f"<p><b>General:</b> {_e(entry.question_general)}</p>"
            f"<p><b>Specific:</b> {_e(entry.question_specific)}</p>"
            f"<p><b>Paragraph:</b> {_e(entry.paragraph)}</p>"
            "<table><caption>Minimum knowledge set</caption><thead><tr><th>subject</th>"
            f"<th>relation</th><th>object</th></tr></thead><tbody>{rows}</tbody></table>"
            f'<p class="muted">knowledge pool: {len(entry.knowledge_pool):,} triples</p></div>')


def render_report(run: Mapping[str, Any], examples: Sequence[KalmaEntry],
                  config: BuildConfig) -> str:
    """The page for ``run`` (``run.json``'s document) and a few example entries."""
    timings = run.get("timings", {})
    starts = run.get("starts", {})
    rate = timings.get("entries_per_s")
    summary = [
        ("domain", config.domain), ("entries", f"{run['entries']:,} of {run['requested']:,} asked"),
        ("entries about", "one entity (--single)" if config.single else "connected pairs"),
        ("seed", config.seed), ("iterations", config.iterations),
        ("text", run.get("method")),
        ("Eq. 1", f"alpha {config.alpha}, coherence: {run.get('coherence')}"),
        ("starts used", f"{starts.get('used', 0):,} of {starts.get('available', 0):,}"),
        ("pairs left out (namesakes)", starts.get("ambiguous_pairs_left_out", 0)),
        ("seconds", timings.get("seconds")),
        ("entries/s", rate if rate is not None else "–"),
    ]
    skips = run.get("skips") or {}
    skip_html = (_list([(reason, f"{n:,}") for reason, n in skips.items()]) if skips
                 else '<p class="muted">no start was skipped</p>')
    variants = run.get("incompetence") or {}
    variant_html = (_list([(f"incompetence-{k}.jsonl",
                            f"{v['entries']:,} entries ({v['left_out']:,} left out: "
                            + ("no piece" if str(k) == "1" else f"fewer than {k} pieces")
                            + " of the minimum knowledge set whose absence a reader would "
                            "notice, or nothing left to cite)")
                           for k, v in variants.items()]) if variants
                    else '<p class="muted">no --incompetence level asked</p>')
    title = "kgbench KaLMA entries"
    return ("<!DOCTYPE html>\n"
            '<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{_e(title)}</title><style>{CSS}</style></head><body>"
            f"<h1>{_e(title)}</h1>"
            f'<section id="run"><h2>Run</h2>{_list(summary)}</section>'
            f'<section id="skips"><h2>Starts skipped, by reason</h2>{skip_html}</section>'
            f'<section id="incompetence"><h2>Conscious-incompetence variants (§4.4)</h2>'
            f"{variant_html}</section>"
            '<section id="relations"><h2>Relations of the minimum knowledge sets</h2>'
            f"{_histogram(run.get('relations') or {})}</section>"
            '<section id="examples"><h2>Example entries</h2>'
            + "".join(_entry(e) for e in examples) + "</section></body></html>\n")
