"""Label schemes: the label set a benchmark is evaluated in, and which names an evaluator
may answer with.

``ours``
    Our four labels: supportive, partially_supportive, contradictory, irrelevant.
``caqa``
    The same four classes by CAQA's names (``prompts.json``: Support, Missing,
    Contradictory, Irrelevant).
``attrscore``
    AttrScore's three labels (Attributable, Extrapolatory, Contradictory). Gold labels
    are mapped as ``kgbench export --to attrscore`` maps them: the same default map
    (partially supportive and irrelevant → Extrapolatory) and the same ``--label-map``.

Every scheme takes ``--label-map`` as ``kgbench export`` does for its format (ours:
``jsonl``, caqa: ``caqa``, attrscore: ``attrscore``); a label mapped to ``drop`` leaves
its gold samples out of the evaluation.

Which names a prediction may use (case, ``-`` and spaces do not matter):

1. a label of the scheme, taken as it is (an evaluator that speaks the scheme's
   vocabulary is read literally);
2. one of our four names or CAQA's four names: the same class, written in the scheme
   through the same map as the gold labels. So ``ours`` and ``caqa`` both take both
   vocabularies (a bijection: nothing is guessed), and ``attrscore`` scores a four-class
   evaluator on three classes as it scores the gold labels. A four-class name that the
   map sends to ``drop`` has no label in the scheme: such a prediction counts as
   unparsed (:data:`scoring.metrics.UNPARSED`);
3. AttrScore's Attributable / Extrapolatory under ``ours`` or ``caqa``: under
   ``--protocol kgbench`` refused, because Extrapolatory does not say whether the
   citation is partially supportive or irrelevant (evaluate with ``--scheme
   attrscore``); under ``--protocol released`` read as CAQA's Table 6 reads its
   AttrScore evaluators (:data:`CAQA_READS_ATTRSCORE`: the ``AttScore`` label map of
   CAQA's prompt file and ``inference.py``), while the gold labels keep four classes;
4. anything else: refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, cast, get_args

from extension.core.labels import (
    ATTRSCORE_LABELS,
    CAQA_LABEL_MAP,
    FORMAT_LABELS,
    LABELS,
    ExportFormat,
    Label,
    label_key,
)
from scoring.errors import ScoringError
from scoring.protocol import ProtocolName

__all__ = ["CAQA_READS_ATTRSCORE", "SCHEMES", "SCHEME_TITLES", "LabelNameError",
           "LabelScheme", "SchemeName", "label_scheme"]

SchemeName = Literal["ours", "caqa", "attrscore"]
SCHEMES: tuple[SchemeName, ...] = get_args(SchemeName)

_EXPORT_FORMAT: Mapping[SchemeName, ExportFormat] = {
    "ours": "jsonl", "caqa": "caqa", "attrscore": "attrscore"}
"""The ``kgbench export`` format whose labels and label map a scheme shares."""

SCHEME_TITLES: Mapping[SchemeName, tuple[str, ...]] = {
    "ours": ("Sup.", "Par.", "Con.", "Irr."), "caqa": ("Sup.", "Par.", "Con.", "Irr."),
    "attrscore": ("Att.", "Ext.", "Con.")}
"""Column titles of each scheme's labels, in label order (CAQA Table 6 for four classes)."""

_FOUR_CLASS_NAMES: Mapping[str, Label] = {
    **{label_key(label): label for label in LABELS},
    **{label_key(name): label for label, name in CAQA_LABEL_MAP.items()}}
"""Our names and CAQA's, each naming one of our four classes."""


CAQA_READS_ATTRSCORE: Mapping[str, Label] = {
    "Attributable": "supportive", "Extrapolatory": "irrelevant"}
"""How CAQA scores an AttrScore evaluator against its four classes (Table 6; the
``AttScore`` task of its prompt file maps Attributable to Support and Extrapolatory to
Irrelevant, Contradictory staying Contradictory): ``--protocol released`` with a
four-class scheme reads AttrScore's labels so."""


