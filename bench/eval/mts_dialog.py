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


def load(limit: int | None = None) -> list[dict[str, str]]:
    rows: list[dict[str, str]] = []
    for name in FILES:
        with dataset_path("mts-dialog", name).open(encoding="utf-8", newline="") as handle:
            rows.extend(csv.DictReader(handle))
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


def run(config, *, limit: int | None = None) -> dict[str, Any]:
    from health_ltm.domain.clock import FixedClock
    from health_ltm.domain.models import AssertionKind
    from health_ltm.domain.sections import Section
    from health_ltm.ports import ModelUnavailable
    from health_ltm.write.quality import filter_messages

    from .common import EVAL_DAY

    rows = load(limit)
    classifier = config.section_classifier()
    extractor = config.extractor(FixedClock(EVAL_DAY))
    per_header: dict[str, list[int]] = {}
    chosen_when: Counter = Counter()  # section -> dialogues where it was chosen
    chosen_right: Counter = Counter()  # ... and the label maps to it
    unmapped: Counter = Counter()
    nothing = filtered_out = errors = 0
    absence = [0, 0]
    failures: list[dict[str, Any]] = []
    mapped = 0
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
        sections: list[Section] = []
        if filtered.all_filtered:
            filtered_out += 1
        else:
            try:
                sections = classifier.classify(kept)
            except ModelUnavailable:
                errors += 1
        chosen = {s.value for s in sections}
        nothing += not chosen
        hit = bool(chosen & set(wanted))
        stats = per_header.setdefault(header, [0, 0])
        stats[0] += hit
        stats[1] += 1
        for section in chosen:
            chosen_when[section] += 1
            chosen_right[section] += section in wanted
        if not hit and len(failures) < MAX_EXAMPLES:
            failures.append(
                {
                    "id": row["ID"],
                    "header": header,
                    "chosen": sorted(chosen),
                    "note": row["section_text"][:120],
                }
            )
        if header == "ALLERGY" and _NO_ALLERGIES.search(row["section_text"]):
            absence[1] += 1
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
    for name, headers in groups.items():
        right = sum(per_header.get(h, [0, 0])[0] for h in headers)
        total = sum(per_header.get(h, [0, 0])[1] for h in headers)
        per_group[name] = {"recall": ratio(right, total), "n": total}
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
            "model_errors": errors,
        },
        "per_group": per_group,
        "precision_lower_bound": {
            s: {"precision": ratio(chosen_right[s], chosen_when[s]), "chosen": chosen_when[s]}
            for s in [x.value for x in Section]
            if chosen_when[s]
        },
        "unmapped_headers": dict(unmapped.most_common()),
        "failures": failures,
    }
