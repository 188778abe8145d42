"""``kgbench evaluate``: attribution evaluators scored on a benchmark as CAQA (Tables 6
and 7, §6.2) and AttrScore do.

:func:`~scoring.evaluate.run.evaluate_benchmark` is the use case; the evaluators are a
predictions file, an exported model (:mod:`~scoring.evaluate.model_evaluator`) and an
LLM (:mod:`~scoring.evaluate.llm_evaluator`); label schemes in
:mod:`~scoring.evaluate.schemes`; the document in :mod:`~scoring.evaluate.report`; the
metrics in :mod:`scoring.metrics`.
"""
