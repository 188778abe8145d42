"""What the pipeline reads: SPARQL and KGQA questions turned into query graphs, the
parsed-questions file and its ``questions parse`` / ``questions ground`` use cases, and
seed questions sampled from a domain of the store (``--domain``)."""
