"""``kgbench score``: NLI and language-model scores for a generated benchmark's own text,
the label-consistency table, flagged samples and the report section.

The use case is :func:`scoring.score.benchmark.score_benchmark`; the rule it judges
samples by is :mod:`scoring.score.consistency`. Nothing is imported here, so that
:mod:`scoring.score.defaults` stays light for the CLI's ``--help``.
"""
