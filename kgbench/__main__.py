"""``python -m kgbench`` runs the command line (same as the ``kgbench`` script)."""

from kgbench.cli import main

if __name__ == "__main__":
    main()
