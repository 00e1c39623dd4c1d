"""Level 1: question -> sections (the read path's local query classifier).

Labels (data/questions.jsonl, written by us, RU/EN/ZH) give the sections each question needs,
by the labelling guide in data/README.md. Reported: precision and recall per section (micro and
macro), exact-set accuracy, per language and per split ("dev": the set the lexicon gaps were
found on; "heldout": written afterwards and never used to change the classifier), history-intent
accuracy, and the overlap with the classifier's exemplars and unit tests (must be none).
No model is involved: both columns of the report run the same local classifier.

Needs labels (data/questions_needs.jsonl, issue 12): each question is labelled with the sections
an answer actually needs, written from the text and not from the class map; safety sections a
drug or treatment question may carry without needing them are listed as ``tolerated``. Recall is
over the needs; precision is reported both ways: "counted" (a tolerated section chosen but not
needed is an extra like any other) and "tolerated" (it is not counted at all). Reported per split
and language. "dev" is what the class map was tuned on; "heldout" was measured once after that
tuning and its misses were then used to widen the vocabulary (it is no longer held out); "fresh"
was written before that second tuning and held apart during it, and has since been tuned on too
(issue 12's third pass); "fresh2" (RU/EN/ZH, written before that third pass and measured once
before it) was then seen while the vocabulary was widened and tuned on in the fourth pass, so it is
no longer held out; "fresh3" (RU/EN/ZH, written by someone who never saw the classifier, its
vocabulary or its output) was measured before the fourth pass and after it, then its misses were
used for a fifth, small vocabulary pass; "fresh4" (RU/EN/ZH, written the same blind way before that
fifth pass) was measured once after it, then its misses (with the tuned sets') led to the sixth
pass (a question about someone else's care reads none of the user's own facts); "fresh5" (RU/EN/ZH,
written the same blind way before that sixth pass) was measured before it and after it, then tuned
on in the seventh pass (general questions, named drugs, sections left to the class beside, screenings
that are due) with "fresh6" (written the same blind way, measured once before that pass); "fresh7"
(RU/EN/ZH, written the same blind way during that pass by a labeller who read only the labelling
rule) was measured on the code before and after it, and after the eighth pass (test results, the
symptom beside a named drug, general questions no class recognised, the user in a Russian verb),
which tuned on "fresh8" (120, written the same blind way after the seventh pass), and after a ninth,
small vocabulary pass on "fresh9" (120, written the same way after the eighth), and after a tenth
(a drug the user already takes, past diagnoses beside what explains a symptom); it was never looked
at row by row until "fresh10" (90, written the same blind way after the tenth pass) replaced it,
then tuned on in an eleventh. "fresh10" was held apart until "fresh11" and "fresh12" (90 each,
written the same blind way by two more labellers) were written; the three decided the learned
section gate (read/gate.py, decision log 43), which is trained on every split but "fresh13"
(90, written the same blind way after the gate was built, never looked at row by row, its
failures never listed): what the classifier does on questions it has not seen. Each split is
also reported for the class map alone (without the gate), side by side.
Failures are listed up to ``MAX_EXAMPLES`` per split, the held-apart set's never.
"""

from __future__ import annotations

import ast
from typing import Any

from health_ltm.domain.text import fold

from .common import MAX_EXAMPLES, REPO_ROOT, Tally, limited, load_jsonl, ratio

LEVEL = "questions"
NEEDS_FILE = "questions_needs.jsonl"
# fresh11 and fresh12 labelled a second time, from the text, by a labeller who saw neither the
# first labels nor the classifier: how far two careful labellers agree
SECOND_FILE = "questions_needs_second.jsonl"
# the needs splits in the order they were tuned on; the last one is the held-apart set
NEEDS_SPLITS = (
    *("dev", "heldout", "fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh8", "fresh9"),
    "fresh7",
    *("fresh10", "fresh11", "fresh12", "fresh14", "fresh15", "fresh16", "fresh17"),
    "fresh13",
)
HELD_APART = "fresh13"  # written after the gate was built; never trained on, never listed
MODEL_INDEPENDENT = True


def overlap(rows: list[dict[str, Any]]) -> dict[str, int]:
    """Questions copied from the classifier's exemplars or its unit tests (should be none)."""
    from health_ltm.read.classify import load_query_classes

    exemplars = {fold(e) for spec in load_query_classes().classes.values() for e in spec.exemplars.all()}
    test_file = REPO_ROOT / "tests" / "unit" / "test_classify.py"
    tests: set[str] = set()
    if test_file.exists():
        tree = ast.parse(test_file.read_text(encoding="utf-8"))
        tests = {
            fold(n.value) for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
        }
    return {
        "with_exemplars": sum(fold(r["query"]) in exemplars for r in rows),
        "with_unit_tests": sum(fold(r["query"]) in tests for r in rows),
    }


