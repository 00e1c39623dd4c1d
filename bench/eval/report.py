"""The evaluation report: one JSON file (machine-readable) and one Markdown file, dated.

``docs/eval/report-<date>.json`` and ``docs/eval/report-<date>.md`` hold a run; ``latest.md`` is
the newest Markdown, so that links need not change. The Markdown is rendered from the JSON alone
(the words are in bench/templates/eval.md), so a committed report can be rendered again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench.render import cell, fill, join, table

from .common import REPO_ROOT

OUT_DIR = REPO_ROOT / "docs" / "eval"
COLUMNS = ("offline", "model")
NOT_CONFIGURED = "model: not configured"
SAME = "same as offline (no model involved)"

# level -> (title, [(summary key, label, target or "")]) for the headline table
HEADLINES: dict[str, tuple[str, list[tuple[str, str, str]]]] = {
    "questions": (
        "Question → sections",
        [
            ("needs dev", "by what the answer needs, dev", "R ≥ 0.95 · P ≥ 0.75 · P(tol.) ≥ 0.90"),
            ("needs heldout", "by what the answer needs, heldout", "same"),
            ("needs fresh", "by what the answer needs, fresh (tuned on since)", "same"),
            ("needs fresh2", "by what the answer needs, fresh2 (tuned on since)", "same"),
            ("needs fresh3", "by what the answer needs, fresh3 (written blind; tuned on since)", "same"),
            ("needs fresh4", "by what the answer needs, fresh4 (written blind; tuned on since)", "same"),
            ("needs fresh5", "by what the answer needs, fresh5 (written blind; tuned on since)", "same"),
            ("needs fresh6", "by what the answer needs, fresh6 (written blind; tuned on since)", "same"),
            ("needs fresh8", "by what the answer needs, fresh8 (written blind; tuned on since)", "same"),
            ("needs fresh9", "by what the answer needs, fresh9 (written blind; tuned on since)", "same"),
            ("needs fresh7", "by what the answer needs, fresh7 (written blind; tuned on since)", "same"),
            (
                "needs fresh10",
                "by what the answer needs, fresh10 (written blind; decided the gate, trained on since)",
                "same",
            ),
            (
                "needs fresh11",
                "by what the answer needs, fresh11 (written blind; decided the gate, trained on)",
                "same",
            ),
            (
                "needs fresh12",
                "by what the answer needs, fresh12 (written blind; decided the gate, trained on)",
                "same",
            ),
            ("needs fresh14", "by what the answer needs, fresh14 (blind; once, then trained on)", "same"),
            ("needs fresh15", "by what the answer needs, fresh15 (blind; once, then trained on)", "same"),
            ("needs fresh16", "by what the answer needs, fresh16 (blind; once, then trained on)", "same"),
            ("needs fresh17", "by what the answer needs, fresh17 (blind; once, then trained on)", "same"),
            ("needs fresh13", "by what the answer needs, fresh13 (written blind, held apart)", "same"),
            (
                "needs fresh13 (class map alone)",
                "by what the answer needs, fresh13 (held apart), class map alone (no gate)",
                "same",
            ),
            (
                "needs all",
                "by what the answer needs, every split (the gate trained on all but fresh13)",
                "same",
            ),
            ("needs all (class map alone)", "by what the answer needs, every split, class map alone", "same"),
            (
                "needs second labeller vs first",
                "a second labeller scored against the first (fresh11, fresh12): the labels' own agreement",
                "",
            ),
            ("needs classifier vs second labeller", "the classifier against the second labeller", ""),
            ("recall", "recall (micro), class-map labels", ""),
            ("precision", "precision (micro), class-map labels", ""),
            ("exact_set_accuracy", "exact-set accuracy, class-map labels", ""),
        ],
    ),
    "mts_dialog": (
        "Dialogue → sections (MTS-Dialog)",
        [
            ("recall", "labelled section chosen", ""),
            ("nothing_chosen", "nothing chosen", ""),
            ("note_section_ends_shown", "note section ends with a shown fact / status", ""),
            ("note_section_ends_stored", "... with any stored fact / status", ""),
            ("no_allergies_note_ends_confirmed_absent", "'no known allergies' → confirmed_absent", ""),
            ("relative_as_self_candidates", "relative-as-self candidates (proxy)", ""),
        ],
    ),
    "extraction": (
        "Extraction",
        [
            ("precision", "precision", ""),
            ("recall", "recall", ""),
            ("hallucinated_assertions", "hallucinated assertions", "0"),
            ("negation_accuracy", "negation accuracy", ""),
            ("confirmed_absence_accuracy", "confirmed-absence accuracy", ""),
            ("false_absences", "false absences", "0"),
        ],
    ),
    "dialogues": (
        "What whole dialogues leave in memory",
        [
            ("recall_shown", "recall, stored and shown", ""),
            ("recall_stored", "recall, stored at all", ""),
            ("precision_shown", "precision (shown facts)", ""),
            ("heldout_recall_shown", "heldout recall, shown", ""),
            ("blind_held_recall_shown", "blind_held recall, shown (written blind, never tuned on)", ""),
            ("blind_held_precision_shown", "blind_held precision, shown", ""),
            ("blind2_held_recall_shown", "blind2_held recall, shown (written blind, never tuned on)", ""),
            ("blind2_held_precision_shown", "blind2_held precision, shown", ""),
            ("blind3_held_recall_shown", "blind3_held recall, shown (written blind, never tuned on)", ""),
            ("blind3_held_precision_shown", "blind3_held precision, shown", ""),
            ("blind4_held_recall_shown", "blind4_held recall, shown (written blind, never tuned on)", ""),
            ("blind4_held_precision_shown", "blind4_held precision, shown", ""),
            ("blind5_held_recall_shown", "blind5_held recall, shown (written blind, held whole)", ""),
            ("blind5_held_precision_shown", "blind5_held precision, shown", ""),
            ("blind6_held_recall_shown", "blind6_held recall, shown (written blind, never tuned on)", ""),
            ("blind6_held_precision_shown", "blind6_held precision, shown", ""),
            ("blind7_held_recall_shown", "blind7_held recall, shown (written blind, never tuned on)", ""),
            ("blind7_held_precision_shown", "blind7_held precision, shown", ""),
            ("blind8_held_recall_shown", "blind8_held recall, shown (written blind, never tuned on)", ""),
            ("blind8_held_precision_shown", "blind8_held precision, shown", ""),
            ("blind9_held_recall_shown", "blind9_held recall, shown (written blind, never tuned on)", ""),
            ("blind9_held_precision_shown", "blind9_held precision, shown", ""),
            ("blind10_held_recall_shown", "blind10_held recall, shown (written blind, never tuned on)", ""),
            ("blind10_held_precision_shown", "blind10_held precision, shown", ""),
            ("relative_as_self", "relative / other person stored as self", "0"),
            ("affirmed_as_absent", "affirmed stored as absent", "0"),
            ("denied_as_present", "denied stored as present", "0"),
            ("retracted_stored", "retracted mention stored", "0"),
        ],
    ),
    "transitions": ("Transitions", [("accuracy", "cases right", "1.0")]),
    "retrieval": (
        "Retrieval",
        [
            ("required_present_of_stored", "required facts present (of stored)", ""),
            ("questions_with_irrelevant_section_in_context", "questions with an irrelevant section", "0"),
            ("status_filtering_hidden", "status filtering", "all"),
        ],
    ),
    "end_to_end": (
        "End to end (local stack)",
        [("facts_in_next_session_context", "facts in next session", "")],
    ),
    "locomo": (
        "Episodic retrieval (LoCoMo)",
        [
            ("hybrid R@10", "R@10 hybrid", "> 0.541"),
            ("vector R@10", "R@10 vector only", ""),
            ("bm25 R@10", "R@10 BM25 (this run)", ""),
        ],
    ),
    "edge_cases": ("Edge cases", [("score", "checks passed", "")]),
}


def _t(block: str, **values: Any) -> str:
    return fill("eval", block, **values)


def _column(report: dict[str, Any], level: str, column: str) -> Any:
    return report["levels"].get(level, {}).get(column)


def _summary_value(entry: Any, key: str) -> str:
    if isinstance(entry, dict):
        if "skipped" in entry:
            return "skipped"
        if "error" in entry:
            return "error"
        return cell(entry.get("summary", {}).get(key))
    if entry == SAME:
        return "same"
    return "n/c" if entry == NOT_CONFIGURED else cell(entry)


def _measured(entry: Any, key: str) -> bool:
    """False for a metric a run's level did not report (an older run: no row for it)."""
    if not isinstance(entry, dict):
        return False
    return "skipped" in entry or "error" in entry or key in entry.get("summary", {})


