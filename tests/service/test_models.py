"""The API's models are made from the kgstore records (``record_model``), so a field
added to a record reaches the API's schema without a second copy of the record."""

from __future__ import annotations

import dataclasses

from pydantic import BaseModel

from kgbench.service.models import (
    EntityModel,
    FactModel,
    LiteralModel,
    SourceModel,
    StatsModel,
    record_model,
)
from kgstore import Entity, Fact, Literal, SourceRecord, StoreStats


@dataclasses.dataclass
class _Inner:
    x: int


@dataclasses.dataclass
class _Record:
    id: str
    tags: tuple[str, ...] = ()
    inner: _Inner | None = None
    counts: dict[str, int] = dataclasses.field(default_factory=dict)
    hidden: str = ""


def test_a_record_model_has_the_record_fields_as_json_shows_them() -> None:
    class InnerModel(BaseModel):
        x: int

    model = record_model(_Record, held={_Inner: InnerModel}, exclude=("hidden",),
                         extra_field=(int, 3))
    assert list(model.model_fields) == ["id", "tags", "inner", "counts", "extra_field"]
    doc = model(id="a", tags=["t"], inner={"x": 1}).model_dump()
    assert doc == {"id": "a", "tags": ["t"], "inner": {"x": 1}, "counts": {}, "extra_field": 3}
    assert model.model_json_schema()["required"] == ["id"]


def test_the_store_records_and_their_api_models_have_the_same_fields() -> None:
    for record, model, extra in ((Entity, EntityModel, []), (Fact, FactModel, []),
                                 (Literal, LiteralModel, []), (SourceRecord, SourceModel, []),
                                 (StoreStats, StatsModel, ["top_predicates"])):
        assert list(model.model_fields) == [f.name for f in dataclasses.fields(record)] + extra
    fact = FactModel(subject="m.a", predicate="p", object={"value": "1", "datatype": "xsd:int"})
    assert isinstance(fact.object, LiteralModel) and fact.object.record() == Literal("1", "xsd:int")
