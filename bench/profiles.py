"""Realistic synthetic profiles: N facts across the eleven sections, with statuses and history.

Every fact is made the way the service makes it: an ``Assertion`` (names from the reviewed
synonym table, attributes in each section's schema) goes through ``write.validate`` (normalised
key, code), and ``domain.transitions.decide`` makes the fact, its stage and its history events
(first mention, then reconfirmations, a change or a negation at later dates, in other sessions).
The result is written with the repository's own ``apply`` (one transaction per chunk), so the
stored items are byte-for-byte what the write path would store.

The profile is "never maintained": stale symptoms, ended courses, facts due for promotion,
lapsed lifestyle candidates and a few duplicates under a legacy key are left for maintenance,
as they would be for a user the nightly job has not seen yet. About 2% of the facts are
documented (lab results, records) beside the self-reported ones.

Deterministic: the same (n, seed) gives the same profile (ids aside).
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any

from health_ltm.domain.candidates import Candidate
from health_ltm.domain.ids import new_ulid
from health_ltm.domain.models import (
    Assertion,
    Experiencer,
    Fact,
    HistoryEvent,
    Provenance,
    SectionState,
    is_ended,
)
from health_ltm.domain.sections import FactStatus, Section, Stage
from health_ltm.domain.transitions import DecisionContext, decide
from health_ltm.ports import ChangeSet, FactWrite, SectionWrite
from health_ltm.write.validate import fold, validate

NOW = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)
SYNONYMS = Path(__import__("health_ltm").__file__).resolve().parent / "data" / "synonyms.json"
MAX_TRANSACTION_ITEMS = 100  # DynamoDB TransactWriteItems limit

# Share of the facts per section (demographics: the five slots, taken first).
WEIGHTS: dict[Section, float] = {
    Section.MEDICATIONS: 0.26,
    Section.SYMPTOMS: 0.20,
    Section.CHRONIC_CONDITIONS: 0.07,
    Section.REPORTED_DIAGNOSES: 0.08,
    Section.ALLERGIES: 0.06,
    Section.SURGERIES: 0.04,
    Section.INJURIES: 0.06,
    Section.VACCINATIONS: 0.08,
    Section.FAMILY_HISTORY: 0.07,
    Section.LIFESTYLE: 0.05,
}
# (status, probability) per section; the first status of a sequence is how the fact began.
STATUS_MIX: dict[Section, list[tuple[FactStatus, float]]] = {
    Section.MEDICATIONS: [
        (FactStatus.ACTIVE, 0.45),
        (FactStatus.PRESCRIBED, 0.10),
        (FactStatus.STOPPED, 0.45),
    ],
    Section.SYMPTOMS: [(FactStatus.PRESENT, 0.30), (FactStatus.RESOLVED, 0.65), (FactStatus.ABSENT, 0.05)],
    Section.CHRONIC_CONDITIONS: [
        (FactStatus.PRESENT, 0.88),
        (FactStatus.RESOLVED, 0.07),
        (FactStatus.ABSENT, 0.05),
    ],
    Section.REPORTED_DIAGNOSES: [
        (FactStatus.PRESENT, 0.40),
        (FactStatus.RESOLVED, 0.55),
        (FactStatus.ABSENT, 0.05),
    ],
    Section.ALLERGIES: [(FactStatus.PRESENT, 0.85), (FactStatus.ABSENT, 0.15)],
    Section.SURGERIES: [(FactStatus.PRESENT, 1.0)],
    Section.INJURIES: [(FactStatus.PRESENT, 0.3), (FactStatus.RESOLVED, 0.7)],
    Section.VACCINATIONS: [(FactStatus.PRESENT, 1.0)],
    Section.FAMILY_HISTORY: [(FactStatus.PRESENT, 0.9), (FactStatus.ABSENT, 0.1)],
    Section.LIFESTYLE: [(FactStatus.PRESENT, 0.7), (FactStatus.STOPPED, 0.3)],
}
_RELATIVES = ["mother", "father", "sister", "brother", "grandmother", "grandfather", "aunt", "uncle"]
_LIFESTYLE_VALUES = {
    "diet": ["vegetarian", "gluten-free", "low-salt", "keto"],
    "smoking": ["pack a day", "half a pack a day", "vape"],
    "alcohol": ["a glass of wine on weekends", "beer twice a week"],
    "physical_activity": ["running 3 times a week", "yoga", "swimming", "gym twice a week"],
}
_INDICATIONS = ["blood pressure", "diabetes", "pain", "cholesterol", "heartburn", "sleep", "allergy"]
_REACTIONS = ["rash", "hives", "swelling", "anaphylaxis", "runny nose", "itching"]


@dataclass
class Profile:
    """What a user's memory holds, as the transactions that write it."""

    n_facts: int
    facts: list[Fact]
    documented: list[Fact]
    changes: list[ChangeSet]
    history_events: int
    by_section: dict[str, int] = field(default_factory=dict)
    by_status: dict[str, int] = field(default_factory=dict)

    def describe(self) -> dict:
        return {
            "facts": len(self.facts),
            "documented": len(self.documented),
            "history_events": self.history_events,
            "by_section": self.by_section,
            "by_status": self.by_status,
            "transactions_to_write": len(self.changes),
        }


