"""Answers the read routes build themselves: encoded once, by orjson, in the worker thread
that read them, and sent as they are.

A route that returns a plain dict has FastAPI validate it against the route's response
model, dump the model, and ``json.dumps`` the dump, on the event loop's thread. For the
answers below that was most of a request: a 2-hop neighbourhood spent 55% of its
handler in :func:`kgstore.models.json_ready` and 20% building graph JSON before FastAPI
checked ~107 kB again. These answers are right by construction (kgstore's records and
the shapes :mod:`kgbench.service.models` declares, which the routes keep as their
``response_model`` for the OpenAPI schema, and which the schema fuzz tests check every
answer against), so they go out as :class:`JsonBody`: orjson writes the records'
dataclasses itself, in the shape ``--json`` prints (:func:`record_fields`).
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import orjson
from starlette.responses import Response

from kgstore import Literal
from kgstore.models import json_ready

__all__ = ["JsonBody", "encode", "json_body", "record_fields"]

_OPTIONS = orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_NON_STR_KEYS
_FIELDS: dict[type, tuple[str, ...]] = {}


class JsonBody(Response):
    """A JSON answer already encoded."""

    media_type = "application/json"


def record_fields(value: Any) -> Any:
    """What orjson cannot write itself, as :func:`~kgstore.models.json_ready` has it: a
    literal without its empty datatype or language, any other record as its fields,
    sets as lists, anything else as its ``str``."""
    if type(value) is Literal:
        out = {"value": value.value}
        if value.datatype:
            out["datatype"] = value.datatype
        if value.lang:
            out["lang"] = value.lang
        return out
    cls = type(value)
    names = _FIELDS.get(cls)
    if names is None:
        if not dataclasses.is_dataclass(value):
            return sorted(value, key=str) if isinstance(value, set | frozenset) else str(value)
        names = _FIELDS[cls] = tuple(f.name for f in dataclasses.fields(value))
    return {name: getattr(value, name) for name in names}


def encode(doc: Any) -> bytes:
    """``doc`` (JSON values and kgstore records) as UTF-8 JSON: NaN and infinities as
    null. A string that is not valid Unicode (a lone surrogate from a dump) is written
    as a ``\\u`` escape instead of failing the answer."""
    try:
        return orjson.dumps(doc, default=record_fields, option=_OPTIONS)
    except orjson.JSONEncodeError:
        return json.dumps(json_ready(doc), ensure_ascii=True, separators=(",", ":"),
                          allow_nan=False).encode("ascii")


def json_body(doc: Any) -> JsonBody:
    return JsonBody(encode(doc))
