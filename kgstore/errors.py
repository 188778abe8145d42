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


class QueryTooLargeError(ReadOnlyQueryError):
    """A passthrough query is longer or nests deeper than the engine survives (see
    :mod:`kgstore.cypher.guard`); it is refused before the engine sees it."""


class QueryError(StoreError):
    """The backend rejected a query (syntax, unknown property, ...)."""


class QueryCrashedError(QueryError):
    """A query ended the process that ran it (the embedded engine's segfault on a value
    past its limits): it ran in a worker process, so only the worker died."""


class QueryParameterError(QueryError):
    """A query parameter is missing, or is a value the backend cannot take (see
    :mod:`kgstore.cypher.params`)."""


class QueryTimeoutError(QueryError):
    """A passthrough query ran past its time limit and was stopped."""

    def __init__(self, timeout_s: float) -> None:
        self.timeout_s = timeout_s
        super().__init__(f"the query ran past its time limit of {timeout_s:g} s and was "
                         "stopped: narrow it (a LIMIT, a WHERE on e.id) or allow more time")

    def __reduce__(self) -> tuple[type, tuple[float]]:
        return (type(self), (self.timeout_s,))


class StagingError(StoreError):
    """A staged directory is missing files or has the wrong columns."""


class DiskFullError(StoreError):
    """The device ran out of space while kgbench wrote ``path``.

    Raised by the store, the staging code, the loaders and ``generate`` (see
    :mod:`kgstore.diskspace`) instead of the engine's or the OS's own error, which name
    the symptom (a truncated read, a failed checkpoint, an IO exception) rather than
    the cause. Nothing the failed write belonged to is marked complete, so rerunning
    the same command after freeing space resumes the work."""

    def __init__(self, path: str, remedy: str) -> None:
        self.path = path
        self.remedy = remedy
        super().__init__(f"no space left on device while writing {path}; {remedy}")

    def __reduce__(self) -> tuple[type, tuple[str, str]]:
        return (type(self), (self.path, self.remedy))


class DamagedStoreError(StoreError):
    """The store's files were recovered into a state that answers wrongly (see
    :mod:`kgstore.backends.ladybug.recovery`); it must be rebuilt."""


class StoreNotADirectoryError(StoreError):
    """The store's location, or a folder on its path, is a file: no store can be read
    or created there (see :mod:`kgstore.backends.ladybug.directory`)."""


class StorePermissionError(StoreError):
    """The operating system refuses to let this user create, read or write the store's
    directory (see :mod:`kgstore.backends.ladybug.directory`)."""
