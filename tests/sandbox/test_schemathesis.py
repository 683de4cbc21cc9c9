"""Property-based contract run: every operation of the OpenAPI document,
generated requests with the demo key, checked for server errors and for
answers that do not match the document. Bounded: 20 examples per operation.

Its own sandbox, because generated writes change the demo workspace.
"""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance

from sandbox.core import load_route_modules
from sandbox.openapi import build_document
from sandbox.testing import start_sandbox

load_route_modules()
schema = schemathesis.openapi.from_dict(build_document("http://127.0.0.1"))


@pytest.fixture(scope="module")
def fuzzed_sandbox():
    # A tenth of the usual test time scale: waiting calls (turns, agent builds)
    # sleep for scaled durations, and only the answers' shapes matter here.
    handle = start_sandbox(time_scale=0.0002)
    try:
        yield handle
    finally:
        handle.stop()


@pytest.mark.schemathesis
@schema.parametrize()
@settings(
    max_examples=20,
    phases=[Phase.explicit, Phase.generate],
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
def test_every_operation_conforms(case, fuzzed_sandbox):
    case.call_and_validate(
        base_url=fuzzed_sandbox.base_url,
        headers={"Authorization": f"Bearer {fuzzed_sandbox.demo_key}"},
        checks=[not_a_server_error, response_schema_conformance],
    )
