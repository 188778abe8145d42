"""Where a benchmark keeps what its shortcuts get: ``BENCH_DIR/baselines.json`` and the
"What a shortcut gets" section of ``BENCH_DIR/report.html``.

``baselines.json`` holds one result per (baseline, model, scheme, label map): a rerun
replaces its own entry and keeps the others, so the page shows every shortcut measured
on this benchmark side by side. It records the SHA-256 of ``samples.jsonl``: results
of other samples (a ``generate --force`` since) are dropped, never shown beside these.

The section sits between its own HTML comments (:data:`SECTION_MARKERS`), spliced as
``kgbench score`` splices its own (:func:`scoring.score.report_section.splice_section`):
the rest of the page stays byte for byte. Written under the benchmark directory's lock
(the one ``generate`` and ``score`` take), each file atomically.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from extension.core.labels import DROP
from scoring.errors import ScoringError
from scoring.evaluate.baselines.shortcut import ShortcutReport

__all__ = ["BASELINES_FILE", "SECTION_MARKERS", "record_shortcut", "render_shortcut_section"]

BASELINES_FILE = "baselines.json"
FORMAT = "kgbench-shortcut-baselines"
VERSION = 1
SECTION_MARKERS = ("<!-- kgbench evaluate: shortcut baselines -->",
                   "<!-- /kgbench evaluate: shortcut baselines -->")
REMEDY = "free space, then rerun the same kgbench evaluate --baseline command"
_KEY = ("baseline", "model", "scheme", "label_map")

_CSS = """
#shortcut-baselines table td.above{font-weight:bold}
#shortcut-baselines table td.features{text-align:left;font-size:.85rem}
#shortcut-baselines tr.chance{color:#555;font-style:italic}
"""


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _entry(result: ShortcutReport) -> dict[str, Any]:
    report = result.report
    label_map = {label: DROP if target is None else target
                 for label, target in report.scheme.gold_map.items()}
    return {**result.baseline, "scheme": report.scheme.name, "label_map": label_map,
            "labels": list(report.scheme.labels), "n": report.document["n"]}


def _read(path: Path, samples_sha256: str) -> list[dict[str, Any]]:
    """The entries of ``path`` for these samples (none when the file is missing, not
    ours, or about other samples)."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return []
    if not (isinstance(doc, dict) and doc.get("format") == FORMAT
            and doc.get("samples_sha256") == samples_sha256
            and isinstance(doc.get("results"), list)):
        return []
    return [r for r in doc["results"] if isinstance(r, dict) and all(k in r for k in _KEY)]


def _f1(value: float) -> str:
    return f"{value:.3f}"