def markdown(report: dict[str, Any], latest: bool = False) -> str:
    git = report.get("git", {})
    commit = (git.get("commit") or "unknown")[:12] + (_t("dirty") if git.get("dirty") else "")
    stem = f"report-{report['date']}"
    title = (
        _t("title_latest", date=report["date"], json=f"{stem}.json")
        if latest
        else _t("title_dated", date=report["date"])
    )
    config_rows = []
    for column in COLUMNS:
        described = report["configurations"].get(column)
        if not isinstance(described, dict):
            config_rows.append([column, described or NOT_CONFIGURED, "", "", "", ""])
            continue
        config_rows.append(
            [
                column,
                described["section_classifier"],
                described["extractor"],
                f"{described['embedder']['name']} ({described['embedder']['dimensions']} dims)",
                "{data_version} ({data_sha256})".format(**described["query_classifier"]),
                f"policies {described['policy_version']}, synonyms {described['synonyms_version']}",
            ]
        )
    levels = [level for level in HEADLINES if level in report["levels"]]
    headline = [
        [title_, label, _summary_value(offline, key), _summary_value(model, key), target]
        for level in levels
        for title_, metrics in [HEADLINES[level]]
        for offline, model in [(_column(report, level, "offline"), _column(report, level, "model"))]
        for key, label, target in metrics
        if _measured(offline, key) or _measured(model, key)
    ]
    header = _t(
        "header",
        title=title,
        commit=commit,
        seconds=f"{report['total_s']:.0f}",
        cpus=report["machine"]["cpus"],
        configuration=report["committed_configuration"],
        configurations=table(
            ["column", "section classifier", "extractor", "embedder", "query classes data", "data versions"],
            config_rows,
        ),
        headline=table(["level", "metric", "offline", "model", "target"], headline),
        not_configured=NOT_CONFIGURED,
    )
    sections = [
        _t("level", title=HEADLINES[level][0], body=_level_section(report, level)) for level in levels
    ]
    return join([header, *sections, _notes(report)])