@lru_cache(maxsize=1)
def _synonyms() -> dict[str, Any]:
    return json.loads(SYNONYMS.read_text(encoding="utf-8"))


def _pool(section: Section) -> list[tuple[str, dict]]:
    """(name as the user says it, attributes) templates from the reviewed synonym table."""
    table = _synonyms()
    out: list[tuple[str, dict]] = []
    if section is Section.MEDICATIONS:
        for entry in table["drug"]:
            out.append((entry["ru"], {"atc_code": entry.get("code")}))
            out.extend((alias.capitalize(), {}) for alias in entry.get("aliases", [])[:1])
    elif section is Section.ALLERGIES:
        for entry in table["allergen"]:
            out.append((entry["ru"], {"allergen_type": entry.get("type")}))
    elif section is Section.CHRONIC_CONDITIONS:
        out = [(e["ru"], {"icd10": e.get("code")}) for e in table["condition"] if e.get("chronic")]
    elif section is Section.REPORTED_DIAGNOSES:
        out = [(e["ru"], {"icd10": e.get("code")}) for e in table["condition"]]
    elif section is Section.SYMPTOMS:
        out = [(e["ru"], {}) for e in table["symptom"]]
        out += [(f"боль в {site['ru_loc']}", {"body_site": site["en"]}) for site in table["body_site"]]
    elif section is Section.SURGERIES:
        out = [(e["ru"], {}) for e in table["surgery"]]
    elif section is Section.INJURIES:
        out = [(e["ru"], {}) for e in table["injury"]]
        out += [
            (f"{kind['ru']} {site['ru_gen']}", {"body_site": site["en"]})
            for kind in table["injury_type"]
            for site in table["body_site"]
        ]
    elif section is Section.VACCINATIONS:
        out = [(f"прививка от {e['ru']}", {}) for e in table["vaccine"]]
    elif section is Section.FAMILY_HISTORY:
        out = [
            (e["ru"], {"relative": relative})
            for relative in _RELATIVES
            for e in table["condition"]
            if e.get("chronic")
        ]
    elif section is Section.LIFESTYLE:
        out = [
            (e["ru"], {"value": value}) for e in table["lifestyle"] for value in _LIFESTYLE_VALUES[e["key"]]
        ]
    return out


def _attributes(section: Section, base: dict, rng: random.Random, when: datetime) -> dict:
    attrs = {k: v for k, v in base.items() if v is not None}
    if section is Section.MEDICATIONS:
        attrs.update(
            dose_value=rng.choice([2.5, 5, 10, 20, 25, 50, 100, 250, 500, 850, 1000]),
            dose_unit="mg",
            frequency=rng.choice(["once a day", "twice a day", "three times a day", "as needed"]),
        )
        if rng.random() < 0.5:
            attrs["indication"] = rng.choice(_INDICATIONS)
        if rng.random() < 0.3:
            attrs["time_of_day"] = rng.choice(["morning", "evening", "with meals"])
    elif section is Section.SYMPTOMS:
        attrs["severity"] = rng.choice(["mild", "moderate", "severe"])
        if rng.random() < 0.5:
            attrs["onset_days_ago"] = rng.randint(1, 14)
    elif section in (Section.CHRONIC_CONDITIONS, Section.REPORTED_DIAGNOSES):
        if rng.random() < 0.5:
            attrs["since"] = str(rng.randint(1995, when.year))
    elif section is Section.ALLERGIES:
        attrs.update(reaction=rng.choice(_REACTIONS), severity=rng.choice(["mild", "moderate", "severe"]))
    elif section in (Section.SURGERIES, Section.INJURIES):
        attrs["year"] = rng.randint(1990, when.year)
    elif section is Section.VACCINATIONS:
        attrs["date"] = (when - timedelta(days=rng.randint(0, 60))).date().isoformat()[:7]
        if rng.random() < 0.4:
            attrs["dose_number"] = rng.randint(1, 3)
    elif section is Section.FAMILY_HISTORY and rng.random() < 0.6:
        attrs["age_at_onset"] = rng.randint(30, 80)
    return attrs


def _pick(mix: list[tuple[FactStatus, float]], rng: random.Random) -> FactStatus:
    roll, acc = rng.random(), 0.0
    for status, p in mix:
        acc += p
        if roll < acc:
            return status
    return mix[-1][0]


