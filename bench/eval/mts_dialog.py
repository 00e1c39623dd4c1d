"""Level 2: dialogue -> sections on MTS-Dialog (1,301 English doctor-patient dialogues).

Each dialogue is labelled with the clinical-note section it supports (``section_header``); the
headers are mapped to our sections as the dataset README says (a header that maps to two of ours
is right when either is chosen). The doctor's turns become the assistant's messages and the
patient's (or a family member's) the user's; the fragment then goes through what the write path
runs first: the quality filter, then the section classifier. Reported: recall per header group
(the labelled section is among those chosen), how often nothing at all is chosen, and a lower
bound on precision (a dialogue has one label but may well touch other sections too). Headers
with no section of ours (ASSESSMENT, PLAN, EXAM, ...) are counted and left out.

Absence: dialogues labelled ALLERGY whose note says there are none ("No known drug allergies")
are also run through the extractor: is "no allergies" recorded as a confirmed absence?

What is stored: each mapped dialogue also goes through the whole write path (quality filter,
classifier, extractor, validation, transitions, an in-memory repository; the selection figures
above are the classifier's choices inside that same run). Reported per header, for the train and
validation files apart and together: the share of dialogues whose note section ends with a fact
in one of its sections, shown (stage active or stable) or stored at all, or with a section
status (confirmed_absent / unsure / present) there; and how many "no known allergies" notes
end with allergies confirmed_absent.

Wrong-attribution proxies (heuristics, not labels; candidates to read, not errors counted by a
clinician):

* relative_as_self candidates: a stored fact outside family history and demographics, with a
  status other than absent, whose evidence quote sits
  in a user turn that names a relative or another person (mother, dad, sister, wife, friend,
  coworker, family, ...: ``RELATIVE_WORDS``; not "kid" or "child", which mostly mean "when I was
  a kid"); the turn comes from the extractor's evidence quote
* absent_but_note_present candidates: a fact stored with status absent whose name (as said, or
  normalised) occurs in a sentence of the note with no negation or past cue (``NOTE_NEGATION``)
"""

from __future__ import annotations

import csv
import re
from collections import Counter
from typing import Any

from .common import MAX_EXAMPLES, dataset_path, limited, ratio

LEVEL = "mts_dialog"
MODEL_INDEPENDENT = False
FILES = ("MTS-Dialog-TrainingSet.csv", "MTS-Dialog-ValidationSet.csv")
# The dataset README's mapping; a tuple means either section is right.
HEADER_SECTIONS: dict[str, tuple[str, ...]] = {
    "MEDICATIONS": ("medications",),
    "ALLERGY": ("allergies",),
    "PASTSURGICAL": ("surgeries",),
    "IMMUNIZATIONS": ("vaccinations",),
    "PASTMEDICALHX": ("chronic_conditions", "reported_diagnoses"),
    "FAM/SOCHX": ("family_history", "lifestyle"),
    "GENHX": ("symptoms",),
    "CC": ("symptoms",),
    "ROS": ("symptoms",),
}
ASSISTANT_SPEAKERS = ("doctor", "guest_clinician")
_TURN = re.compile(r"^\s*([A-Za-z_]+[0-9_]*)\s*:\s?(.*)$")
_NO_ALLERGIES = re.compile(r"\b(no known|nkda|none|no allerg|denies|negative)", re.IGNORECASE)
RELATIVE_WORDS = re.compile(
    r"\b(mother|mom|mum|mommy|father|dad|daddy|sisters?|brothers?|siblings?|parents?|"
    r"grand(?:mother|father|ma|pa|parents?|son|daughter)|aunts?|uncles?|cousins?|nieces?|nephews?|"
    r"sons?|daughters?|children|wife|husband|spouse|partner|boyfriend|girlfriend|"
    r"fianc[ée]e?|friends?|co-?workers?|colleagues?|roommates?|neighbou?rs?|family|relatives?)\b",
    re.IGNORECASE,
)
NOTE_NEGATION = re.compile(
    r"\b(no|not|denies|denied|deny|negative|without|never|none|nor|free of|quit|stopped|former|"
    r"ex-\w+|discontinued)\b",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"(?<=[.;!?])\s+|\n+")


SPLITS = dict(zip(FILES, ("train", "validation"), strict=True))


def load(limit: int | None = None) -> list[dict[str, str]]:
    """Both files' rows; each row's ``_split`` says which file it came from."""
    rows: list[dict[str, str]] = []
    for name in FILES:
        with dataset_path("mts-dialog", name).open(encoding="utf-8", newline="") as handle:
            rows.extend({**row, "_split": SPLITS[name]} for row in csv.DictReader(handle))
    return limited(rows, limit)


