"""Write path: WritePath.process per fragment, with the model's latency excluded.

Two ways to take the model out, both through the real pipeline (quality filter, validation,
evidence check, matching, transitions, conditional transaction, episode):

- ``rules``: the offline RuleSectionClassifier + RuleExtractor (what runs with no model key);
  the time includes the rules themselves.
- ``recorded``: a classifier and an extractor that return pre-recorded output (the rules'
  output, recorded once before timing) instantly: model time = 0, so the time is the pipeline's
  own. This is what a model-backed extraction costs beyond the model calls.

Storage: in-process, and the DynamoDB repository against the emulator, where every DynamoDB
call is counted and the write units of each are computed from item sizes (see
``harness.DynamoMeter``). Each round is a new user who already has a 50-fact profile and says
the fragments below in order (a month of conversations, Russian and English, with assistant
turns, a correction, a "no allergies", a repeat and noise that the quality filter drops).
The episode goes to the local vector index with the local embedder (in AWS: an embedding
call and an OpenSearch write, not measured here).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import timedelta

from bench import harness
from bench.profiles import NOW, build_profile, seed
from bench.stats import summarize, summarize_counts

U, A = "user", "assistant"
FRAGMENTS: list[list[tuple[str, str]]] = [
    [(U, "Пью Энап 5 мг по утрам от давления"), (A, "Спасибо, запомню. Как давление сейчас?")],
    [(U, "У меня аллергия на пенициллин, была сыпь"), (A, "Поняла, это важно.")],
    [(U, "Врач назначил метформин 500 мг"), (A, "Когда начинаете приём?"), (U, "С понедельника")],
    [(U, "ок"), (A, "Чем ещё могу помочь?"), (U, "123")],
    [(U, "Третий день болит голова, температура 37.5"), (A, "Сочувствую. Есть ли другие симптомы?")],
    [(U, "I'm allergic to peanuts and my mom has type 2 diabetes")],
    [(U, "Начал принимать метформин"), (A, "Хорошо, как переносите?"), (U, "Нормально")],
    [(U, "Мне 34 года, рост 180, вешу 82 кг")],
    [(U, "Хронических заболеваний нет"), (A, "Отлично.")],
    [(U, "В 2019 году удалили аппендикс, а в прошлом году сломал руку")],
    [(U, "Врач увеличил дозу метформина до 1000 мг")],
    [(U, "Ой, я ошибся, мне 35"), (A, "Исправлю.")],
    [(U, "I take Enap 5 mg every morning for blood pressure")],
    [(U, "Бросил курить месяц назад, теперь бегаю по утрам")],
    [(U, "Сделал прививку от гриппа в октябре")],
    [(U, "Больше не принимаю метформин"), (A, "Это согласовано с врачом?"), (U, "Да")],
]


class RecordedClassifier:
    """The sections the rules chose for this fragment, returned at once (model time = 0)."""

    name = "recorded"

    def __init__(self, recorded: dict[tuple[str, ...], tuple[list, list]]) -> None:
        self._recorded = recorded

    def classify(self, messages: Sequence) -> list:
        return list(self._recorded[tuple(m.text for m in messages)][0])


class RecordedExtractor:
    name = "recorded"

    def __init__(self, recorded: dict[tuple[str, ...], tuple[list, list]]) -> None:
        self._recorded = recorded

    def extract(self, messages: Sequence, sections: Sequence) -> list:
        return [a.model_copy() for a in self._recorded[tuple(m.text for m in messages)][1]]


def record(clock) -> dict[tuple[str, ...], tuple[list, list]]:
    """Run the rules once over every fragment (after the quality filter, as the pipeline does)."""
    from health_ltm.domain.models import Message, Role
    from health_ltm.write.quality import filter_messages
    from health_ltm.write.rules import RuleExtractor, RuleSectionClassifier

    classifier, extractor = RuleSectionClassifier(), RuleExtractor(clock=clock)
    out = {}
    for fragment in FRAGMENTS:
        messages = [Message(role=Role(role), text=text) for role, text in fragment]
        kept = list(filter_messages(messages).kept)
        if not kept:
            continue
        sections = classifier.classify(kept)
        assertions = extractor.extract(kept, sections) if sections else []
        out[tuple(m.text for m in kept)] = (sections, assertions)
    return out


def _path(repo, mode: str, clock, recorded):
    from health_ltm.adapters.local_embedder import HashingEmbedder
    from health_ltm.adapters.local_vector_index import LocalVectorIndex
    from health_ltm.domain.ids import new_ulid
    from health_ltm.write.pipeline import WritePath
    from health_ltm.write.rules import RuleExtractor, RuleSectionClassifier

    if mode == "rules":
        classifier, extractor = RuleSectionClassifier(), RuleExtractor(clock=clock)
    else:
        classifier, extractor = RecordedClassifier(recorded), RecordedExtractor(recorded)
    return WritePath(
        repository=repo,
        classifier=classifier,
        extractor=extractor,
        clock=clock,
        new_id=new_ulid,
        vector_index=LocalVectorIndex(None),
        embedder=HashingEmbedder(),
    )


class _Queue:
    def send(self, user_id: str, fragment_id: str) -> None:
        pass


def _round(repo, user: str, clock, paths: dict, meter=None) -> dict[str, list[dict]]:
    """Every fragment once per mode, for this round's users (one user per mode)."""
    from health_ltm.domain.ids import new_ulid
    from health_ltm.domain.models import Message, Role
    from health_ltm.observability import metrics
    from health_ltm.write.intake import submit_fragment

    rows: dict[str, list[dict]] = {mode: [] for mode in paths}
    for index, fragment in enumerate(FRAGMENTS):
        clock.set(NOW + timedelta(days=2 * index))
        for mode, path in paths.items():
            uid = f"{user}-{mode}"
            messages = [Message(role=Role(role), text=text) for role, text in fragment]
            stored = submit_fragment(repo, _Queue(), clock, new_ulid, uid, f"s{index}", messages)
            if meter is not None:
                meter.reset()
            calls = repo.calls
            started = time.perf_counter()
            outcome = path.process(uid, stored.id)
            elapsed = time.perf_counter() - started
            metrics.clear_metrics()  # the handler would flush them; here they would pile up
            row = {
                "fragment": index,
                "seconds": elapsed,
                "status": outcome.status.value,
                "applied": len(outcome.applied),
                "rejected": len(outcome.rejected),
                "repository_calls": repo.calls - calls,
            }
            if meter is not None:
                usage = meter.reset()
                row.update(
                    dynamodb_calls=usage.total_calls,
                    by_operation=usage.calls,
                    write_units=usage.write_units,
                    read_units=usage.read_units,
                    storage_seconds=usage.seconds,
                )
            rows[mode].append(row)
    return rows


