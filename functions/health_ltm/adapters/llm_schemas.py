"""Pydantic response models for the model calls, built per request from the domain schemas.

The JSON schema of these models is what the model is constrained to (strict structured
outputs), and the same models validate what comes back. They check shape only: types,
enums, required keys, no extra keys. Meaning (evidence, dates, attribute ranges) is checked
by code in ``write/validate.py``.

Strict mode needs every property required (optional = nullable) and
``additionalProperties: false`` on every object; it has no ``oneOf``, so the per-section
event variants form a plain union (``anyOf``) told apart by their ``section`` constant. Length
and range constraints are left out of the schema (not every OpenAI-compatible server accepts
them); the domain models enforce them.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema, create_model, model_validator

from ..domain.attributes import ATTRIBUTE_MODELS
from ..domain.models import AssertionKind, EvidenceKind, Experiencer, Temporality
from ..domain.sections import ALLOWED_STATUSES, SECTIONS_WITH_STATUS, Section

_STRICT = ConfigDict(extra="forbid")


def _literal(values: Iterable[str]) -> Any:
    # Rendered as "enum" even for one value: pydantic would say "const", which not every
    # strict-mode server accepts.
    values = tuple(values)
    return Annotated[Literal[values], WithJsonSchema({"type": "string", "enum": list(values)})]  # type: ignore[valid-type]


def _camel(section: Section) -> str:
    return "".join(part.capitalize() for part in section.value.split("_"))


class SectionChoice(BaseModel):
    """The classifier's answer: every section the user's words touch (possibly none)."""

    model_config = _STRICT

    sections: list[Section]


@lru_cache(maxsize=len(Section))
def attributes_model(section: Section) -> type[BaseModel]:
    """The section's attributes, every field nullable and without range constraints."""
    domain = ATTRIBUTE_MODELS[section]
    fields: dict[str, Any] = {}
    for name, info in domain.model_fields.items():
        nullable: Any = Union[info.annotation, None]  # type: ignore[name-defined]  # noqa: UP007
        fields[name] = (nullable, Field(default=None, description=info.description))
    return create_model(f"{_camel(section)}Attributes", __config__=_STRICT, **fields)


MENTION_DEFAULTS: dict[str, Any] = {
    "experiencer": Experiencer.SELF.value,
    "hypothetical": False,
    "retracted": False,
    "temporality": None,
    "evidence_kind": EvidenceKind.STATED.value,
    "context_evidence": None,
    "refers_to_focus": False,
}


def _fill_mention_defaults(cls: Any, data: Any) -> Any:
    if isinstance(data, dict):
        return {**MENTION_DEFAULTS, **data}
    return data


@lru_cache(maxsize=len(Section))
def event_model(section: Section) -> type[BaseModel]:
    """One extracted event of one section; field order is generation order (evidence first).

    The strict schema requires every property; an answer from a server that leaves out the
    mention attributes still parses, with the defaults of ``MENTION_DEFAULTS``."""
    kinds = [AssertionKind.FACT.value]
    if section in SECTIONS_WITH_STATUS:
        kinds += [AssertionKind.SECTION_ABSENT.value, AssertionKind.SECTION_UNSURE.value]
    statuses = sorted(status.value for status in ALLOWED_STATUSES[section])
    return create_model(
        f"{_camel(section)}Event",
        __config__=_STRICT,
        __validators__={"_mention_defaults": model_validator(mode="before")(_fill_mention_defaults)},  # type: ignore[dict-item]
        section=(_literal([section.value]), ...),
        kind=(_literal(kinds), ...),
        evidence=(str, Field(description="the user's exact words, copied verbatim")),
        name=(str | None, ...),
        normalized_hint=(str | None, ...),
        status=(_literal(statuses) | None, ...),
        attributes=(attributes_model(section), ...),
        valid_from=(str | None, Field(description="ISO date YYYY, YYYY-MM or YYYY-MM-DD")),
        valid_to=(str | None, Field(description="ISO date YYYY, YYYY-MM or YYYY-MM-DD")),
        correction=(bool, ...),
        remember=(bool, ...),
        experiencer=(
            _literal(e.value for e in Experiencer),
            Field(description="whose health: self, relative (family_history only) or other"),
        ),
        hypothetical=(bool, Field(description="a question, plan or condition, not a fact")),
        retracted=(bool, Field(description="the user took this mention back")),
        temporality=(_literal(t.value for t in Temporality) | None, ...),
        evidence_kind=(
            _literal(k.value for k in EvidenceKind),
            Field(description="stated, or an answer to the assistant's question, or a confirmed restatement"),
        ),
        context_evidence=(
            str | None,
            Field(description="for answers: the assistant's question, copied verbatim; else null"),
        ),
        refers_to_focus=(bool, Field(description="name omitted: a pronoun for the thing in focus")),
    )


def _ordered(sections: Iterable[Section]) -> tuple[Section, ...]:
    chosen = set(sections)
    return tuple(s for s in Section if s in chosen)


def extraction_model(sections: Iterable[Section]) -> type[BaseModel]:
    """``{"events": [...]}`` whose items may only belong to the selected sections."""
    ordered = _ordered(sections)
    if not ordered:
        raise ValueError("at least one section is needed")
    return _extraction_model(ordered)


@lru_cache(maxsize=256)
def _extraction_model(sections: tuple[Section, ...]) -> type[BaseModel]:
    variants = tuple(event_model(s) for s in sections)
    item = variants[0] if len(variants) == 1 else Union[variants]  # noqa: UP007 (built at run time)
    return create_model("Extraction", __config__=_STRICT, events=(list[item], ...))  # type: ignore[valid-type]