def _table(entries: Sequence[Mapping[str, Any]]) -> str:
    """One scheme's shortcuts, then its chance rows (from the first entry: they depend on
    the splits and the scheme only)."""
    labels = entries[0]["labels"]
    chance = entries[0]["chance"]
    best_chance = max(level["macro_f1"] for level in chance.values())
    head = "".join(f'<th scope="col">{_e(label)}</th>' for label in labels)
    rows = []
    for entry in entries:
        cells = "".join(f"<td>{_f1(entry['per_label_f1'][label])}</td>" for label in labels)
        above = entry["macro_f1"] - best_chance
        rows.append(
            f'<tr data-baseline="{_e(entry["baseline"])}"><th scope="row">{_e(entry["baseline"])}'
            + (f"<br><small>{_e(entry['model'])}</small>" if entry.get("model") else "")
            + f'</th><td class="features">{_e(", ".join(entry["features"]))}</td>{cells}'
            f"<td>{_f1(entry['macro_f1'])}</td><td>{_f1(entry['micro_f1'])}</td>"
            f'<td class="{"above" if above > 0 else ""}">{above:+.3f}</td></tr>')
    for name, level in chance.items():
        what = (f"every sample {level['label']}" if name == "majority"
                else f"train label shares, mean of {level['draws']} draws")
        cells = "".join(f"<td>{_f1(level['per_label_f1'][label])}</td>" for label in labels)
        rows.append(f'<tr class="chance" data-chance="{_e(name)}"><th scope="row">chance: '
                    f'{_e(name)}</th><td class="features">{_e(what)}</td>{cells}'
                    f"<td>{_f1(level['macro_f1'])}"
                    f"</td><td>{_f1(level['micro_f1'])}</td><td></td></tr>")
    return (f'<table class="shortcuts" data-scheme="{_e(entries[0]["scheme"])}"><caption>'
            f"Test split ({entries[0]['n']:,} samples), {_e(entries[0]['scheme'])} labels: "
            "F1 per label, macro-F1, micro-F1, and macro-F1 above the better chance level"
            f'</caption><thead><tr><th scope="col">shortcut</th><th scope="col">features</th>'
            f'{head}<th scope="col">macro-F1</th><th scope="col">micro-F1</th>'
            '<th scope="col">above chance</th></tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>")


def render_shortcut_section(entries: Sequence[Mapping[str, Any]]) -> str:
    """The report section (between :data:`SECTION_MARKERS`) for ``entries``; every text
    from the files is HTML-escaped."""
    groups: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for entry in entries:
        key = (entry["scheme"], json.dumps(entry["label_map"], sort_keys=True))
        groups.setdefault(key, []).append(entry)
    tables = "".join(_table(group) for group in groups.values())
    return (f"{SECTION_MARKERS[0]}<style>{_CSS}</style>"
            '<section id="shortcut-baselines"><h2>What a shortcut gets</h2>'
            "<p>A small classifier (softmax regression) fitted on the train split from "
            "surface features only, scored on the test split: answer–citation word "
            "overlap, lengths and citation count, or embedding cosines. CAQA §6 found "
            "that evaluators lean on such cues (keyword co-occurrence); where a shortcut "
            "scores far above chance, the benchmark rewards the cue rather than "
            "attribution. Rerun <code>kgbench evaluate BENCH --baseline KIND</code> to "
            f"add or refresh a row.</p>{tables}</section>{SECTION_MARKERS[1]}")


def record_shortcut(result: ShortcutReport) -> Path:
    """Add ``result`` to its benchmark's ``baselines.json`` (replacing the entry of the
    same baseline, model, scheme and label map: how the scheme writes each of our
    labels) and rewrite the report section; returns
    the report page. Raises :class:`ScoringError` when another kgbench process holds
    the benchmark directory."""
    from extension.outputs.output_file import write_atomic
    from kgstore.dirlock import DirectoryLock, DirectoryLockedError
    from scoring.score.report_section import splice_section, standalone_page
    from scoring.score.workdir import file_sha256

    samples = result.report.source
    bench_dir = samples.parent
    entry = _entry(result)
    try:
        with DirectoryLock(bench_dir):
            digest = file_sha256(samples)
            path = bench_dir / BASELINES_FILE
            entries = [e for e in _read(path, digest)
                       if tuple(e[k] for k in _KEY) != tuple(entry[k] for k in _KEY)]
            entries.append(entry)
            entries.sort(key=lambda e: (e["scheme"], json.dumps(e["label_map"], sort_keys=True),
                                        e["baseline"], e["model"] or ""))
            doc = {"format": FORMAT, "version": VERSION, "samples": samples.name,
                   "samples_sha256": digest, "results": entries}
            write_atomic(path, json.dumps(doc, indent=2, sort_keys=True, allow_nan=False)
                         + "\n", remedy=REMEDY)
            page = bench_dir / "report.html"
            section = render_shortcut_section(entries)
            text = (splice_section(page.read_text("utf-8"), section, markers=SECTION_MARKERS)
                    if page.is_file() else standalone_page(section, title="kgbench shortcut "
                                                                           "baselines"))
            return write_atomic(page, text, remedy=REMEDY)
    except DirectoryLockedError as exc:
        holder = f" (pid {exc.pid})" if exc.pid else ""
        raise ScoringError(f"benchmark directory {bench_dir} is being written by another "
                           f"kgbench process{holder}, so the baseline was not recorded in "
                           "its report (the numbers above stand)",
                           "rerun this command when that process has finished") from None