def _notes(report: dict[str, Any]) -> str:
    model = report["configurations"].get("model")
    if not isinstance(model, dict):
        note = _t("notes.offline")
    elif report.get("model_endpoint"):
        note = _t("notes.model", endpoint=report["model_endpoint"])
    else:
        note = ""
    return _t("notes", model=note)


def _level_section(report: dict[str, Any], level: str) -> str:
    offline = _column(report, level, "offline")
    model = _column(report, level, "model")
    if not isinstance(offline, dict):
        return f"_{offline}_"
    if "skipped" in offline:
        return _t("skipped", reason=offline["skipped"])
    if "error" in offline:
        return _t("error", reason=offline["error"])
    if isinstance(model, dict) and "summary" in model:
        model_summary = model["summary"]

        def other(key: str) -> Any:
            return model_summary.get(key)
    else:
        placeholder = (
            "same" if model == SAME else "n/c" if model == NOT_CONFIGURED else _summary_value(model, "")
        )

        def other(key: str) -> Any:
            return placeholder

    rows = [[key.replace("_", " "), value, other(key)] for key, value in offline.get("summary", {}).items()]
    parts = [_t(level), table(["metric", "offline", "model"], rows)]
    parts += _extra_tables(level, offline, model if isinstance(model, dict) else None)
    failures = offline.get("failures") or []
    if failures:
        items = "\n".join(f"- `{json.dumps(f, ensure_ascii=False)[:300]}`" for f in failures)
        parts.append(_t("failures", count=len(failures), items=items))
    return join(parts).rstrip("\n")


def _prf_rows(rows: dict[str, dict[str, Any]], other: dict[str, dict[str, Any]] | None) -> list[list[Any]]:
    out = []
    for key, row in rows.items():
        cells = [key, row["precision"], row["recall"], row["tp"] + row["fn"]]
        if other is not None:
            o = other.get(key, {})
            cells += [o.get("precision"), o.get("recall")]
        out.append(cells)
    return out


