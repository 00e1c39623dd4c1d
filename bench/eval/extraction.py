"""Level 3: extraction, fragment by fragment, as the write path runs it.

Each labelled fragment (data/fragments.jsonl) goes through what the worker does before any state
changes: quality filter -> section classifier -> extractor (only the selected sections) ->
evidence check -> validate(). The candidates that survive are matched to the expected events by
(section, normalised key, status / kind). The expected key is computed from the label's name with
the same normaliser the write path uses, so a brand and its INN meet ("Энап" = enalapril).

Reported: precision / recall per section and per language; hallucinated facts (an assertion whose
quoted evidence is not in the user's words, counted before validation drops it) apart; negation,
confirmed absence and "don't know" accuracy; false absences (a section recorded as empty that the
user never emptied); spurious facts on fragments that must give none (the assistant's words,
garbage, injected instructions, other people, questions); attribute and marker accuracy of the
matched events; the section classifier's precision / recall on the same fragments.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from .common import EVAL_DAY, MAX_EXAMPLES, Tally, limited, load_jsonl, ratio

LEVEL = "extraction"
MODEL_INDEPENDENT = False
NO_FACT_TAGS = ("assistant_only", "garbage", "injection", "third_party", "question")
NEGATIVE_STATUSES = ("absent", "stopped", "resolved")


def expected_key(event: dict[str, Any]) -> str:
    from health_ltm.domain.sections import Section
    from health_ltm.write.normalize import normalize_name

    section = Section(event["section"])
    if event.get("kind", "fact") != "fact":
        return f"section:{section.value}"
    if "key" in event:
        return event["key"]
    if section is Section.DEMOGRAPHICS:
        return event["slot"]
    key = normalize_name(section, event["name"], None).key
    return f"{event['relative']}:{key}" if section is Section.FAMILY_HISTORY else key


def identity(section: str, kind: str, key: str, status: str | None) -> tuple[str, str, str, str]:
    return (section, kind, key, status or "")


def _expected_identity(event: dict[str, Any]) -> tuple[str, str, str, str]:
    kind = event.get("kind", "fact")
    status = event.get("status") if kind == "fact" else None
    if kind == "fact" and status is None:
        status = "active" if event["section"] == "medications" else "present"
    return identity(event["section"], kind, expected_key(event), status)


def messages_of(fragment: dict[str, Any]):
    from health_ltm.domain.models import Message, Role

    return [Message(role=Role(m["role"]), text=m["text"], at=EVAL_DAY) for m in fragment["messages"]]


def _same(want: Any, have: Any, name: str) -> bool:
    if have is None:
        return False
    if isinstance(want, int | float) and not isinstance(want, bool):
        try:
            tolerance = 1 if name in ("birth_year", "height_cm", "weight_kg") else 1e-6
            return abs(float(have) - float(want)) <= tolerance
        except (TypeError, ValueError):
            return False
    return str(want).casefold() == str(have).casefold()


class Extraction:
    """Runs one configuration's classifier and extractor over fragments."""

    def __init__(self, config) -> None:
        from health_ltm.domain.clock import FixedClock

        self.config = config
        self.classifier = config.section_classifier()
        self.extractor = config.extractor(FixedClock(EVAL_DAY))

    def run_fragment(self, fragment: dict[str, Any]) -> dict[str, Any]:
        from health_ltm.errors import ModelUnavailable
        from health_ltm.write.quality import filter_messages
        from health_ltm.write.validate import fold, user_text, validate

        filtered = filter_messages(messages_of(fragment))
        kept = list(filtered.kept)
        out: dict[str, Any] = {
            "sections": [],
            "assertions": 0,
            "hallucinated": [],
            "outside_sections": 0,
            "rejected": Counter(),
            "candidates": [],
            "error": None,
            "filtered": filtered.all_filtered,
        }
        if filtered.all_filtered:
            return out
        try:
            sections = self.classifier.classify(kept)
            assertions = self.extractor.extract(kept, sections) if sections else []
        except ModelUnavailable as err:
            out["error"] = type(err).__name__
            return out
        out["sections"] = [s.value for s in sections]
        out["assertions"] = len(assertions)
        words = user_text(kept)
        for assertion in assertions:
            if assertion.section not in sections:
                out["outside_sections"] += 1
            evidence = fold(assertion.evidence)
            if len(evidence) < 2 or evidence not in words:
                out["hallucinated"].append(
                    {
                        "section": assertion.section.value,
                        "name": assertion.name,
                        "evidence": assertion.evidence,
                    }
                )
            accepted, rejection = validate(assertion, words)
            if rejection is not None:
                out["rejected"][rejection.reason] += 1
            out["candidates"].extend(accepted)
        return out


