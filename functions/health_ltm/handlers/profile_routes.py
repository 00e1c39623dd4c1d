"""The profile API: what is remembered (facts, their history, section states), corrections,
export, and erasure of everything held about the caller."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body, Header, Path, Query

from .. import wiring
from ..domain.sections import Section, SectionStatus
from ..read import profile
from .api_models import (
    ErasureOut,
    FactOut,
    FactPatch,
    FactsOut,
    FactWithHistoryOut,
    HistoryEventOut,
    SectionStatusIn,
    SectionStatusOut,
)
from .auth import current_user_id
from .routing import FactId, documented, require_json

router = Router()


@router.get(
    "/v1/facts", summary="What is remembered", tags=["profile"], responses=documented(200, "The facts")
)
def list_facts(
    section: Annotated[Section | None, Query()] = None,
    status: Annotated[str | None, Query(max_length=20)] = None,
    include_inactive: Annotated[bool, Query()] = False,
) -> FactsOut:
    facts, sections = profile.list_facts(
        wiring.repository(), current_user_id(router), section, status, include_inactive
    )
    statuses = {s.value: SectionStatusOut(status=SectionStatus.UNKNOWN) for s in Section}
    statuses.update({s.value: SectionStatusOut(status=state.status) for s, state in sections.items()})
    return FactsOut(facts=[_fact_out(f) for f in facts], sections=statuses)


@router.get(
    "/v1/facts/<fact_id>",
    summary="One fact with its history",
    tags=["profile"],
    responses=documented(200, "The fact and its history", 404),
)
def get_fact(fact_id: FactId) -> FactWithHistoryOut:
    fact, history = profile.get_fact(wiring.repository(), current_user_id(router), fact_id)
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


@router.patch(
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
    require_json(router)
    version = int(if_match.removeprefix("W/").strip('"'))
    fact = profile.edit_fact(
        wiring.repository(),
        wiring.clock(),
        wiring.id_factory(),
        current_user_id(router),
        fact_id,
        version,
        body.model_dump(exclude_none=True, mode="json"),
    )
    return _fact_out(fact)


@router.delete(
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
        current_user_id(router),
        fact_id,
        vectors=wiring.vector_index(),
    )
    return Response(status_code=204)


@router.put(
    "/v1/sections/<section>",
    summary="Set what is known about a whole section",
    tags=["profile"],
    responses=documented(200, "The section's status", 404, 412, 413, 415),
)
def put_section(
    section: Annotated[Section, Path()], body: Annotated[SectionStatusIn, Body()]
) -> SectionStatusOut:
    require_json(router)
    state = profile.set_section_status(
        wiring.repository(),
        wiring.clock(),
        wiring.id_factory(),
        current_user_id(router),
        section,
        SectionStatus(body.status),
    )
    return SectionStatusOut(status=state.status)


@router.get(
    "/v1/export",
    summary="Everything held about me",
    tags=["profile"],
    responses=documented(200, "Everything held about the caller"),
)
def export() -> dict:
    return profile.export_user(wiring.repository(), wiring.vector_index(), current_user_id(router))


@router.delete(
    "/v1/me",
    summary="Erase everything held about me",
    tags=["profile"],
    responses=documented(200, "Erased, and what remains (nothing)"),
)
def erase() -> ErasureOut:
    return ErasureOut(
        **profile.erase_user(wiring.repository(), wiring.vector_index(), current_user_id(router))
    )


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