def run(config=None, *, limit: int | None = None) -> dict[str, Any]:
    from health_ltm.domain.sections import Section
    from health_ltm.read.classify import QueryClassifier

    rows = limited(load_jsonl("questions.jsonl"), limit)
    classifier = QueryClassifier()
    order = [s.value for s in Section]
    per_section = Tally()
    by_language: dict[str, Tally] = {}
    by_split: dict[str, Tally] = {}
    exact: dict[str, list[int]] = {}
    history_right = 0
    none_right = none_total = 0
    multi_right = multi_total = 0
    failures: list[dict[str, Any]] = []
    for row in rows:
        result = classifier.classify(row["query"], row.get("recent", []))
        got = {s.value for s in result.sections}
        want = set(row["sections"])
        for section in order:
            per_section.add(section, got & {section}, want & {section})
        for key, groups in ((row["lang"], by_language), (row.get("split", "dev"), by_split)):
            groups.setdefault(key, Tally()).add("all", got, want)
        hit = got == want
        for key in ("all", f"lang:{row['lang']}", f"split:{row.get('split', 'dev')}"):
            exact.setdefault(key, [0, 0])
            exact[key][0] += hit
            exact[key][1] += 1
        history_right += result.history_intent == bool(row.get("history"))
        if not want:
            none_total += 1
            none_right += not got
        if len(row.get("intents", [])) > 1:
            multi_total += 1
            multi_right += want <= got
        if not hit and len(failures) < MAX_EXAMPLES:
            failures.append(
                {
                    "id": row["id"],
                    "query": row["query"],
                    "classes": result.classes,
                    "method": result.method,
                    "missing": sorted(want - got),
                    "extra": sorted(got - want),
                }
            )
    total = per_section.total()
    needs = needs_figures(classifier, limit=limit)
    class_map_alone = needs_figures(QueryClassifier(gated=False), limit=limit)
    agreement = second_labeller(classifier)
    return {
        "summary": {
            "questions": len(rows),
            "precision": total["precision"],
            "recall": total["recall"],
            "f1": total["f1"],
            "macro_precision": per_section.macro()["precision"],
            "macro_recall": per_section.macro()["recall"],
            "exact_set_accuracy": ratio(*exact.get("all", [0, 0])),
            "history_intent_accuracy": ratio(history_right, len(rows)),
            "no_section_questions_right": f"{none_right}/{none_total}",
            "multi_topic_all_required_found": f"{multi_right}/{multi_total}",
            **needs_summary(needs),
            **needs_summary(class_map_alone, suffix=" (class map alone)", splits=("all", *NEEDS_SPLITS[-4:])),
            **{f"needs {name}": _line(figures) for name, figures in agreement.items()},
        },
        "needs": needs,
        "per_section": per_section.table(order),
        "per_language": {
            lang: {**tally.total(), "exact": ratio(*exact[f"lang:{lang}"]), "n": exact[f"lang:{lang}"][1]}
            for lang, tally in sorted(by_language.items())
        },
        "per_split": {
            split: {
                **tally.total(),
                "exact": ratio(*exact[f"split:{split}"]),
                "n": exact[f"split:{split}"][1],
            }
            for split, tally in sorted(by_split.items())
        },
        "overlap": overlap(rows),
        "data_version": classifier.data.version,
        "failures": failures,
    }


# ------------------------------------------------------------------ needs labels (issue 12)
class _NeedsTally:
    """Micro counts over questions: needed sections found, chosen, chosen minus tolerated."""

    __slots__ = ("chosen", "chosen_not_tolerated", "empty_right", "empty_total", "found", "n", "needed")

    def __init__(self) -> None:
        self.n = self.found = self.needed = self.chosen = self.chosen_not_tolerated = 0
        self.empty_right = self.empty_total = 0

    def add(self, got: set[str], needs: set[str], tolerated: set[str]) -> None:
        self.n += 1
        self.found += len(got & needs)
        self.needed += len(needs)
        self.chosen += len(got)
        self.chosen_not_tolerated += len(got - (tolerated - needs))
        if not needs:
            self.empty_total += 1
            self.empty_right += not got

    def figures(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "recall": ratio(self.found, self.needed),
            "precision_counted": ratio(self.found, self.chosen),
            "precision_tolerated": ratio(self.found, self.chosen_not_tolerated),
            "sections_chosen_per_question": ratio(self.chosen, self.n),
            "sections_needed_per_question": ratio(self.needed, self.n),
            "no_section_questions_right": f"{self.empty_right}/{self.empty_total}",
        }


