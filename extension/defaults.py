"""Defaults of the engine's knobs that the CLI shows in ``--help``, in a module that
imports nothing (so ``kgbench --help`` need not load the engine).
:class:`extension.core.extend.ExtensionConfig` and :class:`extension.run.generate.GenerateConfig`
take theirs from here."""

DEFAULT_MAX_ANSWERS = 10
"""Most answers an extended query (or a seed question) may have: more means its new
constraint is a hub, and a sample listing them reads as a catalogue: blind readers rated
answers of 15-40 items 2 of 5 (issue 34), so 10 since 29 Nov (50 before)."""
DEFAULT_TEST_FRACTION = 0.15
"""Share of the source questions whose samples go to the test split."""
DEFAULT_CHUNK_SIZE = 32
"""Questions per chunk of a ``kgbench generate`` run (the unit of resuming and of work
sent to a worker)."""
MAX_WORKERS = 64
"""Most worker processes ``kgbench generate --workers`` accepts. Each spawned worker
imports the engine and opens the store (a second or more, and its own memory) before it
does any work, so far more workers than cores only slow a run down; a run also starts
no more workers than it has chunks of work."""