def _extra_tables(level: str, offline: dict[str, Any], model: dict[str, Any] | None) -> list[str]:
    render = _EXTRA.get(level)
    return render(offline, model) if render else []


def _questions(offline: dict[str, Any], model: dict[str, Any] | None) -> list[str]:
    subsets = [
        [f"{kind} {k}", v["n"], v["precision"], v["recall"], v["exact"]]
        for kind, rows in (("lang", offline["per_language"]), ("split", offline["per_split"]))
        for k, v in rows.items()
    ]
    return [
        _t(
            "questions.tables",
            per_section=table(
                ["section", "precision", "recall", "support"], _prf_rows(offline["per_section"], None)
            ),
            per_subset=table(["subset", "questions", "precision", "recall", "exact set"], subsets),
            exemplars=offline["overlap"]["with_exemplars"],
            unit_tests=offline["overlap"]["with_unit_tests"],
        )
    ]


def _extraction(offline: dict[str, Any], model: dict[str, Any] | None) -> list[str]:
    header = ["section", "precision", "recall", "support"] + (["model P", "model R"] if model else [])
    out = [
        _t(
            "extraction.tables",
            columns="offline" + (", model" if model else ""),
            per_section=table(
                header, _prf_rows(offline["per_section"], model["per_section"] if model else None)
            ),
            per_language=table(
                ["language", "precision", "recall", "support"], _prf_rows(offline["per_language"], None)
            ),
            tags=", ".join(f"{k} {v}" for k, v in offline["per_tag_fragment_exact"].items()),
            polarity=", ".join(f"{k} {v}" for k, v in offline["polarity"].items()),
        )
    ]
    if offline.get("section_confusion"):
        confusion = ", ".join(f"{k} ×{v}" for k, v in offline["section_confusion"].items())
        out.append(_t("extraction.confusion", confusion=confusion))
    return out


def _mts_dialog(offline: dict[str, Any], model: dict[str, Any] | None) -> list[str]:
    groups = [
        [group, row["n"], row["recall"], (model or {}).get("per_group", {}).get(group, {}).get("recall")]
        for group, row in offline["per_group"].items()
    ]
    precision = ", ".join(
        f"{k} {v['precision']} ({v['chosen']})" for k, v in offline["precision_lower_bound"].items()
    )
    out = [
        _t(
            "mts_dialog.groups",
            groups=table(["header group", "dialogues", "offline", "model"], groups),
            precision=precision,
        )
    ]
    if "stored_per_group" in offline:
        rows = []
        for group, by_split in offline["stored_per_group"].items():
            cells: list[Any] = [group, by_split["all"]["n"]]
            for split in ("train", "validation", "all"):
                row = by_split[split]
                cells.append("–" if not row["n"] else f"{cell(row['shown'])} ({cell(row['stored'])})")
            rows.append(cells)
        out.append(
            _t(
                "mts_dialog.stored",
                table=table(["header group", "dialogues", "train", "validation", "all"], rows),
            )
        )
        examples = offline.get("relative_as_self_candidates") or []
        if examples:
            listed = "; ".join(f"{e['id']} {e['fact']}: “{e['turn'][:80]}”" for e in examples[:5])
            out.append(_t("mts_dialog.examples", examples=listed))
    headers = ", ".join(f"{k} {v}" for k, v in offline["unmapped_headers"].items())
    out.append(_t("mts_dialog.unmapped", headers=headers))
    return out


_DIALOGUE_COLUMNS = {
    "dialogues": "dialogues",
    "expected": "expected",
    "recall_shown": "recall shown",
    "recall_stored": "recall stored",
    "precision_shown": "precision shown",
    "wrong_attributions": "wrong attributions",
    "fully_right": "fully right",
}


