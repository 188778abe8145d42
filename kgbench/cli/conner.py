"""``kgbench conner score``: CONNER's six perspectives on generated knowledge (Chen et
al., 2023): factuality, relevance, coherence, informativeness, helpfulness, validity.

The work is in :mod:`scoring.conner`; this module is the options and the tables around
them.
"""

from __future__ import annotations

import typer

conner_app = typer.Typer(
    help=(
        "CONNER: score generated knowledge from six perspectives (factuality, relevance, "
        "coherence, informativeness, helpfulness, validity) with exported ONNX models.\n\n"
        "Example: kgbench conner score sysA.jsonl sysB.jsonl --nli models/nli --out conner-out"
    ),
    no_args_is_help=True,
)
