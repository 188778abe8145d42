"""The LLM verbalization backend: the CAQA prompts as chat messages, the checks on each
reply, and :class:`~extension.prompts.verbalizer.LLMVerbalizer` (the client itself lives
in the top-level :mod:`llm` package)."""
