"""The public routes: liveness, this API's OpenAPI description, and Swagger UI at /v1/docs, all
built on request from the resolver serving them (docs/openapi.json is the same description).

Powertools' enable_swagger() imports the OpenAPI models when the app is built; doing it here,
on the first docs request, keeps them out of every cold start of the read path.
"""

from __future__ import annotations

from pathlib import Path

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response
from aws_lambda_powertools.event_handler.api_gateway import Router

from .routing import PUBLIC, openapi_json

router = Router()


def _served_spec() -> str:
    # The resolver this router was included in: the description is of the routes it serves.
    resolver = router.api_resolver
    if not isinstance(resolver, APIGatewayRestResolver):
        raise RuntimeError("docs_routes.router is not included in a REST resolver")
    return openapi_json(resolver)


@router.get("/v1/health", summary="Liveness", tags=["ops"], security=PUBLIC)
def health() -> dict:
    return {"status": "ok"}


@router.get(
    "/v1/openapi.json",
    summary="This API's OpenAPI description",
    tags=["ops"],
    security=PUBLIC,
    include_in_schema=False,
)
def openapi() -> Response[str]:
    return Response(status_code=200, content_type="application/json", body=_served_spec())


@router.get("/v1/docs", include_in_schema=False, security=PUBLIC)
def swagger_ui() -> Response[str]:
    import aws_lambda_powertools.event_handler.openapi.swagger_ui as swagger_ui

    spec = _served_spec().replace("</", "<\\/")  # keep the JSON from closing the page's script tag
    if (router.current_event.query_string_parameters or {}).get("format") == "json":
        return Response(status_code=200, content_type="application/json", body=spec)
    assets = Path(swagger_ui.__file__).parent
    html = swagger_ui.generate_swagger_html(
        spec,
        (assets / "swagger-ui-bundle.min.js").read_text(encoding="utf-8"),
        (assets / "swagger-ui.min.css").read_text(encoding="utf-8"),
        "",  # no CDN: the assets are inlined above
        None,
        False,
    )
    return Response(status_code=200, content_type="text/html", body=html)
