"""The blind readers' 1–5 ratings of a sample's English (issue 34), beside the label
agreement of ``bench/label_agreement.py``.

Each reader rates the QUESTION (q̃), the ANSWER statement (ã) and the CITATION of every
item of the blind sheet on :data:`SCALE`. Reported per part: the mean and the share of
items rated 2 or lower, over all readers together, per reader, per KG and per generated
label, with issue 34's bar (:data:`BAR_MEAN`, :data:`BAR_LOW_SHARE`) checked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

PARTS = ("question", "answer", "citation")
SCALE = """\
Also rate the English of each part, as a careful reader would, from 1 to 5:
  1  garbled, or shows ids or codes
  2  joined relation names or placeholders ("something", "Which entity", "the one that")
  3  understandable but unnatural
  4  natural, with small flaws
  5  fluent
"""
LOW = 2
"""A rating at or below this is a failure of the text ("garbled" or "joined relation names")."""
BAR_MEAN = 4.3
BAR_LOW_SHARE = 0.05
"""Issue 34's bar: a mean of at least 4.3 for each part, and at most 5% of the items
rated 2 or lower on any of the three parts."""

Ratings = tuple[int, int, int]


def parse_ratings(fields: Sequence[str]) -> Ratings | None:
    """The three ratings in ``fields`` (the columns after the label), or None when the
    first is not a rating (an old sheet: a note there); ValueError for a partial or
    out-of-range triple."""
    if not fields or not fields[0].strip().isdigit():
        return None
    values = [f.strip() for f in fields[:3]]
    if len(values) < 3 or not all(v.isdigit() and 1 <= int(v) <= 5 for v in values):
        raise ValueError("expected three ratings 1–5 (question, answer, citation) after the "
                         f"label; got {fields[:3]!r}")
    return (int(values[0]), int(values[1]), int(values[2]))


def summary(ratings: Sequence[Ratings]) -> dict[str, Any]:
    """``n``; per part its ``mean`` and ``low_share`` (rated <= :data:`LOW`); and
    ``any_low_share``, the share of items rated <= :data:`LOW` on any part."""
    n = len(ratings)
    out: dict[str, Any] = {"n": n}
    for i, part in enumerate(PARTS):
        values = [r[i] for r in ratings]
        out[part] = {"mean": round(sum(values) / n, 3) if n else None,
                     "low_share": round(sum(v <= LOW for v in values) / n, 4) if n else None}
    out["any_low_share"] = round(sum(min(r) <= LOW for r in ratings) / n, 4) if n else None
    return out


def meets_bar(s: Mapping[str, Any]) -> bool:
    """Whether a :func:`summary` meets issue 34's bar: every part's mean >= 4.3, and at
    most 5% of the items rated <= 2 on any of the three parts."""
    return s["n"] > 0 and s["any_low_share"] <= BAR_LOW_SHARE \
        and all(s[p]["mean"] >= BAR_MEAN for p in PARTS)


def grouped(rows: Sequence[Mapping[str, Any]], field: str) -> dict[str, dict[str, Any]]:
    """:func:`summary` of the rows (each with ``ratings``) per value of ``field``."""
    values = sorted({str(r[field]) for r in rows})
    return {v: summary([r["ratings"] for r in rows if str(r[field]) == v]) for v in values}


def ratings_result(rows_by_reader: Mapping[str, Sequence[Mapping[str, Any]]]) -> dict[str, Any]:
    """All readers' ratings (rows: the key's fields plus ``ratings``): pooled, per reader,
    and, pooled, per KG and per generated label; with the bar checked."""
    pooled = [r for rows in rows_by_reader.values() for r in rows]
    overall = summary([r["ratings"] for r in pooled])
    return {"all_readers": overall, "meets_issue34_bar": meets_bar(overall),
            "by_reader": {name: summary([r["ratings"] for r in rows])
                          for name, rows in rows_by_reader.items()},
            "by_kg": grouped(pooled, "kg"), "by_label": grouped(pooled, "label"),
            "bar": {"mean_at_least": BAR_MEAN, "low_share_at_most": BAR_LOW_SHARE}}


def _row(name: str, s: Mapping[str, Any]) -> str:
    cells = [f"{s[p]['mean']:.2f} | {100 * s[p]['low_share']:.1f}%" for p in PARTS]
    return (f"| {name} | {s['n']} | " + " | ".join(cells)
            + f" | {100 * s['any_low_share']:.1f}% |")


def markdown(result: Mapping[str, Any]) -> list[str]:
    """The ratings section of ``label_agreement.md``."""
    head = ["| group | n | " + " | ".join(f"{p} mean | {p} ≤ {LOW}" for p in PARTS)
            + f" | any part ≤ {LOW} |", "|---|---:|" + "---:|---:|" * len(PARTS) + "---:|"]
    overall = result["all_readers"]
    lines = ["## English ratings (issue 34)", "", SCALE.strip().replace("\n", "  \n"), "",
             f"Bar: every part's mean ≥ {BAR_MEAN}, and ≤ {100 * BAR_LOW_SHARE:.0f}% of the items "
             f"rated ≤ {LOW} on any part. All readers together: "
             f"**{'met' if result['meets_issue34_bar'] else 'not met'}**.",
             "", *head, _row("all readers", overall),
             *[_row(f"Ratings of {n}", s) for n, s in result["by_reader"].items()],
             *[_row(f"KG: {k}", s) for k, s in result["by_kg"].items()],
             *[_row(f"label: {k}", s) for k, s in result["by_label"].items()], ""]
    return lines


__all__ = ["BAR_LOW_SHARE", "BAR_MEAN", "LOW", "PARTS", "SCALE", "grouped", "markdown",
           "meets_bar", "parse_ratings", "ratings_result", "summary"]
