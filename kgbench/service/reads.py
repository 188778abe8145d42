"""The read endpoints: the store as JSON, with the command line's bounds."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from fastapi import APIRouter
from pydantic import BaseModel, Field

from kgbench.service.deps import SettingsDep, StorePoolDep

__all__ = ["VERSION", "router"]

try:
    VERSION = version("kgbench")
except PackageNotFoundError:   # run from a checkout that is not installed
    VERSION = "0.0.0"

router = APIRouter(prefix="/api", tags=["reads"])


class Health(BaseModel):
    status: str = Field(description="Always \"ok\" when the server answers.")
    backend: str = Field(description="The store's backend: ladybug or neo4j.")
    version: str
    auth: bool = Field(description="Whether the server has a token.")


@router.get("/health", response_model=Health)
def health(conf: SettingsDep, pool: StorePoolDep) -> Health:
    """Whether the server is up, and which backend it reads."""
    return Health(status="ok", backend=pool.backend, version=VERSION, auth=conf.auth)
