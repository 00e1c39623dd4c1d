"""The api function's resolver is built by build_app() from one Router per route module.

Every operation of the committed docs/openapi.json is served by the built app; every route module's
router is included; no route module imports the app; importing the handlers reads no settings
and builds no resolver (the settings are read when the app is built).
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from aws_lambda_powertools.event_handler.api_gateway import Router

from health_ltm.handlers.api_app import ROUTERS, build_app
from health_ltm.settings import Settings

REPO = Path(__file__).resolve().parents[2]
HANDLERS = REPO / "functions" / "health_ltm" / "handlers"
COMMITTED = REPO / "docs" / "openapi.json"
ROUTE_MODULES = sorted(p.stem for p in HANDLERS.glob("*_routes.py"))
# Served but left out of the description on purpose (include_in_schema=False).
UNDOCUMENTED = {("GET", "/v1/openapi.json"), ("GET", "/v1/docs"), ("POST", "/v1/internal/documents")}


def _served(app) -> set[tuple[str, str]]:
    """(method, path in OpenAPI's {param} form) of every route of the resolver."""
    return {(route.method, route.openapi_path) for route in app._static_routes + app._dynamic_routes}


def test_every_operation_of_the_committed_description_is_served_by_the_built_app():
    spec = json.loads(COMMITTED.read_text(encoding="utf-8"))
    documented = {(method.upper(), path) for path, ops in spec["paths"].items() for method in ops}
    served = _served(build_app())

    assert documented <= served, documented - served
    assert served - documented == UNDOCUMENTED


def test_every_route_module_has_a_router_and_the_app_includes_it():
    assert {"chat_routes", "context_routes", "docs_routes", "fragment_routes", "internal_routes",
            "profile_routes"} <= set(ROUTE_MODULES)  # fmt: skip
    for name in ROUTE_MODULES:
        router = importlib.import_module(f"health_ltm.handlers.{name}").router
        assert isinstance(router, Router), name
        assert any(router is included for included in ROUTERS), f"{name}.router is not included"
    served = _served(build_app())
    for router in ROUTERS:
        for key in router._routes:
            rule, methods = key[0], key[1]
            path = rule.replace("<", "{").replace(">", "}")
            assert {(m.upper(), path) for m in methods} <= served


@pytest.mark.parametrize("module", [*ROUTE_MODULES, "routing", "auth", "errors"])
def test_no_route_module_imports_the_app(module):
    tree = ast.parse((HANDLERS / f"{module}.py").read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            imported.add(node.module or "")
            imported.update(f"{node.module or ''}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
    assert not {name for name in imported if name.split(".")[-1] in {"api_app", "api"}}, module


def test_importing_the_handlers_reads_no_settings_and_builds_no_resolver():
    # An invalid setting: Settings() fails on it, so only build_app() may notice.
    code = """
import gc
import health_ltm.handlers.api
import health_ltm.handlers.api_app as api_app
from aws_lambda_powertools.event_handler.api_gateway import ApiGatewayResolver
from health_ltm.settings import get_settings
assert get_settings.cache_info().misses == 0, "get_settings was called at import"
assert not [o for o in gc.get_objects() if isinstance(o, ApiGatewayResolver)], "a resolver at import"
assert not hasattr(api_app, "app")
try:
    api_app.build_app()
except Exception as exc:
    print("build_app:", type(exc).__name__)
"""
    env = {**os.environ, "LTM_MAX_MESSAGES": "not-a-number", "LTM_CORS_ORIGIN": "https://app.example.com"}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO, timeout=120,
        check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "build_app: ValidationError"


def _health_event(origin: str) -> dict:
    event = json.loads((REPO / "events" / "api_get_health.json").read_text(encoding="utf-8"))
    event["headers"]["Origin"] = origin
    event["multiValueHeaders"]["Origin"] = [origin]
    return event


def test_build_app_takes_the_cors_origin_from_the_settings_it_is_given():
    from ltm_local.invoke import LambdaContext

    app = build_app(Settings(LTM_CORS_ORIGIN="https://app.example.com"))
    response = app.resolve(_health_event("https://app.example.com"), LambdaContext("api", timeout_s=30))

    headers = {k.lower(): v for k, v in response["multiValueHeaders"].items()}
    assert response["statusCode"] == 200
    assert headers["access-control-allow-origin"] == ["https://app.example.com"]
    assert "If-Match" in headers["access-control-allow-headers"][0]
    assert "Retry-After" in headers["access-control-expose-headers"][0]

    other = app.resolve(_health_event("https://evil.example"), LambdaContext("api", timeout_s=30))
    assert "access-control-allow-origin" not in {k.lower() for k in other["multiValueHeaders"]}
