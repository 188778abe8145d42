"""The evaluation document: CAQA Table 6's numbers for one evaluator, and the §6.2 and
§6.3 extras, built from predictions with :mod:`scoring.metrics`.

This module holds kgbench's definitions (``--protocol kgbench``);
:mod:`scoring.evaluate.protocol_released` computes the same keys as the released code
does. The command's JSON names the protocol first (``protocol``). The document has
exactly these keys (the issue's contract, kept stable for programs):
``per_label`` (label -> ``precision``, ``recall``, ``f1``, ``support``),
``per_complexity`` (complexity -> ``micro_f1``, ``support``), ``overall_micro_f1``,
``macro_f1``, ``confusion`` (gold label -> predicted label or ``unparsed`` -> count),
``n`` and ``unparsed``. Labels are the scheme's, in its order; complexities are ours
(single, union, intersection, concatenation). Keys are added only by the options that
ask for them: ``consistency`` (``--blind-labels``, :func:`consistency`),
``fine_grained`` (``--sub-facts``, :func:`fine_grained`) and ``runtime`` (``--model``:
the onnxruntime provider that really ran).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from extension.core.labels import COMPLEXITIES
from scoring import metrics
from scoring.evaluate.benchmark import EvalSample
from scoring.evaluate.blind import BlindLabels
from scoring.evaluate.schemes import LabelScheme
from scoring.evaluate.subfacts import SubFactCalls

__all__ = ["DOCUMENT_KEYS", "consistency", "fine_grained", "table_document"]

DOCUMENT_KEYS = ("per_label", "per_complexity", "overall_micro_f1", "macro_f1", "confusion",
                 "n", "unparsed")


def table_document(samples: Sequence[EvalSample], predicted: Sequence[str | None],
                   scheme: LabelScheme) -> dict[str, Any]:
    """The document of :data:`DOCUMENT_KEYS` for ``predicted[i]`` (a label of
    ``scheme``, or ``None``: unparsed) against the gold label of ``samples[i]``: CAQA
    §5.2 / Table 6 (per-label F1, per-complexity and overall micro-F1) with precision,
    recall, support, macro-F1 and the confusion matrix (:mod:`scoring.metrics`, whose
    conventions apply: unparsed replies count in ``n`` as wrong predictions, so
    ``overall_micro_f1`` is the accuracy)."""
    gold = [s.gold for s in samples]
    confusion = metrics.confusion_matrix(gold, predicted, scheme.labels)
    by_complexity = metrics.grouped_micro_f1([s.complexity for s in samples], gold, predicted,
                                             scheme.labels, COMPLEXITIES)
    label_scores = metrics.per_label(confusion)
    return {
        "per_label": {label: scores.to_json() for label, scores in label_scores.items()},
        "per_complexity": {c: score.to_json() for c, score in by_complexity.items()},
        "overall_micro_f1": metrics.micro_f1(confusion),
        "macro_f1": metrics.macro_f1(confusion),
        "confusion": confusion,
        "n": len(samples),
        "unparsed": sum(p is None for p in predicted),
    }


def consistency(samples: Sequence[EvalSample], blind: BlindLabels,
                evaluators: Mapping[str, Mapping[str, str | None]],
                scheme: LabelScheme) -> dict[str, Any]:
    """CAQA §6.2 in small: on the samples that have a blind label, each evaluator's
    overall micro-F1 against the generated labels and against the blind ones (both
    "treated as ground truth"), and the Pearson correlation of the two series over
    the evaluators (``null`` with fewer than two evaluators or no variance). Also the
    share of those samples whose blind label is the generated one. ``evaluators`` maps
    a name to its predictions by sample id."""
    subset = [s for s in samples if s.id in blind.labels]
    generated = [s.gold for s in subset]
    reference = [blind.labels[s.id] for s in subset]
    names, on_generated, on_blind = [], [], []
    for name, labels in evaluators.items():
        predicted = [labels[s.id] for s in subset]
        names.append(name)
        on_generated.append(metrics.micro_f1(
            metrics.confusion_matrix(generated, predicted, scheme.labels)))
        on_blind.append(metrics.micro_f1(
            metrics.confusion_matrix(reference, predicted, scheme.labels)))
    return {
        "blind_labels": str(blind.path),
        "samples": len(subset),
        "label_agreement": metrics.ratio(
            sum(g == b for g, b in zip(generated, reference, strict=True)), len(subset)),
        "evaluators": [{"name": n, "micro_f1_generated": g, "micro_f1_blind": b}
                       for n, g, b in zip(names, on_generated, on_blind, strict=True)],
        "pearson": metrics.pearson(on_generated, on_blind),
    }


def fine_grained(samples: Sequence[EvalSample], calls: SubFactCalls) -> dict[str, Any]:
    """CAQA §6.3 / Table 7: the evaluator's FActScore (share of the sub-facts it calls
    supported, pooled), the benchmark's own FActScore over the same sub-facts (its
    ``sub_facts[].supported``, known by construction), the error rate |difference|, and
    the share of sub-facts on which the two agree (which the error rate alone cannot
    show: errors in both directions cancel in it)."""
    judged = [(call, truth) for s in samples if s.id in calls.calls
              for call, truth in zip(calls.calls[s.id], s.sub_facts, strict=True)]
    evaluator = metrics.factscore(call for call, _ in judged)
    benchmark = metrics.factscore(truth for _, truth in judged)
    return {
        "sub_facts_file": str(calls.path),
        "samples": sum(s.id in calls.calls for s in samples),
        "sub_facts": len(judged),
        "factscore": evaluator,
        "factscore_benchmark": benchmark,
        "error_rate": (None if evaluator is None or benchmark is None
                       else metrics.factscore_error_rate(evaluator, benchmark)),
        "agreement": (metrics.ratio(sum(c == t for c, t in judged), len(judged)) if judged
                      else None),
    }
