"""``kgbench evaluate --protocol released``: CAQA Table 6's and AttrScore's numbers as
their released code computes them, re-implemented from reading that code (CAQA-Benchmark
``inference.py`` at 28ba16c; AttrScore ``inference_alpaca.py`` at adbd919, whose reading
of replies and scores are the same). kgbench ships none of that code.

Where the released code differs from kgbench's default (README, "Protocols"):

1. Reply → label (:func:`parse_reply_released`): the first case-insensitive occurrence
   in the reply of any option of the prompt's label map — inside words too, the options
   tried in the file's order at each position. The text found, capitalised (first
   letter upper, the rest lower), must be an option of the map, else the reply is
   unparsed: "unsupported" reads as Support; a multi-word option such as "Not Enough
   Information" is never read.
2. Unparsed replies leave the evaluation: the confusion matrix is built with the
   scheme's labels only, which drops a prediction that is no label, so it counts in no
   precision, recall or micro-F1 (kgbench: a wrong prediction).
3. 0 / 0 is NaN (kgbench: 0.0): the precision of a label never predicted, the recall of
   a label without a parsed gold sample, the F1 of a label with no true positive (its
   precision and recall are both 0 or NaN), the micro-F1 of an empty matrix. Macro-F1
   is the plain mean of the per-label F1 over every label of the scheme, so one NaN
   makes it NaN. NaN is written as JSON ``null``.
4. Micro-F1 is correct / predictions in the matrix. The released scripts report no
   per-complexity score; Table 6's S. C. I. U. columns are the same micro-F1 over each
   complexity's matrix.
5. AttrScore and AutoIS evaluators in CAQA's Table 6 keep CAQA's four gold classes;
   their predictions are read into them (Attributable → Support, Extrapolatory →
   Irrelevant; AutoIS 1 → Support, 0 → Irrelevant): see
   :data:`scoring.evaluate.schemes.CAQA_READS_ATTRSCORE` and
   :data:`scoring.evaluate.model_evaluator.AUTOIS_MAP`.

What the released scripts do that no number depends on is not reproduced: sampling
(``do_sample=True`` in CAQA's script: kgbench asks at temperature 0), cutting the prompt
to the model's first 512 tokens (a tokenizer kgbench does not have; an endpoint keeps
the whole prompt), and the Alpaca preamble sentence before ``### Instruction:``, which
is not kgbench's to ship (add it as the ``preamble`` of your prompt file's entry).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from extension.core.labels import COMPLEXITIES
from scoring.evaluate.benchmark import EvalSample
from scoring.evaluate.schemes import LabelScheme
from scoring.metrics import UNPARSED, Confusion, LabelScores, confusion_matrix

__all__ = ["parse_reply_released", "released_label_scores", "released_macro_f1",
           "released_micro_f1", "released_table_document"]

NAN = math.nan


def parse_reply_released(reply: str, options: Mapping[str, str]) -> str | None:
    """The label the released scripts read from ``reply`` (rule 1 of the module
    docstring), or ``None`` (unparsed).

    The options are matched as literal text (the released scripts join them into a
    regular expression unescaped; the options of the papers' prompt files hold no
    character a regular expression treats specially, so the result is the same, and a
    user's file never becomes a pattern)."""
    if not options:
        return None
    found = re.search("|".join(re.escape(option) for option in options), reply,
                      re.IGNORECASE)
    if found is None:
        return None
    return options.get(found.group().capitalize())


def _ratio(numerator: float, denominator: float) -> float:
    """``numerator / denominator``; NaN when the denominator is 0 (numpy's 0/0)."""
    return numerator / denominator if denominator else NAN


def _parsed(confusion: Confusion) -> dict[str, dict[str, int]]:
    """The matrix the released code builds: the scheme's labels only (rule 2)."""
    labels = list(confusion)
    return {g: {p: confusion[g][p] for p in labels} for g in labels}


def released_label_scores(confusion: Confusion) -> dict[str, LabelScores]:
    """Precision, recall and F1 of each label as the released ``evaluate_confusion_matrix``
    computes them on the parsed predictions (rules 2 and 3): TP / column, TP / row,
    2PR / (P + R), NaN for 0/0. ``support`` is the row: the label's gold samples with a
    parsed prediction (the released recall's denominator)."""
    matrix = _parsed(confusion)
    scores = {}
    for label, row in matrix.items():
        tp = row[label]
        column = sum(matrix[g][label] for g in matrix)
        support = sum(row.values())
        precision, recall = _ratio(tp, column), _ratio(tp, support)
        f1 = _ratio(2 * precision * recall, precision + recall)   # NaN in, NaN out
        scores[label] = LabelScores(precision, recall, f1, support)
    return scores


def released_micro_f1(confusion: Confusion) -> float:
    """Correct / predictions in the parsed matrix (rule 4); NaN when it is empty."""
    matrix = _parsed(confusion)
    total = sum(sum(row.values()) for row in matrix.values())
    return _ratio(sum(row[label] for label, row in matrix.items()), total)


def released_macro_f1(confusion: Confusion) -> float:
    """The mean of :func:`released_label_scores`' F1 over every label (rule 3): NaN as
    soon as one label's F1 is NaN."""
    scores = released_label_scores(confusion)
    return math.fsum(s.f1 for s in scores.values()) / len(scores) if scores else NAN


def released_table_document(samples: Sequence[EvalSample], predicted: Sequence[str | None],
                            scheme: LabelScheme) -> dict[str, Any]:
    """The evaluation document (:data:`scoring.evaluate.report.DOCUMENT_KEYS`) with the
    released code's numbers. ``confusion`` keeps the unparsed column, to show what the
    numbers leave out; ``unparsed`` counts those replies; ``n`` every sample."""
    gold = [s.gold for s in samples]
    confusion = confusion_matrix(gold, predicted, scheme.labels)
    per_complexity = {}
    for complexity in COMPLEXITIES:
        members = [i for i, s in enumerate(samples) if s.complexity == complexity]
        group = confusion_matrix([gold[i] for i in members], [predicted[i] for i in members],
                                 scheme.labels)
        parsed = sum(1 for i in members if predicted[i] is not None)
        per_complexity[complexity] = {"micro_f1": released_micro_f1(group), "support": parsed}
    return {
        "per_label": {label: s.to_json()
                      for label, s in released_label_scores(confusion).items()},
        "per_complexity": per_complexity,
        "overall_micro_f1": released_micro_f1(confusion),
        "macro_f1": released_macro_f1(confusion),
        "confusion": confusion,
        "n": len(samples),
        "unparsed": sum(row[UNPARSED] for row in confusion.values()),
    }
