"""The Neo4j backend: a store is one database on a Neo4j 5 server, over Bolt.

:mod:`~kgstore.backends.neo4j.store` (the :class:`Neo4jStore` reads and writes),
:mod:`~kgstore.backends.neo4j.queries` (every Cypher statement it runs),
:mod:`~kgstore.backends.neo4j.rows` (predicate rows, read-ahead rows at a detail),
:mod:`~kgstore.backends.neo4j.sampling` (seeded samples in the embedded store's order),
:mod:`~kgstore.backends.neo4j.read_ahead` (neighbourhoods read in one round trip),
:mod:`~kgstore.backends.neo4j.shared_reads` (one read transaction for a block's reads),
:mod:`~kgstore.backends.neo4j.user_query` (a user's query: its values and unknown names),
:mod:`~kgstore.backends.neo4j.admin_export` (the CSV files of ``neo4j-admin``, through
:mod:`kgstore.neo4j_admin`),
:mod:`~kgstore.backends.neo4j.schema` (graph schema, constraints, indexes),
:mod:`~kgstore.backends.neo4j.importer` (online bulk import over Bolt),
:mod:`~kgstore.backends.neo4j.connection` (locations, credentials, driver errors),
:mod:`~kgstore.backends.neo4j.workdir` (the local folder where loads stage).
"""

from __future__ import annotations

from kgstore.backends.neo4j.connection import StoreUnavailableError
from kgstore.backends.neo4j.store import Neo4jStore

__all__ = ["Neo4jStore", "StoreUnavailableError", "neo4j_store_exists",
           "remove_neo4j_store"]


def neo4j_store_exists(location: str) -> bool:
    """Whether the database at ``location`` holds a kgbench store (the server must
    answer: an unreachable one raises, it is not "no store")."""
    from kgstore.errors import StoreNotFoundError

    try:
        Neo4jStore(location, read_only=True, pool_size=1).close()
    except StoreNotFoundError:
        return False
    return True


def remove_neo4j_store(location: str) -> None:
    """Delete the kgbench store in the database at ``location`` (its nodes; the
    constraints and indexes stay for the next load). Refuses a database that holds no
    kgbench store."""
    store = Neo4jStore(location, pool_size=1)
    try:
        store.remove_everything()
    finally:
        store.close()
