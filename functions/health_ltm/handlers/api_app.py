"""The Powertools REST resolver and its routes. A route parses, calls one service, responds.

The caller's user id comes only from the Cognito authorizer claims; no route takes a user id.
"""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, CORSConfig, Response
from aws_lambda_powertools.event_handler.openapi.params import Body, Header, Path, Query
from aws_lambda_powertools.event_handler.openapi.types import OpenAPIResponse

from .. import wiring
from ..domain.models import FragmentStatus, Message, PendingMention
from ..domain.sections import Section, SectionStatus
from ..read import profile
from ..settings import get_settings
from ..write.intake import FragmentConflict, FragmentTooLarge, submit_fragment
from . import errors
from .api_models import (
    ID_PATTERN,
    ContextIn,
    ContextOut,
    ErasureOut,
    FactOut,
    FactPatch,
    FactsOut,
    FactWithHistoryOut,
    FragmentAccepted,
    FragmentIn,
    FragmentOut,
    GatewayMessage,
    HistoryEventOut,
    Problem,
    SectionStatusIn,
    SectionStatusOut,
)
from .auth import current_user_id

app = APIGatewayRestResolver(
    enable_validation=True,
    cors=CORSConfig(allow_origin=get_settings().cors_origin, max_age=600, allow_headers=["If-Match"]),
)
errors.register(app)
# The OpenAPI description and Swagger UI are built on request (handlers/docs_routes.py): their
# models are a large import that the read path's cold start should not pay.
OPENAPI_TITLE, OPENAPI_VERSION = "Health LTM", "1.0.0"
OPENAPI_SUMMARY = "Long-term memory of a personal health assistant"
OPENAPI_DESCRIPTION = (
    "What people tell the assistant about their health, remembered with its history and handed "
    "back only where a question needs it. Every route but health and docs needs a Cognito JWT."
)
PUBLIC: list[dict[str, list[str]]] = [{}]  # OpenAPI's "no authentication" for a route

FactId = Annotated[str, Path(pattern=ID_PATTERN)]

_ERRORS = {
    401: "No valid token",
    404: "No such item (or not the caller's)",
    409: "The fragment id is already used for different content",
    412: "The fact changed since it was read (If-Match)",
    413: "Too large a request",
    415: "The body is not application/json",
    422: "Invalid request",
    429: "Throttled",
}
_GATEWAY_ERRORS = (401, 413, 429)  # API Gateway answers these itself too, as {"message": "..."}


def documented(success: int, description: str, *codes: int) -> dict[int, OpenAPIResponse]:
    """A route's responses as the spec states them: its success (schema from the return type),
    and its errors in the one problem shape or, from API Gateway, its own message shape."""
    responses: dict[int, Any] = {success: {"description": description}}
    if success == 204:
        responses[success]["content"] = {}
    for code in (*codes, 401, 422, 429):
        content: dict = {} if code == 429 else {"application/problem+json": {"model": Problem}}
        if code in _GATEWAY_ERRORS:
            content["application/json"] = {"model": GatewayMessage}
        responses[code] = {"description": _ERRORS[code], "content": content}
    return responses


@app.get("/v1/health", summary="Liveness", tags=["ops"], security=PUBLIC)
def health() -> dict:
    return {"status": "ok"}


@app.get(
    "/v1/openapi.json",
    summary="This API's OpenAPI description",
    tags=["ops"],
    security=PUBLIC,
    include_in_schema=False,
)
def openapi() -> Response[str]:
    return Response(status_code=200, content_type="application/json", body=openapi_json())


def openapi_json() -> str:
    from aws_lambda_powertools.event_handler.openapi.models import HTTPBearer

    return app.get_openapi_json_schema(
        title=OPENAPI_TITLE,
        version=OPENAPI_VERSION,
        summary=OPENAPI_SUMMARY,
        description=OPENAPI_DESCRIPTION,
        security_schemes={"cognito": HTTPBearer(bearerFormat="JWT", description="Cognito ID token")},
        security=[{"cognito": []}],
    )


# ------------------------------------------------------------------ write path intake
@app.exception_handler(FragmentConflict)
def _fragment_conflict(exc: FragmentConflict) -> Response:
    return errors.problem(409, "Conflict", str(exc))


