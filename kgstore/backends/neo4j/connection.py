"""Reaching a Neo4j database: its location, the credentials, the driver, and the
driver's errors as one-line :class:`~kgstore.errors.StoreError` messages.

A location is ``scheme://host[:port][/database]`` (``bolt``, ``neo4j``, ``neo4j+s``,
... as the driver takes them); no database part means the server's default one.
Credentials never travel in the location (it is printed in reports and logs): they come
from ``KGBENCH_NEO4J_AUTH=user/password``, else ``NEO4J_AUTH`` (the variable of Neo4j's
own container images; ``none`` there means a server without auth). They are never
printed: messages name the variable, not its value.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import urlsplit

import neo4j

from kgstore.errors import QueryError, QueryTimeoutError, ReadOnlyQueryError, StoreError

neo4j_errors = neo4j.exceptions

# The driver logs every server notification at WARNING; without a handler Python prints
# them to stderr. The store asks for none except in `cypher`, which turns the ones that
# matter (an unknown label, type or property) into its error message.
logging.getLogger("neo4j.notifications").addHandler(logging.NullHandler())

__all__ = ["AUTH_ENVS", "Neo4jLocation", "StoreUnavailableError", "connect", "credentials",
           "parse_location", "translated_errors"]

AUTH_ENVS = ("KGBENCH_NEO4J_AUTH", "NEO4J_AUTH")


class StoreUnavailableError(StoreError):
    """The Neo4j server cannot be reached, or went away during an operation."""


class StoreAuthError(StoreError):
    """The server refused the credentials."""


@dataclass(frozen=True, slots=True)
class Neo4jLocation:
    uri: str
    """What the driver connects to (no database part, no credentials)."""
    database: str | None
    """The database, ``None`` for the server's default."""
    text: str
    """The location as the user wrote it (safe to print: it holds no credentials)."""


def parse_location(location: str) -> Neo4jLocation:
    """Split ``scheme://host:port/database``; refuses credentials in the URI."""
    parts = urlsplit(location)
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        raise StoreError(
            f"{parts.scheme}://{parts.hostname or '?'}: put no credentials in a store "
            f"location (it is printed in reports); set {AUTH_ENVS[0]}=user/password instead")
    if not parts.hostname:
        raise StoreError(f"{location}: no host in this Neo4j location; write e.g. "
                         "bolt://127.0.0.1:7687 or bolt://host:7687/database")
    if parts.query or parts.fragment:
        raise StoreError(f"{location}: a Neo4j location takes no ?query or #fragment; the "
                         "database goes in the path (bolt://host:7687/database)")
    database = parts.path.strip("/") or None
    if database is not None and "/" in database:
        raise StoreError(f"{location}: one database name after the host, e.g. "
                         "bolt://host:7687/kg")
    try:
        port = parts.port
    except ValueError:
        raise StoreError(f"{location}: the port is not a number") from None
    netloc = parts.hostname if port is None else f"{parts.hostname}:{port}"
    if ":" in (parts.hostname or ""):   # an IPv6 address
        netloc = f"[{parts.hostname}]" + ("" if port is None else f":{port}")
    return Neo4jLocation(f"{parts.scheme}://{netloc}", database, location)


def credentials() -> tuple[str, str] | None:
    """``(user, password)`` from :data:`AUTH_ENVS`, ``None`` for ``NEO4J_AUTH=none``."""
    for name in AUTH_ENVS:
        value = os.environ.get(name)
        if value is None or value == "":
            continue
        if value.strip().lower() == "none":
            return None
        user, sep, password = value.partition("/")
        if not sep or not user or not password:
            # The value is never echoed: it may be a password typed without its user.
            what = "no '/' between a user and a password" if not sep else \
                "an empty " + ("user" if not user else "password")
            raise StoreError(f"{name} must be user/password (e.g. neo4j/secret); it is set "
                             f"but has {what}")
        return user, password
    raise StoreError(f"no Neo4j credentials: set {AUTH_ENVS[0]}=user/password (or "
                     f"{AUTH_ENVS[1]}, as for Neo4j's container images)")


