"""Swagger UI at /v1/docs, built on request from the same description as docs/openapi.json.

Powertools' enable_swagger() imports the OpenAPI models when the app is built; doing it here,
on the first docs request, keeps them out of every cold start of the read path.
"""

from __future__ import annotations

from pathlib import Path

from aws_lambda_powertools.event_handler import Response

from .api_app import PUBLIC, app, openapi_json


@app.get("/v1/docs", include_in_schema=False, security=PUBLIC)
def swagger_ui() -> Response[str]:
    import aws_lambda_powertools.event_handler.openapi.swagger_ui as swagger_ui

    spec = openapi_json().replace("</", "<\\/")  # keep the JSON from closing the page's script tag
    if (app.current_event.query_string_parameters or {}).get("format") == "json":
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
