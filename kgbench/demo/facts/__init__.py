"""The curated real-world facts of the demo KG, one table module per kind of thing:
places, people (with marriages and education), films, and the vocabularies and schema
labels; :mod:`~kgbench.demo.facts.terms` are the terms they are written in. Where a
detail was not certain it is left out rather than guessed (see
:mod:`kgbench.demo.build_demo_kg`)."""
