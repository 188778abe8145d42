"""The benchmark's label vocabulary: sample labels and complexities (CAQA §4.2,
Table 4), the export formats and how our four labels map onto theirs.

One home for these names, and a module that imports nothing else of the engine: the
CLI shows them in ``--help``, which should not have to load networkx and rdflib.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, get_args

Label = Literal["supportive", "partially_supportive", "contradictory", "irrelevant"]
LABELS: tuple[Label, ...] = get_args(Label)
Complexity = Literal["single", "union", "intersection", "concatenation"]
"""Complexity of an extended query (Table 4): single-tree -> ``single``, union-tree ->
``union``, tree -> ``intersection``, path -> ``concatenation``."""
COMPLEXITIES: tuple[Complexity, ...] = get_args(Complexity)

Split = Literal["train", "test"]
"""Splits are by source question: no question has samples in both."""
SPLITS: tuple[Split, ...] = get_args(Split)

ExportFormat = Literal["caqa", "attrscore", "alce", "jsonl"]
EXPORT_FORMATS: tuple[ExportFormat, ...] = get_args(ExportFormat)
SplitChoice = Literal["train", "test", "all"]
SPLIT_CHOICES: tuple[SplitChoice, ...] = get_args(SplitChoice)
DROP = "drop"
"""Label-map target that leaves a label's samples out of the export."""

CAQA_LABELS = ("Support", "Missing", "Contradictory", "Irrelevant")
CAQA_LABEL_MAP: Mapping[Label, str] = {
    "supportive": "Support", "partially_supportive": "Missing",
    "contradictory": "Contradictory", "irrelevant": "Irrelevant"}
ATTRSCORE_LABELS = ("Attributable", "Extrapolatory", "Contradictory")
ATTRSCORE_LABEL_MAP: Mapping[Label, str] = {
    "supportive": "Attributable", "partially_supportive": "Extrapolatory",
    "contradictory": "Contradictory", "irrelevant": "Extrapolatory"}

FORMAT_LABELS: Mapping[ExportFormat, tuple[str, ...]] = {
    "caqa": CAQA_LABELS, "attrscore": ATTRSCORE_LABELS, "alce": LABELS, "jsonl": LABELS}
"""The labels each format's files may carry."""
DEFAULT_LABEL_MAPS: Mapping[ExportFormat, Mapping[Label, str]] = {
    "caqa": CAQA_LABEL_MAP, "attrscore": ATTRSCORE_LABEL_MAP,
    "alce": {label: label for label in LABELS}, "jsonl": {label: label for label in LABELS}}


def label_key(name: str) -> str:
    """How label names are compared: without regard to case, ``-`` or spaces
    (``"Partially-Supportive"`` and ``partially_supportive`` are one label)."""
    return name.strip().lower().replace("-", "_").replace(" ", "_")
