"""The Powertools REST resolver of the api function, built from one Router per route module.

A route parses, calls one service, responds. The caller's user id comes only from the Cognito
authorizer claims; no route takes a user id. Nothing here runs at import: ``build_app()`` reads
the settings when it is called (handlers/api.py builds the app once per container).
"""

from __future__ import annotations

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, CORSConfig

from ..settings import Settings, get_settings
from . import (
    chat_routes,
    context_routes,
    docs_routes,
    errors,
    fragment_routes,
    internal_routes,
    profile_routes,
)
from . import routing as _routing

# Included in this order; a path is served by one module only, so the order changes no match.
ROUTERS = (
    docs_routes.router,
    fragment_routes.router,
    context_routes.router,
    profile_routes.router,
    chat_routes.router,
    internal_routes.router,
)


def build_app(settings: Settings | None = None) -> APIGatewayRestResolver:
    settings = settings or get_settings()
    app = APIGatewayRestResolver(
        enable_validation=True,
        cors=CORSConfig(
            allow_origin=settings.cors_origin,
            max_age=600,
            allow_headers=["If-Match"],
            # A browser client reads the chat rate limit's wait only if it is exposed.
            expose_headers=["Retry-After"],
        ),
    )
    errors.register(app)
    for router in ROUTERS:
        app.include_router(router)
    return app


def openapi_json(app: APIGatewayRestResolver | None = None) -> str:
    """The OpenAPI description of ``app`` (by default one built here: `make openapi`, tests)."""
    return _routing.openapi_json(app if app is not None else build_app())
