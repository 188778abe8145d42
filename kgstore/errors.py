"""Errors the store raises. Each message says what happened and what to do next."""

from __future__ import annotations


class StoreError(Exception):
    """Base class of every error raised by ``kgstore``."""


class StoreNotFoundError(StoreError):
    """The store location holds no kgbench store (and creation was not asked for)."""


class StoreLockedError(StoreError):
    """Another process has the store open for writing."""


class IncompatibleStoreError(StoreError):
    """The store was written with a schema version this kgbench cannot read."""


class ReadOnlyQueryError(StoreError):
    """A passthrough query is not one read-only query (a write, files, extensions,
    settings, a second statement, ...)."""


class QueryError(StoreError):
    """The backend rejected a query (syntax, unknown property, ...)."""


class StagingError(StoreError):
    """A staged directory is missing files or has the wrong columns."""
