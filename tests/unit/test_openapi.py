"""The committed OpenAPI description is the one the resolver generates (`make openapi`)."""

from __future__ import annotations

import json
from pathlib import Path

from health_ltm.handlers.api_app import openapi_json

COMMITTED = Path(__file__).resolve().parents[2] / "docs" / "openapi.json"


def test_committed_openapi_is_current():
    generated = json.loads(openapi_json())
    committed = json.loads(COMMITTED.read_text(encoding="utf-8"))
    assert generated == committed, "docs/openapi.json is stale: run `make openapi` and commit it"


def test_every_route_but_health_needs_a_token():
    spec = json.loads(openapi_json())
    assert spec["security"] == [{"cognito": []}]
    for path, operations in spec["paths"].items():
        for operation in operations.values():
            expected = [{}] if path == "/v1/health" else None
            assert operation.get("security") == expected, path


def test_no_route_takes_a_user_id():
    spec = json.loads(openapi_json())
    for operations in spec["paths"].values():
        for operation in operations.values():
            names = {p["name"].lower() for p in operation.get("parameters", [])}
            assert not names & {"user_id", "userid", "user", "sub"}