def _aggregate(rows: list[dict], dynamo: bool) -> dict:
    applied = sum(r["applied"] for r in rows)
    out = {
        "per_fragment": summarize([r["seconds"] for r in rows]),
        "fragments": len(rows),
        "applied_events": applied,
        "rejected_events": sum(r["rejected"] for r in rows),
        "statuses": {
            s: sum(1 for r in rows if r["status"] == s) for s in sorted({r["status"] for r in rows})
        },
        "repository_calls_per_fragment": summarize_counts([r["repository_calls"] for r in rows]),
    }
    with_events = [r for r in rows if r["applied"]]
    if with_events:
        out["per_fragment_with_events"] = summarize([r["seconds"] for r in with_events])
    if dynamo:
        calls = sum(r["dynamodb_calls"] for r in rows)
        wcu = sum(r["write_units"] for r in rows)
        rcu = sum(r["read_units"] for r in rows)
        by_op: dict[str, int] = {}
        for r in rows:
            for op, n in r["by_operation"].items():
                by_op[op] = by_op.get(op, 0) + n
        out.update(
            dynamodb_calls_per_fragment=round(calls / len(rows), 2),
            dynamodb_calls_per_applied_event=round(calls / applied, 2) if applied else None,
            write_units_per_fragment=round(wcu / len(rows), 2),
            write_units_per_applied_event=round(wcu / applied, 2) if applied else None,
            read_units_per_fragment=round(rcu / len(rows), 2),
            calls_by_operation_per_fragment={op: round(n / len(rows), 2) for op, n in sorted(by_op.items())},
            in_storage_calls=summarize([r["storage_seconds"] for r in rows]),
        )
    return out