@app.post(
    "/v1/fragments",
    summary="Queue a dialogue fragment for extraction",
    tags=["write"],
    responses=documented(202, "Queued", 409, 413, 415),
)
def post_fragment(body: Annotated[FragmentIn, Body()]) -> Response[FragmentAccepted]:
    """Idempotent by fragment_id (per user): a retry with the same content answers the same 202;
    the same id with other content is 409. The state is at GET /v1/fragments/{fragment_id}."""
    errors.require_json(app)
    settings = get_settings()
    if len(body.messages) > settings.max_messages:
        raise errors.PayloadTooLarge(f"at most {settings.max_messages} messages per fragment")
    if any(len(m.text) > settings.max_message_chars for m in body.messages):
        raise errors.PayloadTooLarge(f"at most {settings.max_message_chars} characters per message")
    try:
        fragment = submit_fragment(
            wiring.repository(),
            wiring.fragment_queue(),
            wiring.clock(),
            wiring.id_factory(),
            user_id=current_user_id(app),
            session_id=body.session_id,
            messages=[Message(role=m.role, text=m.text, at=m.at) for m in body.messages],
            fragment_id=body.fragment_id,
            locale=body.locale,
        )
    except FragmentTooLarge as err:
        raise errors.PayloadTooLarge(str(err)) from err
    # A retry answers exactly what the first POST did: accepted, queued (the state is at GET).
    return Response(
        status_code=202,
        content_type="application/json",
        body=FragmentAccepted(fragment_id=fragment.id, status=FragmentStatus.QUEUED),
    )


@app.get(
    "/v1/fragments/<fragment_id>",
    summary="State of a fragment",
    tags=["write"],
    responses=documented(200, "The fragment's state", 404),
)
def get_fragment(fragment_id: Annotated[str, Path(pattern=ID_PATTERN)]) -> FragmentOut:
    fragment = wiring.repository().get_fragment(current_user_id(app), fragment_id)
    if fragment is None:
        raise errors.NotFoundError("no such fragment")
    return FragmentOut(
        fragment_id=fragment.id, status=fragment.status, applied=fragment.applied, rejected=fragment.rejected,
        reason=fragment.reason if fragment.status is FragmentStatus.FAILED else None,
    )


# ------------------------------------------------------------------ read path
@app.post(
    "/v1/context",
    summary="Memory for this question, as labelled blocks and a prompt",
    tags=["read"],
    responses=documented(200, "The context", 413, 415),
)
def post_context(body: Annotated[ContextIn, Body()]) -> ContextOut:
    errors.require_json(app)
    from ..read.context import build_context

    settings = get_settings()
    classification = wiring.query_classifier().classify(
        body.query, [m.text for m in body.recent_messages if m.role.value == "user"]
    )
    user_id, now = current_user_id(app), wiring.clock().now()
    repository = wiring.repository()
    unprocessed: list[PendingMention] = []
    if body.session_id:  # that chat session's buffered turns: one GetItem, only when asked for
        from ..chat.sessions import buffer_mentions

        buffer = repository.get_session(user_id, body.session_id)
        unprocessed = buffer_mentions(buffer) if buffer else []
    result = build_context(
        repository,
        classification,
        user_id,
        body.query,
        body.max_tokens,
        embedder=wiring.embedder(),
        vector_index=wiring.vector_index(),
        episode_timeout_s=settings.episode_timeout_s,
        now=now,
        unprocessed=unprocessed,
    )
    wiring.episode_stats().record(user_id, result.episode_ids, now)  # batched: no write per read
    return ContextOut.model_validate(result, from_attributes=True)


# ------------------------------------------------------------------ profile
@app.get("/v1/facts", summary="What is remembered", tags=["profile"], responses=documented(200, "The facts"))
def list_facts(
    section: Annotated[Section | None, Query()] = None,
    status: Annotated[str | None, Query(max_length=20)] = None,
    include_inactive: Annotated[bool, Query()] = False,
) -> FactsOut:
    facts, sections = profile.list_facts(
        wiring.repository(), current_user_id(app), section, status, include_inactive
    )
    statuses = {s.value: SectionStatusOut(status=SectionStatus.UNKNOWN) for s in Section}
    statuses.update({s.value: SectionStatusOut(status=state.status) for s, state in sections.items()})
    return FactsOut(facts=[_fact_out(f) for f in facts], sections=statuses)