def _candidate(section: Section, name: str, attrs: dict, status: FactStatus | None) -> Candidate | None:
    experiencer = Experiencer.RELATIVE if section is Section.FAMILY_HISTORY else Experiencer.SELF
    assertion = Assertion(
        section=section, name=name, status=status, attributes=attrs, evidence=name, experiencer=experiencer
    )
    candidates, rejection = validate(assertion, fold(name))
    return candidates[0] if candidates and rejection is None else None


def _demographics(rng: random.Random) -> list[tuple[str, dict]]:
    return [
        ("1978 года рождения", {"birth_year": 1978 + rng.randint(0, 20)}),
        ("женщина", {"sex": rng.choice(["female", "male"])}),
        ("рост 172", {"height_cm": float(rng.randint(155, 195))}),
        ("вешу 74 кг", {"weight_kg": float(rng.randint(50, 110))}),
        ("живу в Казани", {"city": rng.choice(["Казань", "Москва", "Новосибирск", "Екатеринбург"])}),
    ]


def _counts(n: int) -> dict[Section, int]:
    demographics = min(5, n)
    rest = n - demographics
    counts = {s: int(rest * w) for s, w in WEIGHTS.items()}
    order = sorted(WEIGHTS, key=lambda s: -WEIGHTS[s])
    i = 0
    while sum(counts.values()) < rest:
        counts[order[i % len(order)]] += 1
        i += 1
    counts[Section.DEMOGRAPHICS] = demographics
    return counts


def _mention_times(rng: random.Random, now: datetime, mentions: int) -> list[datetime]:
    first = now - timedelta(days=rng.uniform(1, 730))
    times = [first]
    for _ in range(mentions - 1):
        times.append(times[-1] + timedelta(days=rng.uniform(0.5, max(1.0, (now - times[-1]).days * 0.6))))
    return [min(t, now - timedelta(hours=1)) for t in times]


def build_profile(n: int, seed: int = 7, now: datetime = NOW, documented_share: float = 0.02) -> Profile:
    rng = random.Random(seed * 100_003 + n)
    duplicates = n // 100 if n >= 50 else 0
    counts = _counts(n - duplicates)
    states: dict[Section, SectionState] = {}
    facts: list[Fact] = []
    writes: list[tuple[FactWrite, list[HistoryEvent]]] = []
    section_writes: list[SectionWrite] = []
    history = 0
    by_status: dict[str, int] = {}
    for section, wanted in counts.items():
        pool = _demographics(rng) if section is Section.DEMOGRAPHICS else _pool(section)
        rng.shuffle(pool)
        used: set[str] = set()
        made = 0
        variant = 0
        while made < wanted:
            # Walk the pool, then numbered variants of it ("эналаприл-2") once it is used up.
            name, base = pool[(made + variant) % len(pool)]
            lap = (made + variant) // len(pool)
            if lap and section is not Section.DEMOGRAPHICS:
                name = f"{name}-{lap + 1}"
            status = None if section is Section.DEMOGRAPHICS else _pick(STATUS_MIX[section], rng)
            mentions = (
                1
                if rng.random() < 0.6
                else (rng.randint(2, 4) if rng.random() < 0.75 else rng.randint(5, 10))
            )
            if section is Section.LIFESTYLE and mentions == 1 and rng.random() < 0.5:
                mentions = 2  # most lifestyle facts were said twice (candidate -> active)
            times = _mention_times(rng, now, mentions)
            attrs = _attributes(section, base, rng, times[0])
            first_status = status
            if status in (FactStatus.STOPPED, FactStatus.RESOLVED) and mentions == 1:
                mentions, times = 2, _mention_times(rng, now, 2)
            if status in (FactStatus.STOPPED, FactStatus.RESOLVED):
                first_status = FactStatus.ACTIVE if section is Section.MEDICATIONS else FactStatus.PRESENT
            if section is Section.MEDICATIONS and status is FactStatus.ACTIVE and rng.random() < 0.15:
                # a course with an end date; about half of them are over (due for maintenance)
                attrs["course_end"] = (now + timedelta(days=rng.randint(-40, 40))).date().isoformat()
            candidate = _candidate(section, name, attrs, first_status)
            if candidate is None or candidate.key in used:
                variant += 1
                if variant > 50 * max(1, len(pool)):
                    raise RuntimeError(f"cannot make {wanted} distinct {section.value} facts")
                continue
            used.add(candidate.key)
            events: list[HistoryEvent] = []
            fact: Fact | None = None
            state = states.get(section) or SectionState(section=section)
            for i, at in enumerate(times):
                final = i == len(times) - 1
                step = (
                    candidate
                    if not final
                    else dataclasses.replace(candidate, status=status or candidate.status)
                )
                if final and section is Section.MEDICATIONS and status is FactStatus.STOPPED:
                    step = dataclasses.replace(step, valid_to=at.date().isoformat())
                ctx = DecisionContext(
                    now=at,
                    new_id=new_ulid,
                    fragment_id=new_ulid(),
                    session_id=f"s-{at:%Y%m%d}-{rng.randint(1, 3)}",
                    extractor="bench-profile",
                )
                decision = decide(step, fact, state, [], [], ctx)
                if decision.fact is None:
                    continue
                fact = decision.fact.fact
                events.append(decision.fact.event)
                if decision.section is not None and section not in states:
                    states[section] = decision.section.state
                    state = decision.section.state
                    section_writes.append(
                        SectionWrite(
                            state=decision.section.state, event=decision.section.event, expected_version=0
                        )
                    )
            assert fact is not None
            facts.append(fact)
            history += len(events)
            by_status[fact.status.value] = by_status.get(fact.status.value, 0) + 1
            writes.append(
                (FactWrite(fact=fact, event=events[0], expected_version=None, new_key=True), events[1:])
            )
            made += 1
    _add_legacy_duplicates(facts, writes, rng, duplicates)
    documented = _documented(facts, rng, int(n * documented_share))
    changes = list(_chunks(writes, section_writes))
    return Profile(
        n_facts=len(facts),
        facts=facts,
        documented=documented,
        changes=changes,
        history_events=history + len(section_writes),
        by_section={s.value: sum(1 for f in facts if f.section is s) for s in Section},
        by_status=by_status,
    )


