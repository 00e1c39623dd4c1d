"""Context size: the ``prompt`` of POST /v1/context against the whole profile dumped as JSON.

A realistic 200-fact profile (``bench.profiles``); each question goes through the real handler
(in-process storage) and the response's ``prompt`` is counted with the service's tokenizer
(o200k_base, exact: the tokenizer is loaded first). The baseline is what a memory without
selection would hand the model: every fact, ``model_dump`` as JSON (``ensure_ascii=False``, so
Cyrillic is not inflated by escapes). A second, stricter baseline renders the whole profile with
the service's own compact lines (every section, no budget): it separates the gain of selecting
sections from the gain of the compact rendering.

Reported at the API's default budget (400 tokens) and at its maximum (4,000), so the reduction
is not just the budget cutting the prompt short.
"""

from __future__ import annotations

import json
import statistics

from bench import harness
from bench.profiles import build_profile, seed

SINGLE_TOPIC = [
    "Можно ли мне ибупрофен?",
    "На что у меня аллергия?",
    "Какие лекарства я сейчас принимаю?",
    "Как мне бросить курить?",
    "Какие операции у меня были?",
]
MULTI_TOPIC = [
    "Можно ли мне бегать после операции на колене с моим давлением и какие таблетки взять с собой?",
    "Что мне съесть на ужин и можно ли выпить бокал вина с моими лекарствами?",
    "У мамы был диабет, а у меня болит голова и скачет давление — что мне делать?",
]
BUDGETS = (400, 4000)
TARGET_REDUCTION = 0.80
USER = "bench-context-200"


def run(quick: bool = False) -> dict:
    from health_ltm.domain.sections import Section
    from health_ltm.read import tokens
    from health_ltm.read.context import render_prompt
    from health_ltm.storage.memory import InMemoryRepository

    tokens.count_tokens("warm up")  # load the tokenizer up front
    profile = build_profile(200, seed=5)
    repo = InMemoryRepository()
    seed(repo, USER, profile)
    memory = repo.load_memory(USER)
    everything = [f.model_dump(mode="json") for f in memory.facts + memory.documented]
    dump = json.dumps(everything, ensure_ascii=False)
    dump_tokens = tokens.count_tokens(dump)
    rendered, _ = render_prompt(memory, set(Section), True, [], [], [], [], [], 10**9)
    rendered_tokens = tokens.count_tokens(rendered)

    questions: dict[str, list[dict]] = {"single_topic": [], "multi_topic": []}
    with harness.use_repository(repo):
        for kind, texts in (("single_topic", SINGLE_TOPIC), ("multi_topic", MULTI_TOPIC)):
            for text in texts:
                row: dict = {"question": text}
                for budget in BUDGETS:
                    body = json.loads(
                        harness.invoke_api(harness.api_event(text, USER, max_tokens=budget))["body"]
                    )
                    prompt_tokens = tokens.count_tokens(body["prompt"])
                    row[str(budget)] = {
                        "prompt_tokens": prompt_tokens,
                        "reported_tokens": body["tokens"]["prompt"],
                        "prompt_lines": sum(
                            1 for line in body["prompt"].splitlines() if line.startswith("- ")
                        ),
                        "sections": body["sections"],
                        "vs_json_dump": round(1 - prompt_tokens / dump_tokens, 4),
                        "vs_rendered_profile": round(1 - prompt_tokens / rendered_tokens, 4),
                    }
                questions[kind].append(row)

    def summary(kind: str, budget: int) -> dict:
        rows = [r[str(budget)] for r in questions[kind]]
        return {
            "prompt_tokens_median": statistics.median(r["prompt_tokens"] for r in rows),
            "prompt_tokens_max": max(r["prompt_tokens"] for r in rows),
            "reduction_vs_json_dump_median": statistics.median(r["vs_json_dump"] for r in rows),
            "reduction_vs_json_dump_min": min(r["vs_json_dump"] for r in rows),
            "reduction_vs_rendered_profile_median": statistics.median(r["vs_rendered_profile"] for r in rows),
            "reduction_vs_rendered_profile_min": min(r["vs_rendered_profile"] for r in rows),
        }

    summaries = {kind: {str(b): summary(kind, b) for b in BUDGETS} for kind in questions}
    worst_single = summaries["single_topic"]["4000"]["reduction_vs_json_dump_min"]
    return {
        "profile": profile.describe(),
        "tokenizer": tokens.tokenizer_name(),
        "whole_profile_json_tokens": dump_tokens,
        "whole_profile_json_bytes": len(dump.encode("utf-8")),
        "whole_profile_rendered_tokens": rendered_tokens,
        "questions": questions,
        "summary": summaries,
        "target": {
            "single_topic_reduction_at_least": TARGET_REDUCTION,
            "worst_single_topic_reduction_at_max_budget": worst_single,
            "met": worst_single >= TARGET_REDUCTION,
        },
    }
