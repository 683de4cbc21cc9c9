"""Remote paths become the contract's endpoint templates: bounded labels."""

from __future__ import annotations

import re

import pytest

from dashboard.metrics.endpoints import OTHER, TEMPLATES, endpoint_template
from tests.helpers import PROJECT_DIR


@pytest.mark.parametrize(
    ("path", "template"),
    [
        ("/v1/me", "/v1/me"),
        ("/v1/agents/agt_123/runs?limit=5", "/v1/agents/{id}/runs"),
        ("/v1/agents/22222222-2222-4222-8222-222222222222", "/v1/agents/{id}"),
        ("/v1/studio/website/turns", "/v1/studio/website/turns"),
        ("/v1/studio/made-up/turns", "/v1/studio/{studio}/turns"),
        ("/v1/studio/video/apps/motion", "/v1/studio/video/apps/{app}"),
        ("/v1/objects/contacts/records/rec%2F1/relationships", "/v1/objects/{object}/records/{id}/relationships"),
        ("/v1/approvals/", "/v1/approvals"),
        ("/v1/unknown/123", OTHER),
        ("/v1/agents/a/b/c/d/e", OTHER),
    ],
)
def test_paths_become_templates(path, template):
    assert endpoint_template(path) == template


CALLED = re.compile(r"""["'](/v1/[^"'\s]*)["']""")


def test_every_remote_path_the_console_calls_has_a_template():
    """A new endpoint in an area must join the table, or its calls count as `other`."""
    called = set()
    for folder in ("dashboard", "studio", "agents", "objects"):
        for source in (PROJECT_DIR / folder).rglob("*.py"):
            called.update(CALLED.findall(source.read_text()))
    called.discard("/v1/")  # a prefix, not a call
    assert len(called) > 20, "the scan found too few paths: has the pattern stopped matching?"

    unknown = {path for path in called if endpoint_template(path.replace("{}", "id-1")) == OTHER}

    assert unknown == set()


def test_templates_are_unique():
    assert len(set(TEMPLATES)) == len(TEMPLATES)