def needs_figures(classifier=None, *, limit: int | None = None, rows=None) -> dict[str, Any]:
    """Recall and precision of the classifier's sections against the needs labels."""
    if classifier is None:
        from health_ltm.read.classify import QueryClassifier

        classifier = QueryClassifier()
    rows = limited(load_jsonl(NEEDS_FILE), limit) if rows is None else rows
    groups: dict[str, _NeedsTally] = {}
    per_section = Tally()
    per_kind: dict[str, _NeedsTally] = {}
    failures: list[dict[str, Any]] = []
    listed: dict[str, int] = {}
    for row in rows:
        result = classifier.classify(row["query"], row.get("recent", []))
        got = {s.value for s in result.sections}
        needs, tolerated = set(row["needs"]), set(row.get("tolerated", []))
        split, lang = row["split"], row["lang"]
        for key in ("all", split, f"{split}:{lang}", f"lang:{lang}"):
            groups.setdefault(key, _NeedsTally()).add(got, needs, tolerated)
        for tag in row.get("tags", []):
            per_kind.setdefault(f"{split}:{tag}", _NeedsTally()).add(got, needs, tolerated)
        if split == "dev":
            for section in got | needs:
                per_section.add(section, got & {section} - (tolerated - needs), needs & {section})
        missing, extra = needs - got, got - needs - tolerated
        if (missing or extra) and split != HELD_APART and listed.get(split, 0) < MAX_EXAMPLES:
            listed[split] = listed.get(split, 0) + 1
            failures.append(
                {
                    "id": row["id"],
                    "split": split,
                    "query": row["query"],
                    "classes": result.classes,
                    "missing": sorted(missing),
                    "extra": sorted(extra),
                    "tolerated_extra": sorted(got & tolerated - needs),
                }
            )
    return {
        "file": NEEDS_FILE,
        "questions": len(rows),
        "groups": {key: tally.figures() for key, tally in sorted(groups.items())},
        "per_tag": {key: tally.figures() for key, tally in sorted(per_kind.items())},
        "per_section_dev_tolerated": per_section.table(sorted(per_section.counts)),
        "overlap": overlap(rows),
        "failures": failures,
    }


def second_labeller(classifier) -> dict[str, dict[str, Any]]:
    """The second labels of fresh11 and fresh12 scored against the first (as if the second
    labeller were a classifier), the first against the second, and the classifier against the
    second: the agreement a classifier's figures sit beside."""
    first = {row["id"]: row for row in load_jsonl(NEEDS_FILE)}
    tallies = {name: _NeedsTally() for name in ("second labeller vs first", "first labeller vs second")}
    tallies["classifier vs second labeller"] = _NeedsTally()
    for second in load_jsonl(SECOND_FILE):
        row = first[second["id"]]
        one, two = set(row["needs"]), set(second["needs"])
        tallies["second labeller vs first"].add(two, one, set(row.get("tolerated", [])))
        tallies["first labeller vs second"].add(one, two, set(second["tolerated"]))
        got = {s.value for s in classifier.classify(row["query"], row.get("recent", [])).sections}
        tallies["classifier vs second labeller"].add(got, two, set(second["tolerated"]))
    return {name: tally.figures() for name, tally in tallies.items()}


def _line(figures: dict[str, Any]) -> str:
    return (
        f"R {figures['recall']} · P {figures['precision_counted']} · "
        f"P(tolerated) {figures['precision_tolerated']} · "
        f"{figures['sections_chosen_per_question']} chosen / {figures['sections_needed_per_question']} "
        f"needed per question · n {figures['n']}"
    )


def needs_summary(
    needs: dict[str, Any], *, suffix: str = "", splits: tuple[str, ...] | None = None
) -> dict[str, str]:
    """One line per split (and per split and language when ``splits`` is not given), for the
    report's summary table."""
    groups = needs["groups"]
    keys = [k for k in (splits or ("all", *NEEDS_SPLITS)) if k in groups]
    if splits is None:
        keys += sorted(k for k in groups if ":" in k and not k.startswith("lang:"))
    return {f"needs {key.replace(':', ' ')}{suffix}": _line(groups[key]) for key in keys}
