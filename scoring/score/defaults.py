"""Defaults of ``kgbench score``'s knobs, in a module that imports nothing, so that the
CLI can show them in ``--help`` without loading the engine."""

DEFAULT_SCORE_CHUNK_SIZE = 256
"""Samples per resumable chunk: an interrupted run scores at most this many again (a few
seconds of a base-size NLI model on a CPU), and a chunk holds enough pairs for the
runtime's length-sorted batches to fill their token budget."""
DEFAULT_BATCH_TOKENS = 16384
"""Tokens per batch (padded length × pairs) the runtime fills before it runs the model."""
