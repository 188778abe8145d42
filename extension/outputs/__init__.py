"""What the pipeline writes: the sample schema (its JSON file beside its model), files
that appear whole or not at all, exports for evaluators, failure kinds, the comparison
with CAQA Table 5 and the HTML report."""
