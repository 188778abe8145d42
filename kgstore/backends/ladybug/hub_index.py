"""The hub index of the embedded store: one predicate of a hub's incoming facts read
through a primary-key lookup instead of a scan of all of them.

An entity's incoming facts of one predicate are otherwise found by scanning all of
its incoming facts: LadybugDB keeps a rel property in the adjacency list itself, with
no way to skip to one predicate's facts (sorting the facts by predicate before the COPY did not help:
the scan still starts at the top). On the extension benchmark's 5M-fact KG the 320
entities with at least 1,000 incoming facts hold 47% of the facts, and reading one
predicate of them took 15% of the extension time (19 ms for a rare predicate of the
biggest, 405k facts; 0.1-0.3 ms through the index). `InSlot` is one (hub, predicate)
pair, keyed ``hub<US>predicate``, linked to the subjects of those facts in the order a
scan of the hub's facts meets them; `Hub` lists the hubs whose slots are complete.
Stores written before the index existed get the tables with their next import (the
IF NOT EXISTS forms), and until then read by scans.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kgstore.backends.ladybug import queries as q
from kgstore.backends.ladybug.engine import copy_batch_rows
from kgstore.enginepaths import cypher_path
from kgstore.hubs import SLOT_SEPARATOR, hub_min_in_degree

if TYPE_CHECKING:
    from kgstore.backends.ladybug.importer import StageMerger

__all__ = ["HUB_INDEX_DDL", "index_hubs"]

HUB_INDEX_DDL = (
    "CREATE NODE TABLE IF NOT EXISTS Hub(id STRING, PRIMARY KEY(id))",
    "CREATE NODE TABLE IF NOT EXISTS InSlot(key STRING, predicate STRING, PRIMARY KEY(key))",
    "CREATE REL TABLE IF NOT EXISTS IN_SLOT(FROM InSlot TO Entity)",
)
def index_hubs(merger: StageMerger) -> None:
    """Bring the hub index (:data:`HUB_INDEX_DDL`) up to date with this stage's facts.

    Into an empty store, the hubs are the objects of at least
    :func:`hub_min_in_degree` of the new facts, indexed from the stage. Otherwise
    every hub among this stage's objects (by its in-degree in the store, now) is
    indexed anew from the store: its `Hub` row goes first and comes back last, so
    a kill in between leaves it unindexed (read by scans, which are always right)
    until a re-run, which indexes it again. Slots list subjects in id order: the
    order of a scan in a store loaded by one import (its facts are copied by
    subject); after a merge, a scan lists the older facts first."""
    minimum = hub_min_in_degree()
    entity_facts = "SELECT subject, predicate, object FROM stage_facts WHERE object_kind = 'E'"
    merging = not merger.empty["Fact"]
    if merging:
        objects = merger.diff.export(f"SELECT DISTINCT object AS oid FROM ({entity_facts})",
                                     "fact_objects")
        merger.existing("hub_degrees", q.in_degrees_of(cypher_path(objects)),
                        "id VARCHAR, n BIGINT")
        merger.diff.sql(f"CREATE TABLE hubs AS SELECT id FROM hub_degrees WHERE n >= {minimum}")
        hubs = merger.diff.export("SELECT id AS hid FROM hubs", "hubs")
        merger.existing("hub_facts", q.incoming_facts_of(cypher_path(hubs)),
                        "hub VARCHAR, predicate VARCHAR, subject VARCHAR")
    else:
        merger.diff.sql(f"""
            CREATE TABLE hub_facts AS
            WITH facts AS ({entity_facts})
            SELECT object AS hub, predicate, subject FROM facts WHERE object IN (
                SELECT object FROM facts GROUP BY object HAVING count(*) >= {minimum})
        """)
        hubs = merger.diff.export("SELECT DISTINCT hub AS hid FROM hub_facts", "hubs")
    # Written out: the stage's facts are not needed again (memory for what follows).
    merger.diff.sql("DROP VIEW new_facts")
    merger.diff.sql("DROP TABLE stage_facts")
    links = merger.diff.scalar("SELECT count(*) FROM hub_facts")
    if not links:
        return
    key = f"hub || '{SLOT_SEPARATOR}' || predicate"
    slots = merger.diff.export(f"SELECT DISTINCT {key} AS key, predicate FROM hub_facts", "slots")
    if merging:
        merger.write(q.delete_hubs(cypher_path(hubs)))
        merger.write(q.delete_slots(cypher_path(slots)))
    merger.copy("InSlot", slots)
    merger.copy_batches("IN_SLOT", f'SELECT {key} AS "from", subject AS "to" FROM hub_facts',
                        "slot_links", links, copy_batch_rows("rel"), '"from"',
                        order='"from", "to"', threads=1)
    merger.copy("Hub", hubs)
    merger.diff.sql("DROP TABLE hub_facts")