def parse_dialogue(text: str):
    """'Doctor: ...' / 'Patient: ...' lines -> messages; an unprefixed line continues the turn."""
    from health_ltm.domain.models import Message, Role

    turns: list[list[str]] = []
    for line in text.splitlines():
        match = _TURN.match(line)
        if match and match.group(1).lower().rstrip("_0123456789") in (
            "doctor",
            "patient",
            "guest_family",
            "guest_clinician",
        ):
            speaker = match.group(1).lower().rstrip("_0123456789")
            role = "assistant" if speaker in ASSISTANT_SPEAKERS else "user"
            turns.append([role, match.group(2).strip()])
        elif turns and line.strip():
            turns[-1][1] = f"{turns[-1][1]} {line.strip()}".strip()
    return [Message(role=Role(role), text=body) for role, body in turns if body]


def _turn_of(messages, evidence: str) -> str:
    """The user turn an evidence quote comes from (the quote itself if it spans turns)."""
    from health_ltm.write.validate import fold

    quote = fold(evidence)
    for message in messages:
        if message.role.value == "user" and quote and quote in fold(message.text):
            return message.text
    return evidence


def _evidence_turns(fact, assertions, messages) -> list[str]:
    from health_ltm.write.normalize import normalize_name
    from health_ltm.write.validate import fold

    turns = []
    for assertion in assertions:
        if assertion.section is not fact.section or not assertion.name:
            continue
        key = normalize_name(assertion.section, assertion.name, assertion.normalized_hint).key
        if key == fact.key or fold(assertion.name) == fold(fact.name_raw):
            turns.append(_turn_of(messages, assertion.evidence))
    return turns


def _stated_in_note(fact, note: str) -> bool:
    """The fact's name occurs in a sentence of the note with no negation / past cue."""
    from health_ltm.write.validate import fold

    names = {fold(n) for n in (fact.name_raw, fact.name_normalized, fact.key.replace("_", " ")) if n}
    names = {n for n in names if len(n) >= 3}
    for sentence in _SENTENCE.split(note):
        folded = fold(sentence)
        if any(re.search(rf"\b{re.escape(n)}", folded) for n in names) and not NOTE_NEGATION.search(sentence):
            return True
    return False


def _share(row: list[int]) -> dict[str, Any]:
    n, shown, stored = row
    return {"n": n, "shown": ratio(shown, n), "stored": ratio(stored, n)}


