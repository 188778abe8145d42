"""The text of a sample, one concern a module. Templates: relation phrases, literals,
citations, the extended question q̃, the answer statement ã, seed question templates,
shared English helpers, the check that q̃ can be asked at all, and the
:class:`~extension.verbalize.verbalizer.TemplateVerbalizer` that puts them together.
Beside them the LLM backend: the CAQA prompts as chat messages (``llm_prompts``), the
checks on each reply (``llm_checks``) and
:class:`~extension.verbalize.llm_verbalizer.LLMVerbalizer` (the client itself lives in
the top-level :mod:`llm` package). Checks of the finished text: the grammar gate
(LanguageTool in a child JVM, :mod:`~extension.verbalize.grammar_gate`) and the counts a
reader needs none for (:mod:`~extension.verbalize.quality`)."""
