"""Cypher shared by the backends: the read-only allow-list guard of power users'
queries (:mod:`~kgstore.cypher.guard`, its lexer and parameter checks) and the
compilation of a :class:`~kgstore.patterns.PatternQuery` into one query
(:mod:`~kgstore.cypher.compile`, with a dialect per engine), and the shape of the
nodes and relationships a query returns (:mod:`~kgstore.cypher.values`); examples of
queries made from a store's own data (:mod:`~kgstore.cypher.examples`)."""
