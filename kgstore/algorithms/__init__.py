"""Graph algorithms over the ``Store`` interface, the same on every backend: k-hop
neighbourhoods and paths (:mod:`~kgstore.algorithms.subgraph`) and pattern matching by
index nested-loop joins over batched one-hop expansions
(:mod:`~kgstore.algorithms.expansion`)."""
