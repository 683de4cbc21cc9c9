"""The console API's OpenAPI 3.1 document is valid (openapi-spec-validator,
against the 3.1 specification) and every route in it is in docs/api.md's
table, and nothing else is."""

from __future__ import annotations

import json
import re
from pathlib import Path

from django.test import Client
from openapi_spec_validator import validate
from openapi_spec_validator.validation.validators import OpenAPIV31SpecValidator

API_DOC = Path(__file__).resolve().parents[2] / "docs" / "api.md"
ROW = re.compile(r"^\| `(GET|POST|PUT|PATCH|DELETE) (/api/v1/[^`?]*)[^`]*` \|", re.MULTILINE)


def _document() -> dict:
    answer = Client().get("/api/v1/openapi.json")
    assert answer.status_code == 200
    return json.loads(answer.content)


def test_the_document_is_valid_openapi_3_1():
    document = _document()
    assert document["openapi"].startswith("3.1")
    validate(document, cls=OpenAPIV31SpecValidator)  # raises, naming the first error, when it is not


def test_every_route_is_in_the_docs_table_and_nothing_else():
    routes = {(method.upper(), path) for path, methods in _document()["paths"].items() for method in methods}
    documented = set(ROW.findall(API_DOC.read_text()))
    assert routes == documented, {"not in docs/api.md": routes - documented, "not served": documented - routes}
