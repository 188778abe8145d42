"""KaLMA / BioKaLMA (Li et al., *Towards Verifiable Generation: A Benchmark for
Knowledge-aware Language Model Attribution*): benchmark entries built from a loaded KG
(questions whose answers must cite KG triples, a minimum knowledge set per question,
the conscious-incompetence variants), BioKaLMA's own format, and the metrics that score
systems' cited answers (citation quality §4.2, text-citation alignment §4.3, ``[NA]``
§4.4, text quality §4.1 through an LLM).

Sits above :mod:`scoring` (it scores with its NLI and causal-LM scorers) and below the
CLI (:mod:`kgbench`)."""