def run(config, *, limit: int | None = None) -> dict[str, Any]:
    from health_ltm.domain.clock import FixedClock
    from health_ltm.domain.models import AssertionKind
    from health_ltm.domain.sections import Section, SectionStatus
    from health_ltm.errors import ModelUnavailable
    from health_ltm.write.quality import filter_messages

    from .common import EVAL_DAY
    from .dialogues import SHOWN_STAGES, run_write_path

    rows = load(limit)
    extractor = config.extractor(FixedClock(EVAL_DAY))
    per_header: dict[str, list[int]] = {}
    chosen_when: Counter = Counter()  # section -> dialogues where it was chosen
    chosen_right: Counter = Counter()  # ... and the label maps to it
    unmapped: Counter = Counter()
    nothing = filtered_out = errors = 0
    absence = [0, 0]
    absence_stored = [0, 0]
    failures: list[dict[str, Any]] = []
    mapped = 0
    # header -> split -> [dialogues, ends with a shown fact/status, ends with any stored fact/status]
    ends: dict[str, dict[str, list[int]]] = {}
    relative_as_self: list[dict[str, Any]] = []
    absent_but_present: list[dict[str, Any]] = []
    stored_facts = stored_self_facts = stored_absent = 0
    for row in rows:
        header = row["section_header"].strip().upper()
        wanted = HEADER_SECTIONS.get(header)
        if wanted is None:
            unmapped[header] += 1
            continue
        mapped += 1
        messages = parse_dialogue(row["dialogue"])
        filtered = filter_messages(messages)
        kept = list(filtered.kept)
        if filtered.all_filtered:
            filtered_out += 1
        stored = run_write_path(config, [messages])
        errors += stored.error is not None
        chosen = set(stored.sections_chosen)
        nothing += not chosen
        hit = bool(chosen & set(wanted))
        stats = per_header.setdefault(header, [0, 0])
        stats[0] += hit
        stats[1] += 1
        for section in chosen:
            chosen_when[section] += 1
            chosen_right[section] += section in wanted
        # what the memory ended with in the note's sections
        memory = stored.memory
        facts = [f for f in memory.facts if not f.is_deleted]
        status_set = any(memory.section_status(Section(s)) is not SectionStatus.UNKNOWN for s in wanted)
        in_section = [f for f in facts if f.section.value in wanted]
        ended_shown = status_set or any(f.stage.value in SHOWN_STAGES for f in in_section)
        ended_stored = status_set or bool(in_section)
        for split in (row.get("_split", "train"), "all"):
            counts = ends.setdefault(header, {}).setdefault(split, [0, 0, 0])
            counts[0] += 1
            counts[1] += ended_shown
            counts[2] += ended_stored
        if not hit and len(failures) < MAX_EXAMPLES:
            failures.append(
                {
                    "id": row["ID"],
                    "header": header,
                    "chosen": sorted(chosen),
                    "stored": sorted(f"{f.section.value}/{f.key}/{f.status.value}" for f in facts)[:6],
                    "note": row["section_text"][:120],
                }
            )
        # wrong-attribution proxies
        stored_facts += len(facts)
        for fact in facts:
            own = fact.section not in (Section.FAMILY_HISTORY, Section.DEMOGRAPHICS)
            if own and fact.status.value != "absent":  # "no, not my mother's diabetes" claims nothing
                stored_self_facts += 1
                turns = _evidence_turns(fact, stored.assertions, messages)
                named = [t for t in turns if RELATIVE_WORDS.search(t)]
                if named:
                    relative_as_self.append(
                        {
                            "id": row["ID"],
                            "header": header,
                            "fact": f"{fact.section.value}/{fact.key}/{fact.status.value}",
                            "turn": named[0][:160],
                        }
                    )
            if fact.status.value == "absent":
                stored_absent += 1
                if _stated_in_note(fact, row["section_text"]):
                    absent_but_present.append(
                        {
                            "id": row["ID"],
                            "header": header,
                            "fact": f"{fact.section.value}/{fact.key}/absent",
                            "note": row["section_text"][:160],
                        }
                    )
        if header == "ALLERGY" and _NO_ALLERGIES.search(row["section_text"]):
            absence[1] += 1
            absence_stored[1] += 1
            absence_stored[0] += memory.section_status(Section.ALLERGIES) is SectionStatus.CONFIRMED_ABSENT
            if kept and not filtered.all_filtered:
                try:
                    assertions = extractor.extract(kept, [Section.ALLERGIES])
                except ModelUnavailable:
                    errors += 1
                    assertions = []
                absence[0] += any(
                    a.section is Section.ALLERGIES and a.kind is AssertionKind.SECTION_ABSENT
                    for a in assertions
                )
    hits = sum(v[0] for v in per_header.values())
    groups = {
        "medications (MEDICATIONS)": ("MEDICATIONS",),
        "allergies (ALLERGY)": ("ALLERGY",),
        "surgeries (PASTSURGICAL)": ("PASTSURGICAL",),
        "vaccinations (IMMUNIZATIONS)": ("IMMUNIZATIONS",),
        "conditions (PASTMEDICALHX)": ("PASTMEDICALHX",),
        "family / lifestyle (FAM/SOCHX)": ("FAM/SOCHX",),
        "symptoms (GENHX, CC, ROS)": ("GENHX", "CC", "ROS"),
    }
    per_group = {}
    stored_per_group: dict[str, dict[str, Any]] = {}
    for name, headers in groups.items():
        right = sum(per_header.get(h, [0, 0])[0] for h in headers)
        total = sum(per_header.get(h, [0, 0])[1] for h in headers)
        per_group[name] = {"recall": ratio(right, total), "n": total}
        by_split: dict[str, Any] = {}
        for split in ("train", "validation", "all"):
            summed = [sum(ends.get(h, {}).get(split, [0, 0, 0])[i] for h in headers) for i in range(3)]
            by_split[split] = _share(summed)
        stored_per_group[name] = by_split
    all_ends = [sum(ends[h]["all"][i] for h in ends) for i in range(3)]
    split_ends = {
        split: [sum(ends[h].get(split, [0, 0, 0])[i] for h in ends) for i in range(3)]
        for split in ("train", "validation")
    }
    recalls = [g["recall"] for g in per_group.values() if g["recall"] is not None]
    return {
        "summary": {
            "dialogues": len(rows),
            "mapped": mapped,
            "recall": ratio(hits, mapped),
            "macro_recall": round(sum(recalls) / len(recalls), 4) if recalls else None,
            "nothing_chosen": ratio(nothing, mapped),
            "filtered_out_entirely": filtered_out,
            "no_allergies_recorded_as_absence": f"{absence[0]}/{absence[1]}",
            "note_section_ends_shown": _share(all_ends)["shown"],
            "note_section_ends_stored": _share(all_ends)["stored"],
            "note_section_ends_shown_train": _share(split_ends["train"])["shown"],
            "note_section_ends_shown_validation": _share(split_ends["validation"])["shown"],
            "no_allergies_note_ends_confirmed_absent": f"{absence_stored[0]}/{absence_stored[1]}",
            "stored_facts": stored_facts,
            "relative_as_self_candidates": f"{len(relative_as_self)}/{stored_self_facts}",
            "absent_but_note_present_candidates": f"{len(absent_but_present)}/{stored_absent}",
            "model_errors": errors,
        },
        "per_group": per_group,
        "stored_per_group": stored_per_group,
        "stored_per_header": {
            h: {split: _share(v) for split, v in sorted(by.items())} for h, by in sorted(ends.items())
        },
        "precision_lower_bound": {
            s: {"precision": ratio(chosen_right[s], chosen_when[s]), "chosen": chosen_when[s]}
            for s in [x.value for x in Section]
            if chosen_when[s]
        },
        "unmapped_headers": dict(unmapped.most_common()),
        "relative_as_self_candidates": relative_as_self[:MAX_EXAMPLES],
        "absent_but_note_present_candidates": absent_but_present[:MAX_EXAMPLES],
        "failures": failures,
    }