def _add_legacy_duplicates(
    facts: list[Fact], writes: list[tuple[FactWrite, list[HistoryEvent]]], rng: random.Random, k: int
) -> None:
    """A few facts stored twice: once under today's key, once under the raw word it was said as
    (what an older synonym table produced). Maintenance consolidation merges them."""
    medications = [f for f in facts if f.section is Section.MEDICATIONS and f.code]
    for original in rng.sample(medications, min(k, len(medications))):
        at = original.first_mentioned_at - timedelta(days=rng.randint(10, 100))
        legacy_key = f"legacy_{fold(original.name_raw).replace(' ', '_')}"
        duplicate = original.model_copy(
            update={
                "id": new_ulid(),
                "key": legacy_key,
                "first_mentioned_at": at,
                "last_confirmed_at": at,
                "mention_count": 1,
                "version": 1,
            }
        )
        event = HistoryEvent(
            id=new_ulid(), fact_id=duplicate.id, type="first_mention", at=at, extractor="bench-profile"
        )
        facts.append(duplicate)
        writes.append((FactWrite(fact=duplicate, event=event, expected_version=None, new_key=True), []))


def _documented(facts: list[Fact], rng: random.Random, k: int) -> list[Fact]:
    pool = [
        f
        for f in facts
        if f.section
        in (Section.MEDICATIONS, Section.REPORTED_DIAGNOSES, Section.CHRONIC_CONDITIONS, Section.ALLERGIES)
    ]
    out = []
    for fact in rng.sample(pool, min(k, len(pool))):
        out.append(
            fact.model_copy(
                update={
                    "id": new_ulid(),
                    "provenance": Provenance.DOCUMENTED,
                    "source_type": rng.choice(["lab_result", "discharge_summary", "prescription"]),
                    "document_id": new_ulid(),
                    "document_date": fact.first_mentioned_at.date().isoformat(),
                    "stage": Stage.ACTIVE,
                }
            )
        )
    return out


def _chunks(
    writes: list[tuple[FactWrite, list[HistoryEvent]]], sections: list[SectionWrite]
) -> Iterator[ChangeSet]:
    """Greedy chunks within DynamoDB's 100 items per transaction (a fact is its item, its key
    guard, its current-state copy and one item per history event)."""
    current, size = ChangeSet(), 0
    for section_write in sections:
        current.sections.append(section_write)
        size += 2
    for fact_write, later in writes:
        # the fact, its current-state copy, its history event, its key guard, the whole fact of
        # an ended one, later events
        cost = 4 + is_ended(fact_write.fact) + len(later)
        if size + cost > MAX_TRANSACTION_ITEMS:
            yield current
            current, size = ChangeSet(), 0
        current.facts.append(fact_write)
        current.copied_history.extend(later)
        size += cost
    if current:
        yield current


def seed(repository, user_id: str, profile: Profile) -> int:
    """Write the profile with the repository's own transactions; returns the calls made."""
    before = repository.calls
    for change in profile.changes:
        repository.apply(user_id, None, change)
    for fact in profile.documented:
        repository.put_documented(user_id, fact)
    return repository.calls - before
