"""The template text of a sample, one concern a module: relation phrases, literals,
citations, the extended question q̃, the answer statement ã, seed question templates,
shared English helpers, and the :class:`~extension.text.verbalizer.TemplateVerbalizer`
that puts them together."""
