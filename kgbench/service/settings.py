"""What one ``kgbench serve`` process is configured with: the store, the one data
directory requests may touch, where it listens, the token, and the bounds of a request.

The rules that depend only on the settings live here, so the command line, the app and
the security middleware agree: which hosts count as loopback, and that a server
reachable from other machines must have a token (:meth:`ServiceSettings.check`).
"""

from __future__ import annotations

import functools
import ipaddress
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["SettingsError", "ServiceSettings", "is_loopback"]


class SettingsError(ValueError):
    """The settings cannot make a safe, working server; the message says what to pass."""


@functools.lru_cache(maxsize=1024)   # the security middleware asks for every request
def is_loopback(host: str) -> bool:
    """Whether ``host`` only accepts connections from this machine (``localhost``,
    127.0.0.0/8, ``::1``). Anything else, ``0.0.0.0`` and ``::`` included, is reachable
    from other machines."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False   # a host name: it may resolve to any interface


@dataclass(frozen=True, slots=True)
class ServiceSettings:
    """The configuration of one server.

    ``data_dir`` is resolved (symlinks followed) and must be an existing directory:
    every path a request names is resolved under it (:mod:`kgbench.service.paths`).
    ``readers`` store handles serve reads at once; a read runs at most
    ``query_timeout_s`` and a Cypher result keeps at most ``max_rows`` rows;
    ``cypher_workers`` processes run Cypher queries, each stopped past
    ``cypher_memory_mb`` of memory (:mod:`kgbench.service.cypher_workers`);
    ``max_jobs`` jobs run at once.
    """

    store: str
    data_dir: Path
    host: str = "127.0.0.1"
    port: int = 8765
    token: str | None = field(default=None, repr=False)
    max_body_bytes: int = 1_048_576
    query_timeout_s: float = 30.0
    max_rows: int = 10_000
    readers: int = 4
    max_jobs: int = 1
    cypher_workers: int = 2
    cypher_memory_mb: int = 2048

    def __post_init__(self) -> None:
        data = Path(self.data_dir).expanduser()
        if not data.is_dir():
            raise SettingsError(f"--data {data}: no such directory; create it (mkdir -p "
                                f"{data}) or pass the directory that holds your benchmarks")
        object.__setattr__(self, "data_dir", data.resolve(strict=True))
        if self.token is not None and not self.token.strip():
            object.__setattr__(self, "token", None)
        for name in ("readers", "max_jobs", "max_rows", "max_body_bytes", "cypher_workers",
                     "cypher_memory_mb"):
            if getattr(self, name) < 1:
                raise SettingsError(f"{name} must be at least 1")
        if not 0 < self.query_timeout_s < float("inf"):
            raise SettingsError("query_timeout_s must be a positive number of seconds")
        if not 1 <= self.port <= 65535:
            raise SettingsError(f"--port {self.port}: a port is a number from 1 to 65535")

    @property
    def loopback(self) -> bool:
        """Whether the server listens on loopback only (see :func:`is_loopback`)."""
        return is_loopback(self.host)

    @property
    def auth(self) -> bool:
        """Whether a token is set (then writes and jobs need it, everywhere)."""
        return self.token is not None

    def check(self) -> ServiceSettings:
        """``self`` when it is safe to serve: a bind reachable from other machines
        without a token is refused."""
        if not self.loopback and not self.auth:
            raise SettingsError(
                f"--host {self.host} makes the server reachable from other machines; "
                "pass --token (or set KGBENCH_TOKEN) so that only people with it get in")
        return self