def _dialogues(offline: dict[str, Any], model: dict[str, Any] | None) -> list[str]:
    header = ["subset", *_DIALOGUE_COLUMNS.values()]

    def rows(prefix: str, by: dict[str, Any]) -> list[list[Any]]:
        return [[f"{prefix}{k}", *(v[c] for c in _DIALOGUE_COLUMNS)] for k, v in by.items()]

    subsets = rows("split ", offline["per_split"]) + rows("lang ", offline["per_language"])
    if model and "per_split" in model:
        subsets += rows("model: split ", model["per_split"])
    out = [
        _t(
            "dialogues.tables",
            wrong=", ".join(
                f"{k} {v['stored']} ({v['shown']})" for k, v in offline["wrong_attributions"].items()
            ),
            per_subset=table(header, subsets),
            per_section=table(
                ["section", "expected", "recall shown", "recall stored"],
                [
                    [k, v["expected"], v["recall_shown"], v["recall_stored"]]
                    for k, v in offline["per_section"].items()
                ],
            ),
            per_tag=table(header, rows("", offline["per_tag"])),
        )
    ]
    examples = offline.get("wrong_attribution_examples") or []
    if examples:
        items = "\n".join(
            f"- {e['id']} {e['category']}: {e['fact'] or e['label']} ← {e['label']}" for e in examples
        )
        out.append(_t("dialogues.examples", items=items))
    return out


def _locomo(offline: dict[str, Any], model: dict[str, Any] | None) -> list[str]:
    rows = [["README floor (BM25)", *offline["readme_floor"].values()]]
    rows += [[f"{method} (offline)", *row.values()] for method, row in offline["recall"].items()]
    if model:
        rows += [[f"{method} (model)", *row.values()] for method, row in model["recall"].items()]
    categories = "; ".join(
        f"{m}: " + ", ".join(f"{c} {v}" for c, v in cats.items())
        for m, cats in offline["recall_at_10_by_category"].items()
    )
    timing = "; ".join(
        f"{m} median {t['median']}, p95 {t['p95']} over ~{t['episodes_per_user']} episodes per user"
        for m, t in offline["search_ms"].items()
    )
    return [
        _t(
            "locomo.tables",
            columns="offline" + (", model" if model else ""),
            recall=table(["ranking", "R@1", "R@5", "R@10", "R@20"], rows),
            categories=categories,
            timing=timing,
        )
    ]


def _transitions(offline: dict[str, Any], model: dict[str, Any] | None) -> list[str]:
    return [
        _t(
            "transitions.tables",
            categories=", ".join(f"{k} {v}" for k, v in offline["per_category"].items()),
            cases=table(
                ["case", "category", "what", "ok"],
                [[c["id"], c["category"], c["what"], c["ok"]] for c in offline["cases"]],
            ),
        )
    ]


def _edge_cases(offline: dict[str, Any], model: dict[str, Any] | None) -> list[str]:
    rows = []
    for s in offline["scenarios"]:
        other = next((m["passed"] for m in (model or {}).get("scenarios", []) if m["id"] == s["id"]), None)
        rows.append([s["id"], s["title"], s["from"], s["passed"], other])
    return [_t("edge_cases.tables", scenarios=table(["id", "scenario", "from", "offline", "model"], rows))]


_EXTRA = {
    "questions": _questions,
    "extraction": _extraction,
    "mts_dialog": _mts_dialog,
    "dialogues": _dialogues,
    "locomo": _locomo,
    "transitions": _transitions,
    "edge_cases": _edge_cases,
}


def write(report: dict[str, Any], out_dir: Path = OUT_DIR) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path = out_dir / f"report-{report['date']}.json"
    json_path.write_text(
        json.dumps(report, ensure_ascii=False, indent=2, default=str) + "\n", encoding="utf-8"
    )
    return [json_path, *render_pages(json_path)]


def render_pages(json_path: Path, latest: bool = True) -> list[Path]:
    """The Markdown of one report JSON, and latest.md too when asked."""
    report = json.loads(json_path.read_text(encoding="utf-8"))
    md_path = json_path.with_suffix(".md")
    md_path.write_text(markdown(report), encoding="utf-8")
    if not latest:
        return [md_path]
    latest_path = json_path.parent / "latest.md"
    latest_path.write_text(markdown(report, latest=True), encoding="utf-8")
    return [md_path, latest_path]


def render_all(out_dir: Path = OUT_DIR) -> list[Path]:
    """Every report-<date>.md again from its JSON; latest.md from the newest."""
    reports = sorted(out_dir.glob("report-*.json"))
    written: list[Path] = []
    for n, path in enumerate(reports, 1):
        written += render_pages(path, latest=n == len(reports))
    return written
