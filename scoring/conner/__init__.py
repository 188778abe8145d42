"""CONNER (Chen et al., 2023, *Beyond Factuality: A Comprehensive Evaluation of Large
Language Models as Knowledge Generators*): six perspectives on generated knowledge,
scored with exported ONNX models.

* :mod:`scoring.conner.records`: the input records and the sentence splitter;
* :mod:`scoring.conner.metrics`: Eq. 1–8 as pure functions of scorer outputs;
* :mod:`scoring.conner.evidence`: evidence verbalized from a KG store;
* :mod:`scoring.conner.run`: the use case (models, batches, per-record files);
* :mod:`scoring.conner.summary`: the per-file summary laid out like Tables 2–3.

Nothing is imported here, so that the CLI's ``--help`` stays light.
"""
