"""The metrics of an attribution evaluator: pure functions, each citing the paper it follows.

CAQA (Hu et al., *Can LLMs Evaluate Complex Attribution in QA?*) §5.2 reports an F1 per
attribution category and a micro-F1 per complexity level and over all samples (Table 6);
§6.2 correlates evaluators' overall micro-F1 on generated and on human labels (Pearson);
§6.3 and Appendix C score the partially supportive scenario with FActScore (Min et al.,
2023) and an error rate against a reference (Table 7). AttrScore (Yue et al.,
*Automatic Evaluation of Attribution by Large Language Models*) §4.2 reports an F1 per
class and the micro-F1, which equals the accuracy.

These are kgbench's definitions (``--protocol kgbench``); the released code's are in
:mod:`scoring.evaluate.protocol_released`.

Conventions, one for every function here:

* A prediction is a label name, or ``None`` for an evaluator reply that named no label
  (:data:`UNPARSED`). An unparsed reply is a wrong prediction that counts in ``n``; the
  confusion matrix gives it a column of its own, so it is seen, never mapped to a label.
* A ratio whose denominator is 0 is 0.0 (scikit-learn's ``zero_division=0``): the
  precision of a label never predicted, the recall of a label with no gold sample, the
  F1 of a label with neither, the micro-F1 of an empty group. A caller that must tell
  "0 because empty" from "0 because wrong" reads ``support`` beside it.
* Nothing here ranks labels, so no tie is broken here: label ties are settled where a
  label is chosen (the reply parser, the model's argmax), not when it is scored.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["UNPARSED", "Confusion", "GroupScore", "LabelScores", "confusion_matrix",
           "f1_score", "factscore", "factscore_error_rate", "grouped_micro_f1", "macro_f1",
           "micro_f1", "pearson", "per_label", "ratio"]

UNPARSED = "unparsed"
"""The confusion-matrix column of predictions that are no label (an LLM reply naming none,
or more than one)."""

Confusion = dict[str, dict[str, int]]
"""gold label -> predicted label (or :data:`UNPARSED`) -> count."""


def ratio(numerator: float, denominator: float) -> float:
    """``numerator / denominator``, and 0.0 when the denominator is 0 (the module's
    convention for empty classes and groups)."""
    return numerator / denominator if denominator else 0.0


def f1_score(precision: float, recall: float) -> float:
    """The harmonic mean of ``precision`` and ``recall`` (0.0 when both are 0)."""
    return ratio(2 * precision * recall, precision + recall)


@dataclass(frozen=True, slots=True)
class LabelScores:
    """Precision, recall and F1 of one label, and its support (gold samples)."""

    precision: float
    recall: float
    f1: float
    support: int

    def to_json(self) -> dict[str, Any]:
        return {"precision": self.precision, "recall": self.recall, "f1": self.f1,
                "support": self.support}


@dataclass(frozen=True, slots=True)
class GroupScore:
    """The micro-F1 of a group of samples (a complexity) and how many there are."""

    micro_f1: float
    support: int

    def to_json(self) -> dict[str, Any]:
        return {"micro_f1": self.micro_f1, "support": self.support}


def confusion_matrix(gold: Sequence[str], predicted: Sequence[str | None],
                     labels: Sequence[str]) -> Confusion:
    """gold label -> predicted label -> count, with a row for every label of ``labels``
    (an empty class keeps its row of zeros) and a column for every label plus
    :data:`UNPARSED`, which counts the ``None`` predictions (CAQA §5.2's categories;
    the unparsed column is ours: an evaluator's unusable reply is an outcome, not a
    label).

    Raises ``ValueError`` when the sequences differ in length or hold a label that is
    not in ``labels`` (callers map names to the scheme's labels first)."""
    if len(gold) != len(predicted):
        raise ValueError(f"{len(gold)} gold labels but {len(predicted)} predictions")
    if UNPARSED in labels:
        raise ValueError(f"{UNPARSED!r} is the column of unparsed replies, not a label")
    columns = [*labels, UNPARSED]
    matrix: Confusion = {g: dict.fromkeys(columns, 0) for g in labels}
    for g, p in zip(gold, predicted, strict=True):
        if g not in matrix:
            raise ValueError(f"gold label {g!r} is not one of {list(labels)}")
        column = UNPARSED if p is None else p
        if column not in matrix[g]:
            raise ValueError(f"predicted label {p!r} is not one of {list(labels)}")
        matrix[g][column] += 1
    return matrix


def per_label(confusion: Confusion) -> dict[str, LabelScores]:
    """Precision, recall, F1 and support of each label (CAQA §5.2, Table 6: the F1 of
    each attribution category; AttrScore §4.2).

    precision = TP / predicted as the label, recall = TP / gold samples of the label
    (support), F1 their harmonic mean; 0/0 is 0.0, so a label never predicted has
    precision 0.0 (not undefined) and a label with no gold sample recall 0.0. Unparsed
    predictions are no label's: they lower the recall of their gold label and no
    precision."""
    labels = list(confusion)
    scores = {}
    for label in labels:
        tp = confusion[label][label]
        support = sum(confusion[label].values())
        predicted = sum(confusion[g][label] for g in labels)
        precision, recall = ratio(tp, predicted), ratio(tp, support)
        scores[label] = LabelScores(precision, recall, f1_score(precision, recall), support)
    return scores


def micro_f1(confusion: Confusion) -> float:
    """Micro-averaged F1 over every sample (CAQA §5.2, Table 6 "Overall"; AttrScore
    §4.2, where it equals the accuracy).

    TP, FP and FN are summed over all columns, the :data:`UNPARSED` one included (an
    unparsed reply is a false positive of that column and a false negative of its gold
    label). With exactly one prediction per sample, summed FP = summed FN = the wrong
    predictions, so micro-precision = micro-recall = micro-F1 = correct / n: the
    accuracy, unparsed replies counting as wrong. 0.0 for no samples."""
    n = sum(sum(row.values()) for row in confusion.values())
    correct = sum(row[label] for label, row in confusion.items())
    return ratio(correct, n)


def macro_f1(confusion: Confusion) -> float:
    """The unweighted mean of the per-label F1 (:func:`per_label`) over the labels
    that occur, as gold or as prediction: scikit-learn's ``f1_score(average="macro")``
    with its default ``labels`` (those present in ``y_true`` or ``y_pred``).

    A label of the scheme with no gold sample and no prediction is left out (it is not
    a class of this evaluation: averaging its 0/0 = 0.0 would penalise an evaluator for
    a split that lacks the class), while a label predicted but never gold stays in,
    with F1 0.0. :data:`UNPARSED` is not a label and is never averaged (unparsed
    replies already lower the recall of their gold labels). Without unparsed replies
    this equals scikit-learn's value. 0.0 when no label occurs. (CAQA reports
    per-category F1 and micro-F1; macro-F1 is the usual summary that weighs rare
    categories as much as common ones.)"""
    scores = per_label(confusion)
    present = [label for label, s in scores.items()
               if s.support > 0 or any(row[label] for row in confusion.values())]
    return ratio(sum(scores[label].f1 for label in present), len(present))


def grouped_micro_f1(groups: Sequence[str], gold: Sequence[str],
                     predicted: Sequence[str | None], labels: Sequence[str],
                     group_names: Sequence[str]) -> dict[str, GroupScore]:
    """The micro-F1 (:func:`micro_f1`) and support of each group of samples, for every
    name of ``group_names`` in that order (a group without samples: 0.0, support 0) —
    CAQA §5.2's micro-F1 of each complexity level (Table 6, columns S. C. I. U.). ``groups[i]`` is the group of sample ``i``; a group
    not in ``group_names`` raises ``ValueError``."""
    if not len(groups) == len(gold) == len(predicted):
        raise ValueError("groups, gold and predicted differ in length")
    members: dict[str, list[int]] = {name: [] for name in group_names}
    for i, group in enumerate(groups):
        if group not in members:
            raise ValueError(f"group {group!r} is not one of {list(group_names)}")
        members[group].append(i)
    return {name: GroupScore(
        micro_f1(confusion_matrix([gold[i] for i in idx], [predicted[i] for i in idx],
                                  labels)), len(idx))
        for name, idx in members.items()}


def pearson(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Pearson's correlation coefficient of two paired series (CAQA §6.2: the
    evaluators' overall micro-F1 on generated vs. human labels, r = 0.97 there).

    ``None`` when it is undefined: fewer than two pairs, or a series with no variance
    (every evaluator scoring the same). With exactly two pairs it is ±1 by
    construction. Raises ``ValueError`` for series of different lengths."""
    if len(xs) != len(ys):
        raise ValueError(f"{len(xs)} values against {len(ys)}")
    n = len(xs)
    if n < 2:
        return None
    mx, my = math.fsum(xs) / n, math.fsum(ys) / n
    sxy = math.fsum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    sxx = math.fsum((x - mx) ** 2 for x in xs)
    syy = math.fsum((y - my) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        return None
    return max(-1.0, min(1.0, sxy / math.sqrt(sxx * syy)))


def factscore(calls: Iterable[bool]) -> float | None:
    """The share of sub-facts called supported (CAQA §6.3 and Appendix C, after Min et
    al. 2023: sub-facts judged true over sub-facts judged), pooled over every sub-fact
    of every sample, as CAQA computes it (not averaged per sample). ``None`` for no
    sub-facts."""
    total = supported = 0
    for call in calls:
        total += 1
        supported += bool(call)
    return supported / total if total else None


def factscore_error_rate(evaluator: float, reference: float) -> float:
    """CAQA Table 7's error rate (ER): |FActScore of the evaluator − FActScore of the
    reference| over the same sub-facts. Table 7 measures it against human annotation,
    and its rows give exactly this difference (GPT-4: |0.84 − 0.58| = 0.26; CAQA*:
    |0.62 − 0.58| = 0.04), the definition of Min et al. 2023; here the reference is the
    benchmark's own ``sub_facts`` (known by construction, CAQA §6.3)."""
    return abs(evaluator - reference)