@app.get(
    "/v1/facts/<fact_id>",
    summary="One fact with its history",
    tags=["profile"],
    responses=documented(200, "The fact and its history", 404),
)
def get_fact(fact_id: FactId) -> FactWithHistoryOut:
    fact, history = profile.get_fact(wiring.repository(), current_user_id(app), fact_id)
    return FactWithHistoryOut(
        **_fact_out(fact).model_dump(),
        history=[
            HistoryEventOut(
                type=e.type.value,
                at=e.at,
                before=e.before,
                after=e.after,
                fragment_id=e.fragment_id,
                policy=e.policy,
            )
            for e in history
        ],
    )


@app.patch(
    "/v1/facts/<fact_id>",
    summary="Correct a fact (If-Match: version)",
    tags=["profile"],
    responses=documented(200, "The corrected fact", 404, 412, 413, 415),
)
def patch_fact(
    fact_id: FactId,
    body: Annotated[FactPatch, Body()],
    if_match: Annotated[str, Header(alias="If-Match", pattern=r'^(W/)?"?\d{1,9}"?$')],
) -> FactOut:
    errors.require_json(app)
    version = int(if_match.removeprefix("W/").strip('"'))
    fact = profile.edit_fact(
        wiring.repository(),
        wiring.clock(),
        wiring.id_factory(),
        current_user_id(app),
        fact_id,
        version,
        body.model_dump(exclude_none=True, mode="json"),
    )
    return _fact_out(fact)


@app.delete(
    "/v1/facts/<fact_id>",
    summary="Forget a fact (kept in history until erasure)",
    tags=["profile"],
    responses=documented(204, "Forgotten", 404, 412),
)
def delete_fact(fact_id: FactId) -> Response[None]:
    profile.delete_fact(
        wiring.repository(),
        wiring.clock(),
        wiring.id_factory(),
        current_user_id(app),
        fact_id,
        vectors=wiring.vector_index(),
    )
    return Response(status_code=204)


@app.put(
    "/v1/sections/<section>",
    summary="Set what is known about a whole section",
    tags=["profile"],
    responses=documented(200, "The section's status", 404, 412, 413, 415),
)
def put_section(
    section: Annotated[Section, Path()], body: Annotated[SectionStatusIn, Body()]
) -> SectionStatusOut:
    errors.require_json(app)
    state = profile.set_section_status(
        wiring.repository(),
        wiring.clock(),
        wiring.id_factory(),
        current_user_id(app),
        section,
        SectionStatus(body.status),
    )
    return SectionStatusOut(status=state.status)


@app.get(
    "/v1/export",
    summary="Everything held about me",
    tags=["profile"],
    responses=documented(200, "Everything held about the caller"),
)
def export() -> dict:
    return profile.export_user(wiring.repository(), wiring.vector_index(), current_user_id(app))


@app.delete(
    "/v1/me",
    summary="Erase everything held about me",
    tags=["profile"],
    responses=documented(200, "Erased, and what remains (nothing)"),
)
def erase() -> ErasureOut:
    return ErasureOut(**profile.erase_user(wiring.repository(), wiring.vector_index(), current_user_id(app)))


def _fact_out(fact) -> FactOut:
    return FactOut(
        id=fact.id,
        section=fact.section,
        key=fact.key,
        name_raw=fact.name_raw,
        name_normalized=fact.name_normalized,
        code=fact.code,
        status=fact.status,
        stage=fact.stage,
        provenance=fact.provenance.value,
        attributes=fact.attributes,
        valid_from=fact.valid_from,
        valid_to=fact.valid_to,
        first_mentioned_at=fact.first_mentioned_at,
        last_confirmed_at=fact.last_confirmed_at,
        evidence_kind=fact.evidence_kind,
        context_evidence=fact.context_evidence,
        mention_count=fact.mention_count,
        version=fact.version,
        deleted=fact.is_deleted,
    )


# Chat and the IAM-only routes for other services live in their own modules; importing them
# registers their routes on `app`.
from . import chat_routes, docs_routes, internal_routes  # noqa: E402, F401
