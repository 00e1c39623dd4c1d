"""Level 1: question -> sections (the read path's local query classifier).

Labels (data/questions.jsonl, written by us, RU/EN/ZH) give the sections each question needs,
by the labelling guide in data/README.md. Reported: precision and recall per section (micro and
macro), exact-set accuracy, per language and per split ("dev": the set the lexicon gaps were
found on; "heldout": written afterwards and never used to change the classifier), history-intent
accuracy, and the overlap with the classifier's exemplars and unit tests (must be none).
No model is involved: both columns of the report run the same local classifier.
"""

from __future__ import annotations

import ast
from typing import Any

from .common import MAX_EXAMPLES, REPO_ROOT, Tally, limited, load_jsonl, ratio

LEVEL = "questions"
MODEL_INDEPENDENT = True


def _fold(text: str) -> str:
    return " ".join(text.casefold().replace("ё", "е").split())


def overlap(rows: list[dict[str, Any]]) -> dict[str, int]:
    """Questions copied from the classifier's exemplars or its unit tests (should be none)."""
    from health_ltm.read.classify import load_query_classes

    exemplars = {_fold(e) for spec in load_query_classes().classes.values() for e in spec.exemplars.all()}
    test_file = REPO_ROOT / "tests" / "unit" / "test_classify.py"
    tests: set[str] = set()
    if test_file.exists():
        tree = ast.parse(test_file.read_text(encoding="utf-8"))
        tests = {
            _fold(n.value) for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
        }
    return {
        "with_exemplars": sum(_fold(r["query"]) in exemplars for r in rows),
        "with_unit_tests": sum(_fold(r["query"]) in tests for r in rows),
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
        },
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