class LabelNameError(ScoringError):
    """A label name that the scheme does not take; the message says why (callers add
    the file and line)."""


@dataclass(frozen=True, slots=True)
class LabelScheme:
    """A scheme (see the module docstring): its labels in table order, how each of our
    labels is written in it (``None``: dropped), and the names it takes."""

    name: SchemeName
    labels: tuple[str, ...]
    gold_map: Mapping[Label, str | None]
    foreign: Mapping[str, Label] = field(default_factory=dict)
    """Other labels' names (by :func:`label_key`) the scheme reads as one of our
    labels: :data:`CAQA_READS_ATTRSCORE` under ``--protocol released``."""

    @property
    def titles(self) -> tuple[str, ...]:
        """Short column titles of :attr:`labels` (CAQA Table 6: Sup. Par. Con. Irr.)."""
        return SCHEME_TITLES[self.name]

    def gold(self, label: Label) -> str | None:
        """The scheme's label of a sample labelled ``label``; ``None`` when the label
        map drops it."""
        return self.gold_map[label]

    def resolve(self, name: str) -> str | None:
        """The scheme's label an evaluator means by ``name`` (rules 1-4 of the module
        docstring); ``None`` for a four-class name the map drops. Raises
        :class:`LabelNameError` for a name the scheme does not take."""
        key = label_key(name)
        own = {label_key(label): label for label in self.labels}
        if key in own:
            return own[key]
        if key in _FOUR_CLASS_NAMES:
            return self.gold_map[_FOUR_CLASS_NAMES[key]]
        if key in self.foreign:
            return self.gold_map[self.foreign[key]]
        if key in {label_key(a) for a in ATTRSCORE_LABELS}:
            raise LabelNameError(
                f"{name!r} is an AttrScore label, which the {self.name} scheme cannot take "
                "(Extrapolatory does not tell partially supportive from irrelevant)",
                "evaluate with --scheme attrscore, or with --protocol released (which "
                "reads Extrapolatory as irrelevant, as CAQA Table 6 does)")
        raise LabelNameError(f"{name[:80]!r} is not a label of the {self.name} scheme",
                             f"use one of {', '.join(self.accepted_names())}")

    def accepted_names(self) -> list[str]:
        """The names :meth:`resolve` takes, the scheme's own first."""
        names = list(self.labels)
        for extra in (*LABELS, *CAQA_LABEL_MAP.values()):
            if label_key(extra) not in {label_key(n) for n in names}:
                names.append(extra)
        return names


def label_scheme(name: str, label_map: Mapping[str, str] | None = None, *,
                 protocol: ProtocolName = "kgbench") -> LabelScheme:
    """The scheme called ``name`` (any case) with ``label_map`` overriding its default
    map of our labels (``kgbench export``'s ``--label-map``, checked as there); under
    the ``released`` protocol a four-class scheme also reads AttrScore's labels
    (:data:`CAQA_READS_ATTRSCORE`). Raises :class:`ScoringError` for an unknown scheme
    or a bad map."""
    from extension.outputs.export import ExportError, resolve_label_map

    choice = name.strip().lower()
    if choice not in SCHEMES:
        raise ScoringError(f"unknown label scheme {name!r}",
                           f"use --scheme with one of {', '.join(SCHEMES)}")
    scheme = cast(SchemeName, choice)
    fmt = _EXPORT_FORMAT[scheme]
    try:
        gold_map = resolve_label_map(fmt, label_map)
    except ExportError as exc:   # said of the export format; say it of the scheme
        def said(text: str) -> str:
            return text.replace(f"{fmt} label", f"{scheme} label")
        raise ScoringError(said(str(exc)), exc.hint and said(exc.hint)) from None
    foreign: dict[str, Label] = {}
    if protocol == "released" and scheme != "attrscore":
        foreign = {label_key(name): label for name, label in CAQA_READS_ATTRSCORE.items()}
    return LabelScheme(scheme, tuple(FORMAT_LABELS[fmt]), gold_map, foreign)
