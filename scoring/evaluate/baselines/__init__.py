"""Shortcut baselines (``kgbench evaluate BENCH --baseline overlap|length|embed:DIR``):
what a classifier of surface features, fitted on the train split, gets on the test
split, beside chance (CAQA §6: evaluators lean on keyword co-occurrence).

:func:`~scoring.evaluate.baselines.shortcut.evaluate_shortcut` is the use case; the
features are in :mod:`~scoring.evaluate.baselines.features`, the classifier in
:mod:`~scoring.evaluate.baselines.logistic`, and ``baselines.json`` with the report
section in :mod:`~scoring.evaluate.baselines.record`.
"""

from scoring.evaluate.baselines.record import BASELINES_FILE, record_shortcut
from scoring.evaluate.baselines.shortcut import (
    BaselineSpec,
    ShortcutReport,
    evaluate_shortcut,
    parse_baseline,
)

__all__ = ["BASELINES_FILE", "BaselineSpec", "ShortcutReport", "evaluate_shortcut",
           "parse_baseline", "record_shortcut"]
