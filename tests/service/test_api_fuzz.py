"""Property-based fuzzing of the live API from its own OpenAPI description
(schemathesis): for a bounded number of generated requests per operation, valid and
invalid, no answer is a server error (a 504 the schema documents aside), none holds
a traceback, and every answer conforms to the schema (status code, content type,
body).

(Schemathesis' pytest plugin cannot load a schema from a fixture under pytest 9, so
the test draws each operation's cases from its hypothesis strategy itself.)
"""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import Case, GenerationMode
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from kgbench.service.security import READ_POSTS, SESSION_PATH
from tests.service.conftest import Server

EXAMPLES = 4
"""Cases per operation and generation mode (about 150 requests, ~15 s on 2 busy cores)."""
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance]


def fuzz(operation: Any, mode: GenerationMode, seen: list[str]) -> None:
    """Send ``EXAMPLES`` generated requests of ``operation`` and check each answer."""
    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    def check(case: Case) -> None:
        response = case.call(timeout=30)
        assert "Traceback" not in response.text, response.text
        assert response.status_code < 500 or response.status_code in (503, 504), (
            f"{case.method} {case.formatted_path}: {response.status_code} "
            f"{response.text[:300]}")
        case.validate_response(response, checks=CHECKS)
        seen.append(operation.label)

    try:
        check()
    except Unsatisfiable:
        # No invalid request exists for an operation without parameters.
        assert mode == GenerationMode.NEGATIVE, operation.label


@pytest.mark.slow
def test_no_server_errors_and_answers_fit_the_schema(demo_server: Server) -> None:
    schema: Any = schemathesis.openapi.from_url(f"{demo_server.url}/api/openapi.json")
    # Requests that start work (a job, its cancel or resume) are fuzzed by nothing here:
    # generated ones would launch real jobs into the shared data directory.
    operations = [op for op in (result.ok() for result in schema.get_all_operations())
                  if op.method.upper() in ("GET", "HEAD") or op.path in READ_POSTS
                  or op.path == SESSION_PATH]
    assert len(operations) >= 12
    seen: list[str] = []
    for operation in operations:
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            fuzz(operation, mode, seen)
    assert {op.label for op in operations} <= set(seen)
    assert "Traceback" not in demo_server.log()