def _auth_source() -> str:
    return next((n for n in AUTH_ENVS if os.environ.get(n)), AUTH_ENVS[0])


def connect(location: Neo4jLocation, *, pool_size: int) -> neo4j.Driver:
    """A driver for ``location`` whose server answered a login (one per store)."""
    auth = credentials()
    driver = neo4j.GraphDatabase.driver(
        location.uri, auth=auth, max_connection_pool_size=max(pool_size, 1),
        connection_timeout=10.0, connection_acquisition_timeout=60.0,
        max_transaction_retry_time=15.0, user_agent="kgbench",
        # Warnings such as "label does not exist" on an empty database are expected.
        notifications_min_severity="OFF", warn_notification_severity="OFF")
    try:
        with translated_errors(location):
            driver.verify_connectivity()
    except BaseException:
        driver.close()
        raise
    return driver


def _reason(exc: BaseException) -> str:
    """Why a connection failed, without the driver's resolver details."""
    return re.sub(r"\s*\(resolved to .*$", "", _first_line(exc)).rstrip(":") or "no answer"


def _first_line(exc: BaseException) -> str:
    text = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    return str(text).strip().splitlines()[0][:300]


@contextlib.contextmanager
def translated_errors(location: Neo4jLocation, *, timeout_s: float | None = None
                      ) -> Iterator[None]:
    """The driver's errors as one-line store errors that say what to do."""
    try:
        yield
    except neo4j_errors.AuthError:
        login = credentials()
        if login is None:
            raise StoreAuthError(
                f"{location.text}: Neo4j wants a login but {_auth_source()}=none sends "
                f"none; set {AUTH_ENVS[0]}=user/password") from None
        user = login[0]
        raise StoreAuthError(
            f"{location.text}: Neo4j refused user {user!r} with the password from "
            f"{_auth_source()}; check {_auth_source()}=user/password") from None
    except (neo4j_errors.ServiceUnavailable, neo4j_errors.SessionExpired,
            neo4j_errors.IncompleteCommit, ConnectionError, OSError) as exc:
        raise StoreUnavailableError(
            f"{location.text}: cannot reach Neo4j ({_reason(exc)}); check that the "
            "server runs and the host and port (`make neo4j-up` starts a local test "
            "server); rerunning the command resumes") from None
    except neo4j_errors.ClientError as exc:
        code = exc.code or ""
        if code.endswith("DatabaseNotFound"):
            raise StoreError(
                f"{location.text}: the server has no database "
                f"{location.database!r}; create it (CREATE DATABASE, Enterprise/Aura) or "
                "leave the database out for the default one") from None
        if "TransactionTimedOut" in code or "TransactionTimedOutClientConfiguration" in code:
            raise QueryTimeoutError(timeout_s or 0) from None
        if code.endswith("AccessMode"):
            # A write in a read transaction: the last of the read-only layers refused
            # the query, so it is the query's fault (a 400), not the store's (a 503).
            raise ReadOnlyQueryError(
                "the query tries to modify the store, and the server refused it in the "
                f"read transaction ({_first_line(exc)}); only read queries run here") from None
        if code.endswith("Forbidden"):
            raise StoreError(f"{location.text}: {_first_line(exc)}") from None
        raise QueryError(_first_line(exc)) from None
    except neo4j_errors.TransientError as exc:
        if timeout_s is not None and "Terminated" in (exc.code or ""):
            raise QueryTimeoutError(timeout_s) from None
        raise StoreUnavailableError(f"{location.text}: {_first_line(exc)}; retry") from None
    except neo4j_errors.Neo4jError as exc:
        raise QueryError(_first_line(exc)) from None
    except neo4j_errors.DriverError as exc:
        raise StoreError(f"{location.text}: {_first_line(exc)}") from None
