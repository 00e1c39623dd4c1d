"""Domain models: facts (current state), history events, candidate assertions, fragments."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .sections import HISTORICAL_STATUSES, FactStatus, Section, SectionStatus, Stage


class Role(StrEnum):
    USER = "user"
    ASSISTANT = "assistant"


class Provenance(StrEnum):
    SELF_REPORTED = "self_reported"
    DOCUMENTED = "documented"


class EventType(StrEnum):
    FIRST_MENTION = "first_mention"
    RECONFIRMATION = "reconfirmation"
    CHANGE = "change"
    NEGATION = "negation"
    CORRECTION = "correction"
    USER_EDIT = "user_edit"
    USER_DELETE = "user_delete"
    POLICY = "policy"
    MERGE = "merge"
    SECTION_STATUS = "section_status"


class Experiencer(StrEnum):
    """Whose health a mention is about (ConText's experiencer)."""

    SELF = "self"
    RELATIVE = "relative"  # a blood relative: family_history only
    OTHER = "other"  # a friend, a colleague, "many patients": nothing for the user
    # A result told without whose it is ("results came back: lung cancer", no "my", no relative):
    # code asks rather than store it as the user's (write/focus.py)
    UNKNOWN = "unknown"


class Temporality(StrEnum):
    CURRENT = "current"
    PAST = "past"


class EvidenceKind(StrEnum):
    """How the user's words carry the fact."""

    STATED = "stated"  # the user said it in their own words
    ANSWER_TO_QUESTION = "answer_to_question"  # "no" / "just aspirin": the question supplies the subject
    CONFIRMED_RESTATEMENT = "confirmed_restatement"  # "yes, that's right" to the assistant's summary


class Message(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    role: Role
    text: str  # normalised for matching at intake (write/intake.normalize_for_matching)
    at: datetime | None = None
    # What the user typed, when normalisation changed it: kept as the evidence (issue 15).
    original_text: str | None = None


class Fact(BaseModel):
    """Current state of one remembered fact. IDs, times and versions are made by code."""

    model_config = ConfigDict(extra="ignore")

    id: str
    section: Section
    key: str = Field(description="normalised identity within the section")
    name_raw: str
    name_normalized: str
    code: str | None = Field(default=None, description="ATC / ICD-10 where known")
    status: FactStatus
    stage: Stage
    provenance: Provenance = Provenance.SELF_REPORTED
    attributes: dict[str, Any] = Field(default_factory=dict)
    valid_from: str | None = Field(default=None, description="when it became true in the user's life")
    valid_to: str | None = None
    first_mentioned_at: datetime
    last_confirmed_at: datetime
    mention_count: int = 1
    session_ids: list[str] = Field(default_factory=list, description="distinct sessions that mentioned it")
    source_fragment_ids: list[str] = Field(default_factory=list)
    said_by: Literal["user"] = "user"
    evidence_kind: EvidenceKind = EvidenceKind.STATED
    context_evidence: str | None = Field(
        default=None, description="the assistant's question the user's words answered (answers only)"
    )
    deleted_at: datetime | None = None
    version: int = 1
    # documented facts only
    source_type: str | None = None
    document_id: str | None = None
    document_date: str | None = None

    @property
    def is_deleted(self) -> bool:
        return self.deleted_at is not None


class EndedFact(BaseModel):
    """What a question about the present needs of a fact that ended (stopped, resolved, deprecated
    or deleted): that the section was discussed, which conversations it came from, and its key and
    status for a document to be compared with. The whole fact is stored apart; only a history
    question (or the write path) reads it. A drug the user stopped because of what it did to them
    keeps its name and that reason too: a question about the present must still see it (a drug
    question may be about taking it again), see ``as_line``."""

    model_config = ConfigDict(extra="ignore")

    id: str
    section: Section
    key: str
    status: FactStatus
    stage: Stage
    deleted: bool = False
    last_confirmed_at: datetime
    source_fragment_ids: list[str] = Field(default_factory=list)
    version: int = 1
    name: str = ""  # only with a stop reason
    stop_reason: str | None = None

    @property
    def is_deleted(self) -> bool:
        return self.deleted

    @classmethod
    def of(cls, fact: Fact) -> EndedFact:
        reason = stop_reason(fact)
        return cls(
            id=fact.id,
            section=fact.section,
            key=fact.key,
            status=fact.status,
            stage=fact.stage,
            deleted=fact.is_deleted,
            last_confirmed_at=fact.last_confirmed_at,
            source_fragment_ids=list(fact.source_fragment_ids),
            version=fact.version,
            name=(fact.name_normalized or fact.name_raw) if reason else "",
            stop_reason=reason,
        )

    def as_line(self) -> Fact | None:
        """A drug stopped for what it did, as the line a question about the present shows
        ("sumatriptan (stopped; why stopped: "chest tightness")"); None for any other brief.
        What it leaves out (code, dates, documents) stays at the model's defaults."""
        if self.stop_reason is None or self.deleted:
            return None
        return Fact.model_construct(
            id=self.id,
            section=self.section,
            key=self.key,
            name_raw=self.name,
            name_normalized=self.name,
            status=self.status,
            stage=self.stage,
            attributes={"stop_reason": self.stop_reason},
            first_mentioned_at=self.last_confirmed_at,
            last_confirmed_at=self.last_confirmed_at,
            source_fragment_ids=self.source_fragment_ids,
        )


def stop_reason(fact: Fact) -> str | None:
    """Why the user stopped a drug, when it is a stopped medication of theirs that says so."""
    if fact.is_deleted or fact.section is not Section.MEDICATIONS or fact.status is not FactStatus.STOPPED:
        return None
    reason = fact.attributes.get("stop_reason")
    return reason if isinstance(reason, str) and reason else None


def is_ended(fact: Fact) -> bool:
    """Off the current record: no question about the present shows it (stored apart)."""
    return fact.is_deleted or fact.stage is Stage.DEPRECATED or fact.status in HISTORICAL_STATUSES


# Details a section read for its current state leaves out: what the whole fact says beyond the
# line a safety check needs ("metformin 500 mg twice a day", "penicillin, reaction: rash").
DETAIL_ATTRIBUTES: frozenset[str] = frozenset({"indication", "atc_code", "icd10"})


class CurrentFact(BaseModel):
    """A fact as a section read for its current state carries it (issue 12, decision log 28).

    A drug question needs the user's allergies, current medications and chronic conditions as
    lines to check against, not their whole records: this is that line (name, status, dose or
    reaction, code, when last confirmed) plus what the read path's rules look at (stage, the
    conversations it came from, for the episodes). An ended fact keeps only its key, status and
    sources (what ``EndedFact`` carries). The id and section are in the sort key; short field
    names, because every byte of a read is billed and this item is read by most questions."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    key: str = Field(alias="k")
    status: FactStatus = Field(alias="s")
    stage: Stage = Field(default=Stage.ACTIVE, alias="g")
    deleted: bool = Field(default=False, alias="x")
    confirmed_at: int = Field(alias="t", description="last confirmed, epoch seconds")
    sources: list[str] = Field(default_factory=list, alias="f")
    name: str = Field(default="", alias="n")
    name_raw: str | None = Field(default=None, alias="r", description="only where it differs")
    code: str | None = Field(default=None, alias="c")
    attributes: dict[str, Any] = Field(default_factory=dict, alias="a")
    valid_from: str | None = Field(default=None, alias="vf")
    valid_to: str | None = Field(default=None, alias="vt")
    source_type: str | None = Field(default=None, alias="st")
    document_id: str | None = Field(default=None, alias="di")
    document_date: str | None = Field(default=None, alias="dd")

    @classmethod
    def of(cls, fact: Fact) -> CurrentFact:
        fields: dict[str, Any] = {
            "key": fact.key,
            "status": fact.status,
            "stage": fact.stage,
            "confirmed_at": int(fact.last_confirmed_at.timestamp()),
            "sources": list(fact.source_fragment_ids),
        }
        if is_ended(fact):
            fields["deleted"] = fact.is_deleted
            reason = stop_reason(fact)
            if reason:  # the brief a question about the present still shows (EndedFact.as_line)
                fields |= {
                    "name": fact.name_normalized or fact.name_raw,
                    "attributes": {"stop_reason": reason},
                }
        else:
            name = fact.name_normalized or fact.name_raw
            fields |= {
                "name": name,
                "name_raw": fact.name_raw if fact.name_raw and fact.name_raw != name else None,
                "code": fact.code,
                "attributes": {k: v for k, v in fact.attributes.items() if k not in DETAIL_ATTRIBUTES},
                "valid_from": fact.valid_from,
                "valid_to": fact.valid_to,
                "source_type": fact.source_type,
                "document_id": fact.document_id,
                "document_date": fact.document_date,
            }
        return cls.model_validate(fields)

    def dump(self) -> str:
        return self.model_dump_json(by_alias=True, exclude_defaults=True)

    @property
    def is_ended(self) -> bool:
        return self.deleted or self.stage is Stage.DEPRECATED or self.status in HISTORICAL_STATUSES

    def view(self, section: Section, fact_id: str, documented: bool = False) -> Fact | EndedFact | None:
        """What a load adds to the memory: the fact as its line, an ended fact's brief (None for
        an ended documented fact, which no question about the present shows)."""
        if self.is_ended:
            return None if documented else self.as_ended(section, fact_id)
        return self.as_fact(section, fact_id, documented)

    def as_fact(self, section: Section, fact_id: str, documented: bool = False) -> Fact:
        """The fact as the read path renders it. Only the read path builds these; what they
        leave out (first mention, sessions, counts, details) no question about the present shows.
        Not validated again: every field was validated when this copy was parsed."""
        at = datetime.fromtimestamp(self.confirmed_at, UTC)
        return Fact.model_construct(
            id=fact_id,
            section=section,
            key=self.key,
            name_raw=self.name_raw or self.name,
            name_normalized=self.name,
            code=self.code,
            status=self.status,
            stage=self.stage,
            provenance=Provenance.DOCUMENTED if documented else Provenance.SELF_REPORTED,
            attributes=self.attributes,
            valid_from=self.valid_from,
            valid_to=self.valid_to,
            first_mentioned_at=at,
            last_confirmed_at=at,
            source_fragment_ids=self.sources,
            source_type=self.source_type,
            document_id=self.document_id,
            document_date=self.document_date,
        )

    def as_ended(self, section: Section, fact_id: str) -> EndedFact:
        return EndedFact.model_construct(
            id=fact_id,
            section=section,
            key=self.key,
            status=self.status,
            stage=self.stage,
            deleted=self.deleted,
            last_confirmed_at=datetime.fromtimestamp(self.confirmed_at, UTC),
            source_fragment_ids=self.sources,
            name=self.name,
            stop_reason=self.attributes.get("stop_reason"),
        )


def was_ended(snapshot: dict[str, Any] | None) -> bool:
    """``is_ended`` of a history event's ``before`` snapshot (None: the fact is new)."""
    if not snapshot:
        return False
    return (
        bool(snapshot.get("deleted"))
        or snapshot.get("stage") == Stage.DEPRECATED.value
        or snapshot.get("status") in {s.value for s in HISTORICAL_STATUSES}
    )


class HistoryEvent(BaseModel):
    """One append-only entry in a fact's history."""

    model_config = ConfigDict(extra="ignore")

    id: str
    fact_id: str
    type: EventType
    at: datetime
    before: dict[str, Any] | None = None
    after: dict[str, Any] | None = None
    fragment_id: str | None = None
    session_id: str | None = None
    extractor: str | None = Field(default=None, description="model or rule set that produced it")
    policy: str | None = None
    policy_version: str | None = None


class SectionState(BaseModel):
    section: Section
    status: SectionStatus = SectionStatus.UNKNOWN
    updated_at: datetime | None = None
    version: int = 0


class Clarification(BaseModel):
    """A conflict held back by code until the user clarifies (e.g. age going down)."""

    id: str
    section: Section
    fact_id: str | None = None
    reason: str
    current: dict[str, Any] | None = None
    proposed: dict[str, Any] | None = None
    created_at: datetime
    fragment_id: str | None = None


class AssertionKind(StrEnum):
    FACT = "fact"
    SECTION_ABSENT = "section_absent"  # "I have no allergies"
    SECTION_UNSURE = "section_unsure"  # "I don't know whether I have allergies"


class Assertion(BaseModel):
    """A candidate statement extracted from the user's words, before code decides anything."""

    model_config = ConfigDict(extra="forbid")

    section: Section
    kind: AssertionKind = AssertionKind.FACT
    name: str | None = Field(default=None, max_length=200, description="as the user said it")
    normalized_hint: str | None = Field(default=None, max_length=200)
    status: FactStatus | None = None
    attributes: dict[str, Any] = Field(default_factory=dict)
    valid_from: str | None = Field(default=None, max_length=10)
    valid_to: str | None = Field(default=None, max_length=10)
    evidence: str = Field(max_length=1000, description="quote of the user's own words")
    correction: bool = False
    remember: bool = False
    # Mention attributes (ConText): decided by code on the rule path, proposed by the model and
    # enforced by validation on the model path.
    experiencer: Experiencer = Experiencer.SELF
    hypothetical: bool = False
    retracted: bool = False  # "scratch that": the user takes this mention back
    temporality: Temporality | None = None
    evidence_kind: EvidenceKind = EvidenceKind.STATED
    context_evidence: str | None = Field(
        default=None, max_length=1000, description="the assistant's words that supply the subject"
    )
    refers_to_focus: bool = Field(
        default=False,
        description="no name: a pronoun or an unnamed change ('I stopped it'), resolved by code",
    )


class FragmentStatus(StrEnum):
    QUEUED = "queued"
    PROCESSING = "processing"
    APPLIED = "applied"
    REJECTED = "rejected"
    FAILED = "failed"


class AppliedEvent(BaseModel):
    fact_id: str
    section: Section
    event: EventType | Literal["clarification"]


class RejectedEvent(BaseModel):
    section: Section | None = None
    reason: str


class Fragment(BaseModel):
    """A coherent piece of dialogue handed to the write path."""

    id: str
    session_id: str
    messages: list[Message]
    locale: str | None = None
    status: FragmentStatus = FragmentStatus.QUEUED
    received_at: datetime
    applied: list[AppliedEvent] = Field(default_factory=list)
    rejected: list[RejectedEvent] = Field(default_factory=list)
    reason: str | None = None
    version: int = 0
    # Fingerprints of the candidates already applied (read with the fragment, so the worker needs
    # no second read); internal, never serialised.
    done: set[str] = Field(default_factory=set, exclude=True)


class PendingMention(BaseModel):
    """Read-your-writes: what a still-queued fragment said about allergies or drugs."""

    fragment_id: str
    sections: list[Section]
    text: str
    received_at: datetime
    # chat_session: a buffered chat turn, stored before its fragment exists (the flush replaces it)
    source: Literal["fragment", "chat_session"] = "fragment"


class Episode(BaseModel):
    id: str
    session_id: str
    fragment_id: str
    text: str
    sections: list[Section] = Field(default_factory=list)
    at: datetime
    pinned: bool = False
    archived: bool = False
    retrieval_count: int = 0
    last_retrieved_at: datetime | None = None
    vector_doc_id: str | None = Field(default=None, description="the vector store's own id")


class UserMemory(BaseModel):
    """Everything the read path needs about a user, loaded with one query."""

    facts: list[Fact] = Field(default_factory=list)
    # Ended facts of the loaded sections, in brief, when their whole facts were not loaded (a
    # question about the present); empty when ``facts`` holds them.
    ended: list[EndedFact] = Field(default_factory=list)
    documented: list[Fact] = Field(default_factory=list)
    sections: dict[Section, SectionState] = Field(default_factory=dict)
    clarifications: list[Clarification] = Field(default_factory=list)
    pending: list[PendingMention] = Field(default_factory=list)
    summary: str | None = None
    summary_fingerprint: str | None = None  # the facts the summary was made from (see fingerprint.py)

    def section_status(self, section: Section) -> SectionStatus:
        state = self.sections.get(section)
        return state.status if state else SectionStatus.UNKNOWN
