"""Blind labels: the labels a reader gave samples without seeing the generated ones
(``bench/label_agreement.py`` writes them), the reference of CAQA §6.2's consistency
check in small.

Two layouts, told apart by the first non-blank line:

* JSONL, the layout of a predictions file: ``{"id": SAMPLE_ID, "label": LABEL}``;
* TSV with a header row (``bench/results/label_agreement_samples.tsv``): the sample id
  in the column ``sample_id`` (or ``id``), the label in the column ``column`` names, else
  in ``label``, else in the one column whose name starts with ``blind`` (with several
  readers' columns, ``column`` must say which).

Labels are names the scheme takes; a sample whose blind label the label map drops is
left out. Rows for ids that are not samples of the evaluation (another benchmark: the
agreement sheet pools several, whose ids may repeat; another split) are ignored and
counted. Matching is by sample id: a sheet pooling benchmarks that share this
benchmark's ids must be cut to this benchmark's rows first.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from scoring.errors import ScoringError
from scoring.evaluate.benchmark import EvaluationSet
from scoring.evaluate.jsonl import LineError, iter_json_objects, open_input, quoted
from scoring.evaluate.schemes import LabelNameError, LabelScheme

__all__ = ["BlindLabels", "read_blind_labels"]

JSONL_HINT = 'each line is {"id": SAMPLE_ID, "label": LABEL}; fix or remove that line'
TSV_HINT = "a header row, then SAMPLE_ID<TAB>…<TAB>LABEL per line; fix or remove that line"


@dataclass(frozen=True, slots=True)
class BlindLabels:
    """Blind labels of the evaluation's samples (sample id -> label of the scheme), the
    column they were read from (``label`` for JSONL) and the rows ignored."""

    path: Path
    labels: dict[str, str]
    column: str
    ignored: int


def read_blind_labels(path: Path, scheme: LabelScheme, evaluation: EvaluationSet, *,
                      column: str | None = None) -> BlindLabels:
    """Read the blind labels in ``path`` (see the module docstring). Raises
    :class:`ScoringError` for a bad line (``FILE:LINE``), a TSV without the columns
    needed, and a file with no label for any sample of the evaluation."""
    open_input(path, "blind labels")
    if _first_char(path) == "{":
        if column not in (None, "label"):
            raise ScoringError(f"--blind-column {column!r}: {path} is JSONL, whose label "
                               'is "label"', "leave --blind-column out")
        rows = _jsonl_rows(path)
        column = "label"
    else:
        column, rows = _tsv_rows(path, column)
    evaluated = evaluation.index()
    labels: dict[str, str] = {}
    first_line: dict[str, int] = {}
    ignored = 0
    for number, sample_id, name, hint in rows:
        try:
            label = scheme.resolve(name)
        except LabelNameError as exc:
            raise LineError(path, number, str(exc), exc.hint or hint) from None
        if sample_id not in evaluated or label is None:
            ignored += 1
            continue
        # Only ids of the evaluation must be unique: a sheet pooling several benchmarks
        # repeats ids that are not this benchmark's (runs of one generator share them).
        if sample_id in first_line:
            raise LineError(path, number, f"sample id {quoted(sample_id)} again (first on "
                            f"line {first_line[sample_id]})",
                            "keep one label per sample of this benchmark (a sheet pooling "
                            "several benchmarks: keep the rows of this one)")
        first_line[sample_id] = number
        labels[sample_id] = label
    if not labels:
        raise ScoringError(f"{path}: no blind label is for a sample of the {evaluation.split} "
                           f"split of {evaluation.source} ({ignored:,} rows for other samples)",
                           "pass the blind labels of this benchmark, or evaluate the split "
                           "they were drawn from (--split all)")
    return BlindLabels(path, labels, column, ignored)


def _first_char(path: Path) -> str:
    with path.open("rb") as stream:
        for raw in stream:
            text = raw.strip()
            if text:
                return chr(text[0])
    raise ScoringError(f"{path}: empty file (blind labels)",
                       "pass the blind labels file (JSONL or TSV with a header)")


def _jsonl_rows(path: Path) -> list[tuple[int, str, str, str]]:
    rows = []
    for number, doc in iter_json_objects(path, "blind labels", JSONL_HINT):
        sample_id, name = doc.get("id"), doc.get("label")
        if not isinstance(sample_id, str) or not sample_id:
            raise LineError(path, number, 'no "id" string (the sample id)', JSONL_HINT)
        if not isinstance(name, str) or not name.strip():
            raise LineError(path, number, 'no "label" string (a blind label names a label)',
                            JSONL_HINT)
        rows.append((number, sample_id, name, JSONL_HINT))
    return rows


def _tsv_rows(path: Path, column: str | None) -> tuple[str, list[tuple[int, str, str, str]]]:
    try:
        lines = path.read_bytes().decode("utf-8").splitlines()
    except UnicodeDecodeError as exc:
        line = path.read_bytes()[:exc.start].count(b"\n") + 1
        raise LineError(path, line, "not UTF-8 text: not a blind labels file (TSV with a "
                        "header, or JSONL)", TSV_HINT) from None
    header = lines[0].rstrip("\r").split("\t")
    id_column = next((c for c in ("sample_id", "id") if c in header), None)
    if id_column is None:
        raise LineError(path, 1, f"no sample_id or id column in the header ({quoted(lines[0])})",
                        TSV_HINT)
    if column is None:
        blind = [c for c in header if c.lower().startswith("blind")]
        if "label" in header:
            column = "label"
        elif len(blind) == 1:
            column = blind[0]
        else:
            raise LineError(path, 1, "which column holds the blind labels? "
                            + (f"several do: {', '.join(map(repr, blind))}" if blind
                               else "no column is named label or blind…"),
                            "name it with --blind-column")
    elif column not in header:
        raise LineError(path, 1, f"no column {column!r} in the header (columns: "
                        f"{', '.join(map(repr, header))})", "check --blind-column")
    at_id, at_label = header.index(id_column), header.index(column)
    rows = []
    for number, text in enumerate(lines[1:], 2):
        if not text.strip():
            continue
        cells = text.rstrip("\r").split("\t")
        if len(cells) <= max(at_id, at_label):
            raise LineError(path, number, f"{len(cells)} columns, the header has "
                            f"{len(header)}", TSV_HINT)
        sample_id, name = cells[at_id].strip(), cells[at_label].strip()
        if not sample_id or not name:
            raise LineError(path, number, f"empty {id_column if not sample_id else column}",
                            TSV_HINT)
        rows.append((number, sample_id, name, TSV_HINT))
    return column, rows
