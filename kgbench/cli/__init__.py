"""The ``kgbench`` command line: a package of thin Typer commands.

:mod:`kgbench.cli.app` creates the app and registers every command module; the
command modules (``load``, ``explore``, ``cypher``, ``questions``, ``extend``,
``generate``, ``export``, ``demo``) parse options, call the use-case functions of the
packages below (:mod:`loaders`, :mod:`extension`, :mod:`kgstore`, :mod:`kgbench.demo`),
which print nothing, and print what those return through the shared
:mod:`~kgbench.cli.output`, :mod:`~kgbench.cli.render` and :mod:`~kgbench.cli.errors`.

:func:`main` is the console script (``kgbench = "kgbench.cli:main"``); it imports the
app when called, so importing a submodule of this package does not build the whole app.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> None:
    """Run the command line (see :func:`kgbench.cli.app.main`). Ctrl-C while the app
    is still being imported ends quietly too: one line, exit 130."""
    try:
        from kgbench.cli.app import main as run
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        raise SystemExit(130) from None
    run(argv)
