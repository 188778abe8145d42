"""The benchmarks: each compares kgbench with a baseline in the same run and appends its
figures, with the machine and its load (:mod:`bench.harness`), to ``bench/results/``.
Run one as a module from the repository root: ``python -m bench.store_bench``."""
