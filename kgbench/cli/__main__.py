"""``python -m kgbench.cli`` runs the command line (same as the ``kgbench`` script)."""

import sys

try:
    from kgbench.cli.app import main
except KeyboardInterrupt:  # Ctrl-C while the app is imported: one line, like any interrupt
    sys.stderr.write("interrupted\n")
    raise SystemExit(130) from None

if __name__ == "__main__":
    main()