def run(config, *, limit: int | None = None) -> dict[str, Any]:
    from health_ltm.domain.sections import Section

    fragments = limited(load_jsonl("fragments.jsonl"), limit)
    extraction = Extraction(config)
    order = [s.value for s in Section]
    per_section, per_language, classifier_tally = Tally(), Tally(), Tally()
    polarity = {"negation": [0, 0], "confirmed_absence": [0, 0], "dont_know": [0, 0]}
    attributes_right = attributes_total = markers_right = markers_total = 0
    entity_right = entity_status_right = 0
    false_absences = hallucinated = outside = assertions = errors = 0
    rejected: Counter = Counter()
    confusion: Counter = Counter()
    no_fact = [0, 0]
    exact_fragments = 0
    tags: dict[str, list[int]] = {}
    failures: list[dict[str, Any]] = []
    hallucination_examples: list[dict[str, Any]] = []
    for fragment in fragments:
        result = extraction.run_fragment(fragment)
        errors += result["error"] is not None
        assertions += result["assertions"]
        outside += result["outside_sections"]
        rejected.update(result["rejected"])
        hallucinated += len(result["hallucinated"])
        for item in result["hallucinated"]:
            if len(hallucination_examples) < MAX_EXAMPLES:
                hallucination_examples.append({"id": fragment["id"], **item})
        produced: dict[tuple, Any] = {}
        for c in result["candidates"]:
            produced[identity(c.section.value, c.kind.value, c.key, c.status.value if c.status else None)] = c
        expected = {_expected_identity(e): e for e in fragment["expected"]}
        got, want = set(produced), set(expected)
        for section in order:
            per_section.add(
                section, {i for i in got if i[0] == section}, {i for i in want if i[0] == section}
            )
        per_language.add(fragment["lang"], got, want)
        classifier_tally.add("all", result["sections"], {e["section"] for e in fragment["expected"]})
        # entity found regardless of status: tells a wrong status from a missed entity
        got_entities = {i[:3]: i for i in got}
        for item, event in expected.items():
            found = got_entities.get(item[:3])
            if found is not None:
                entity_right += 1
                entity_status_right += found == item
            else:
                elsewhere = [i for i in got if i[1:] == item[1:] and i[0] != item[0]]
                for other in elsewhere:
                    confusion[f"{item[0]} -> {other[0]}"] += 1
            kind = event.get("kind", "fact")
            bucket = (
                "confirmed_absence"
                if kind == "section_absent"
                else "dont_know"
                if kind == "section_unsure"
                else "negation"
                if item[3] in NEGATIVE_STATUSES
                else None
            )
            if bucket:
                polarity[bucket][0] += item in got
                polarity[bucket][1] += 1
            if item in got:
                candidate = produced[item]
                for name, value in (event.get("attributes") or {}).items():
                    attributes_total += 1
                    attributes_right += _same(value, candidate.attributes.get(name), name)
                if "valid_from" in event:
                    attributes_total += 1
                    attributes_right += candidate.valid_from == event["valid_from"]
                for marker in ("correction", "remember"):
                    if marker in event:
                        markers_total += 1
                        markers_right += getattr(candidate, marker) == event[marker]
        false_absences += sum(1 for i in got - want if i[1] in ("section_absent", "section_unsure"))
        exact = got == want
        exact_fragments += exact
        for tag in fragment["tags"]:
            row = tags.setdefault(tag, [0, 0])
            row[0] += exact
            row[1] += 1
        if any(t in NO_FACT_TAGS for t in fragment["tags"]) and not fragment["expected"]:
            no_fact[0] += not got
            no_fact[1] += 1
        if not exact and len(failures) < MAX_EXAMPLES:
            failures.append(
                {
                    "id": fragment["id"],
                    "text": " | ".join(m["text"] for m in fragment["messages"])[:200],
                    "missing": sorted("/".join(filter(None, i)) for i in want - got),
                    "extra": sorted("/".join(filter(None, i)) for i in got - want),
                    "error": result["error"],
                }
            )
    total = per_section.total()
    return {
        "summary": {
            "fragments": len(fragments),
            "expected_events": sum(len(f["expected"]) for f in fragments),
            "precision": total["precision"],
            "recall": total["recall"],
            "f1": total["f1"],
            "hallucinated_assertions": hallucinated,
            "assertions": assertions,
            "negation_accuracy": ratio(*polarity["negation"]),
            "confirmed_absence_accuracy": ratio(*polarity["confirmed_absence"]),
            "dont_know_accuracy": ratio(*polarity["dont_know"]),
            "false_absences": false_absences,
            "no_fact_fragments_clean": f"{no_fact[0]}/{no_fact[1]}",
            "fragment_exact": ratio(exact_fragments, len(fragments)),
            "entity_found_status_right": ratio(entity_status_right, entity_right),
            "attribute_accuracy": ratio(attributes_right, attributes_total),
            "marker_accuracy": ratio(markers_right, markers_total),
            "outside_selected_sections": outside,
            "model_errors": errors,
        },
        "polarity": {k: f"{v[0]}/{v[1]}" for k, v in polarity.items()},
        "per_section": per_section.table(order),
        "per_language": per_language.table(),
        "fragment_section_classifier": classifier_tally.total(),
        "per_tag_fragment_exact": {k: f"{v[0]}/{v[1]}" for k, v in sorted(tags.items())},
        "rejected_by_validation": dict(rejected),
        "section_confusion": dict(confusion),
        "hallucination_examples": hallucination_examples,
        "failures": failures,
        "extractor": extraction.extractor.name,
    }
