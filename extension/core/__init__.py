"""The CAQA core: the query graph model and its shapes (CAQA §4.1), the extension rules
(Table 4) and the engine that applies them, grounding a query in the store, candidate
entities and subgraphs, the edits and contradiction checks (§4.3), the label and
complexity vocabulary, and the structured samples they make."""
