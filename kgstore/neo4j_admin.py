"""The offline path into Neo4j for big dumps, as code above kgstore sees it: files for
``neo4j-admin database import full`` written from a store or a stage (the format is the
Neo4j backend's, :mod:`kgstore.backends.neo4j.admin_export`)."""

from __future__ import annotations

from kgstore.backends.neo4j.admin_export import (
    AFTER_IMPORT,
    Neo4jExportReport,
    export_for_neo4j_admin,
)

__all__ = ["AFTER_IMPORT", "Neo4jExportReport", "export_for_neo4j_admin"]
