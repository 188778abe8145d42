"""Running the pipeline over many questions: ``kgbench extend`` and ``kgbench generate``
as functions (chunks, workers, resume), their inputs and paced garbage collection."""
