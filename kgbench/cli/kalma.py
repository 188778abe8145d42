"""``kgbench kalma ...``: KaLMA / BioKaLMA benchmarks (Li et al.). ``generate`` builds
entries from a loaded KG, ``import`` / ``export`` convert BioKaLMA's own files, ``score``
measures systems' cited answers against entries.

The work is in :mod:`kalma`; this module is the options and the tables around them.
"""

from __future__ import annotations

import typer

kalma_app = typer.Typer(
    help=(
        "KaLMA benchmarks: questions whose answers must cite KG triples, with a minimum "
        "knowledge set and conscious-incompetence ([NA]) variants, and the metrics that score "
        "cited answers.\n\n"
        "Example: kgbench kalma generate --store ./kgbench-data/demo-store --domain people.person "
        "--n 20 --out kalma-demo --seed 1"
    ),
    no_args_is_help=True,
)

# --- kalma generate (h/kgen) -------------------------------------------------------


# --- kalma import / export (h/kgen) ------------------------------------------------


# --- kalma score (h/kscore) ---------------------------------------------------------