def run(quick: bool = False) -> dict:
    from health_ltm.domain.clock import FixedClock
    from health_ltm.storage.memory import InMemoryRepository

    clock = FixedClock(NOW)
    recorded = record(clock)
    base = build_profile(50, seed=11)
    out: dict = {"fragments": len(FRAGMENTS), "base_profile_facts": base.n_facts}

    rounds = 3 if quick else 20
    repo = InMemoryRepository()
    paths = {mode: _path(repo, mode, clock, recorded) for mode in ("rules", "recorded")}
    rows: dict[str, list[dict]] = {mode: [] for mode in paths}
    for r in range(rounds + 1):
        for mode in paths:
            seed(repo, f"bench-write-{r}-{mode}", base)
        result = _round(repo, f"bench-write-{r}", clock, paths)
        if r == 0:
            continue  # warm-up round
        for mode in paths:
            rows[mode].extend(result[mode])
    out["in_process"] = {mode: _aggregate(rows[mode], dynamo=False) for mode in paths}
    out["intake_handler"] = _intake_handler(repo, 3 if quick else 20)

    rounds = 2 if quick else 6
    with harness.emulator() as env:
        repo = harness.dynamo_repository(env)
        meter = harness.DynamoMeter(repo.client, harness.size_lookup_for(env))
        paths = {mode: _path(repo, mode, clock, recorded) for mode in ("rules", "recorded")}
        rows = {mode: [] for mode in paths}
        for r in range(rounds + 1):
            for mode in paths:
                seed(repo, f"bench-write-{r}-{mode}", base)
            result = _round(repo, f"bench-write-{r}", clock, paths, meter)
            if r == 0:
                continue
            for mode in paths:
                rows[mode].extend(result[mode])
        out["emulator"] = {mode: _aggregate(rows[mode], dynamo=True) for mode in paths}
        out["emulator"]["per_fragment_detail"] = [
            {
                k: (round(v, 2) if isinstance(v, float) else v)
                for k, v in row.items()
                if k not in ("seconds", "storage_seconds", "by_operation")
            }
            for row in rows["recorded"][: len(FRAGMENTS)]
        ]
        out["emulator"]["intake"] = _intake(repo, meter, clock)
    return out


def _intake_handler(repo, rounds: int) -> dict:
    """POST /v1/fragments through the api handler, in-process storage, the queue a no-op."""
    samples = []
    with harness.use_repository(repo, fragment_queue=_Queue()):
        for r in range(rounds + 1):
            for index, fragment in enumerate(FRAGMENTS):
                event = harness.fragment_event(fragment, f"bench-intake-{r}", f"s{index}")
                started = time.perf_counter()
                harness.invoke_api(event, expect=202)
                if r:
                    samples.append(time.perf_counter() - started)
    return summarize(samples)


def _intake(repo, meter, clock) -> dict:
    """What POST /v1/fragments writes before the worker runs (the fragment and its pending
    mention), per fragment."""
    from health_ltm.domain.ids import new_ulid
    from health_ltm.domain.models import Message, Role
    from health_ltm.write.intake import submit_fragment

    meter.reset()
    for index, fragment in enumerate(FRAGMENTS):
        messages = [Message(role=Role(role), text=text) for role, text in fragment]
        submit_fragment(repo, _Queue(), clock, new_ulid, "bench-intake", f"s{index}", messages)
    usage = meter.reset()
    return {
        "dynamodb_calls_per_fragment": round(usage.total_calls / len(FRAGMENTS), 2),
        "write_units_per_fragment": round(usage.write_units / len(FRAGMENTS), 2),
    }
