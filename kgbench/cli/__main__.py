"""``python -m kgbench.cli`` runs the command line (same as the ``kgbench`` script)."""

from kgbench.cli.app import main

if __name__ == "__main__":
    main()
