"""Read path: POST /v1/context through the real handler, with in-process storage and the emulator.

The handler (``health_ltm.handlers.api.handler``) gets an API Gateway REST proxy event like
``events/api_post_context.json`` for a user whose memory holds N facts; the time is the handler
call, event in, response out (Powertools resolver, validation, classification, the storage
query, status rules, prompt rendering, response serialisation). The tokenizer is loaded before
timing (its first-request cost is measured by the cold-start benchmark, in fresh processes).
All cases of a table are sampled round-robin in the same run.

The storage is keyed by section: a question reads the key ranges of its sections
(``storage.keys.read_ranges``), one Query each, in parallel. Every case reports its round trips
and the items and bytes it read; ``read_cost`` has them per question type, beside the whole
profile, and the single-topic / multi-topic byte ratio.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from bench import harness
from bench.profiles import build_profile, seed
from bench.stats import interleaved, summarize, summarize_counts

QUERIES = {
    "single_topic": "Можно ли мне ибупрофен?",
    "multi_topic": (
        "Можно ли мне бегать после операции на колене с моим давлением и какие таблетки взять с собой?"
    ),
    "history": "Какие лекарства я принимал раньше?",
}
# Read cost only (bytes, items, round trips; one call each, not timed): more question types.
COST_QUERIES = {
    "allergies_only": "На что у меня аллергия?",
    "vaccinations": "Когда я последний раз делал прививку от гриппа?",
    "family": "Какие болезни были у моих родителей?",
}
SIZES = (50, 500, 5000)


def _user(n: int) -> str:
    return f"bench-read-{n}"


def run(quick: bool = False) -> dict:
    from health_ltm.read import tokens

    tokens.count_tokens("warm up")  # load the tokenizer before anything is timed
    profiles = {n: build_profile(n) for n in SIZES}
    classes = _classes()
    out: dict = {
        "queries": {name: {"text": q, **classes[name]} for name, q in QUERIES.items()},
        "profiles": {str(n): p.describe() for n, p in profiles.items()},
        "in_process": in_process(profiles, quick),
        "components": components(profiles[500], quick),
    }
    out["emulator"] = emulator(profiles, quick)
    return out


def _classes() -> dict:
    from health_ltm.read.classify import QueryClassifier

    classifier = QueryClassifier()
    out = {}
    for name, query in QUERIES.items():
        result = classifier.classify(query, [])
        out[name] = {
            "classes": list(result.classes),
            "sections": [s.value for s in result.sections],
            "history_intent": result.history_intent,
            "needs_episodes": result.needs_episodes,
        }
    return out


def _case(
    event: dict, repo, calls: list[int], sizes: list[int], items: list[int] | None = None
) -> Callable[[], float]:
    def case() -> float:
        before, items_before = repo.calls, repo.items_read
        started = time.perf_counter()
        response = harness.invoke_api(event)
        elapsed = time.perf_counter() - started
        calls.append(repo.calls - before)
        if items is not None:
            items.append(repo.items_read - items_before)
        sizes.append(len(response["body"]))
        return elapsed

    return case


def in_process(profiles: dict, quick: bool) -> dict:
    from health_ltm.storage.memory import InMemoryRepository

    repo = InMemoryRepository()
    for n, profile in profiles.items():
        seed(repo, _user(n), profile)
    rounds = {50: 40, 500: 40, 5000: 6} if quick else {50: 300, 500: 300, 5000: 40}
    results: dict = {}
    with harness.use_repository(repo):
        for group in ((50, 500), (5000,)):
            group = tuple(n for n in group if n in profiles)
            if not group:
                continue
            calls: dict[str, list[int]] = {}
            sizes: dict[str, list[int]] = {}
            items: dict[str, list[int]] = {}
            cases = {}
            for n in group:
                for name, query in QUERIES.items():
                    key = f"{n}:{name}"
                    calls[key], sizes[key], items[key] = [], [], []
                    cases[key] = _case(
                        harness.api_event(query, _user(n)), repo, calls[key], sizes[key], items[key]
                    )
            samples = interleaved(cases, rounds[group[0]], warmup=3)
            for key, values in samples.items():
                n, name = key.split(":")
                results.setdefault(n, {})[name] = {
                    **summarize(values),
                    "storage_calls_per_request": summarize_counts(calls[key][-len(values) :]),
                    "items_read_per_request": items[key][-1],
                    "response_bytes": sizes[key][-1],
                }
    return results


def components(profile, quick: bool) -> dict:
    """Where the handler's time goes at 500 facts, each part timed on its own, interleaved."""
    from health_ltm import wiring
    from health_ltm.read.context import build_context, render_prompt, visible
    from health_ltm.storage.memory import InMemoryRepository

    repo = InMemoryRepository()
    user = _user(500)
    seed(repo, user, profile)
    rounds = 40 if quick else 300
    classifier = wiring.query_classifier()
    embedder, vectors = wiring.embedder(), wiring.vector_index()
    out: dict = {}
    with harness.use_repository(repo):
        cases: dict[str, Callable[[], float]] = {}
        for name, query in QUERIES.items():
            classification = classifier.classify(query, [])
            sections = list(classification.sections)
            memory = repo.load_memory(user, sections)
            selected = set(sections)
            history = classification.history_intent
            event = harness.api_event(query, user)

            def t_handler(event=event) -> float:
                started = time.perf_counter()
                harness.invoke_api(event)
                return time.perf_counter() - started

            def t_classify(query=query) -> float:
                started = time.perf_counter()
                classifier.classify(query, [])
                return time.perf_counter() - started

            def t_load(sections=sections) -> float:
                started = time.perf_counter()
                repo.load_memory(user, sections)
                return time.perf_counter() - started

            def t_build(classification=classification, query=query) -> float:
                started = time.perf_counter()
                build_context(repo, classification, user, query, 400, embedder=embedder, vector_index=vectors)
                return time.perf_counter() - started

            def t_render(memory=memory, selected=selected, history=history) -> float:
                started = time.perf_counter()
                render_prompt(memory, selected, history, [], [], [], [], [], 400)
                return time.perf_counter() - started

            cases[f"{name}:handler"] = t_handler
            cases[f"{name}:classify"] = t_classify
            cases[f"{name}:load_memory"] = t_load
            cases[f"{name}:build_context"] = t_build
            cases[f"{name}:render_prompt"] = t_render
            out[name] = {
                "visible_facts": sum(
                    1 for f in memory.facts if f.section in selected and visible(f, history)
                ),
            }
        samples = interleaved(cases, rounds, warmup=3)
    for key, values in samples.items():
        name, part = key.split(":")
        out[name][part] = summarize(values)
    for name in QUERIES:
        parts = out[name]
        parts["handler_overhead_median_ms"] = round(
            parts["handler"]["median_ms"]
            - parts["classify"]["median_ms"]
            - parts["build_context"]["median_ms"],
            3,
        )
    return out


def emulator(profiles: dict, quick: bool) -> dict:
    """The same handler with the DynamoDB repository, against the moto server on 127.0.0.1."""
    from health_ltm import wiring

    sizes = (50, 500) if quick else SIZES
    rounds = {50: 4, 500: 4, 5000: 0} if quick else {50: 12, 500: 12, 5000: 2}
    results: dict = {}
    with harness.emulator() as env:
        seeder = harness.dynamo_repository(env)
        seeding = {}
        for n in sizes:
            started = time.perf_counter()
            seed(seeder, _user(n), profiles[n])
            seeding[str(n)] = round(time.perf_counter() - started, 2)
        repo = wiring.repository()
        meter = _ParallelMeter(repo.client)
        parse = _ParseProbe(repo.client)
        for group in ((50, 500), (5000,)):
            group = tuple(n for n in group if n in sizes and rounds[n])
            if not group:
                continue
            usage: dict[str, list] = {}
            cases = {}
            for n in group:
                names = QUERIES if n < 5000 else {"single_topic": QUERIES["single_topic"]}
                for name, query in names.items():
                    key = f"{n}:{name}"
                    usage[key] = []
                    cases[key] = _metered_case(harness.api_event(query, _user(n)), meter, usage[key])
            samples = interleaved(cases, rounds[group[0]], warmup=1 if group[0] < 5000 else 0)
            for key, values in samples.items():
                n, name = key.split(":")
                usage[key] = usage[key][-len(values) :]  # the warm-up calls are not samples
                in_storage = [u.seconds for u in usage[key]]
                outside = [total - inside for total, inside in zip(values, in_storage, strict=True)]
                last = usage[key][-1]
                results.setdefault(n, {})[name] = {
                    **summarize(values),
                    "in_storage_calls": summarize(in_storage),
                    "outside_storage_calls": summarize(outside),
                    "dynamodb": {**last.as_dict(), "items_read": last.items_read},
                    "storage_calls_per_request": summarize_counts([u.total_calls for u in usage[key]]),
                }
        results["read_cost"] = read_cost(repo, meter, sizes)
        results["boto3_parse"] = parse.measure(repo, {n: _user(n) for n in sizes})
        results["boto3_parse_single_topic"] = parse.measure_question(
            {n: _user(n) for n in sizes}, QUERIES["single_topic"]
        )
        results["seeding_seconds"] = seeding
    return results


def read_cost(repo, meter, sizes) -> dict:
    """Bytes, items and round trips of one POST /v1/context per question type, and of the whole
    profile (``load_memory(user)``, the write path's load) for comparison."""
    from health_ltm.read.classify import QueryClassifier
    from health_ltm.storage import keys

    classifier = QueryClassifier()
    out: dict = {"max_round_trips": keys.max_read_ranges()}
    for n in sizes:
        rows: dict = {}
        meter.reset()
        repo.load_memory(_user(n))
        rows["whole_profile"] = _cost_row(meter.reset(), None)
        for name, query in {**QUERIES, **COST_QUERIES}.items():
            sections = [s.value for s in classifier.classify(query, []).sections]
            meter.reset()
            harness.invoke_api(harness.api_event(query, _user(n)))
            rows[name] = {
                **_cost_row(meter.reset(), sections),
                "read_ranges": len(keys.read_ranges(sections)),
            }
        single, multi = rows["single_topic"]["bytes_read"], rows["multi_topic"]["bytes_read"]
        rows["single_over_multi_bytes"] = round(single / multi, 3) if multi else None
        rows["single_over_whole_bytes"] = round(single / rows["whole_profile"]["bytes_read"], 3)
        out[str(n)] = rows
    return out


def _cost_row(usage, sections: list[str] | None) -> dict:
    return {
        "sections": sections,
        "round_trips": usage.total_calls,
        "by_operation": dict(sorted(usage.calls.items())),
        "items_read": usage.items_read,
        "bytes_read": usage.bytes_read,
        "read_units": round(usage.read_units, 2),
    }


def _metered_case(event: dict, meter, usage: list) -> Callable[[], float]:
    def case() -> float:
        meter.reset()
        started = time.perf_counter()
        harness.invoke_api(event)
        elapsed = time.perf_counter() - started
        usage.append(meter.reset())
        return elapsed

    return case


class _ParallelMeter(harness.DynamoMeter):
    """DynamoMeter for calls that overlap (a question's Queries run in parallel threads): start
    times per thread, counters under a lock, and the time in storage as the union of the calls'
    intervals (wall time with at least one call open), so 'outside' stays our own code."""

    def __init__(self, client) -> None:
        self._lock = threading.Lock()
        self._local = threading.local()
        self._intervals: list[tuple[float, float]] = []
        self._items = 0
        super().__init__(client)

    def _before_params(self, params, model, **kwargs):
        with self._lock:
            super()._before_params(params, model, **kwargs)

    def _before_call(self, **_):
        self._local.started = time.perf_counter()

    def _after_call(self, http_response, parsed, model, **kwargs):
        ended = time.perf_counter()
        with self._lock:
            self._intervals.append((self._local.started, ended))
            self._started = None
            if model.name == "Query":
                self._items += len(parsed.get("Items", []))
            elif model.name == "GetItem":
                self._items += 1 if parsed.get("Item") else 0
            super()._after_call(http_response=http_response, parsed=parsed, model=model, **kwargs)

    def reset(self):
        with self._lock:
            self.usage.seconds = _union(self._intervals)
            self._intervals = []
            usage = super().reset()
            usage.items_read, self._items = self._items, 0  # type: ignore[attr-defined]
        return usage


def _union(intervals: list[tuple[float, float]]) -> float:
    total, end = 0.0, float("-inf")
    for a, b in sorted(intervals):
        if b <= end:
            continue
        total += b - max(a, end)
        end = b
    return total


class _ParseProbe:
    """Records a Query response's raw bytes, then times botocore's parser on them."""

    def __init__(self, client) -> None:
        self.client = client

    def measure(self, repo, users: dict[int, str]) -> dict:
        from health_ltm.storage import keys

        captured: list[bytes] = []

        def grab(http_response, **_):
            captured.append(http_response.content)

        events = self.client.meta.events
        events.register("after-call.dynamodb.Query", grab)
        out = {}
        try:
            model = self.client.meta.service_model.operation_model("Query")
            parser = self.client._response_parser
            for n, user in users.items():
                captured.clear()
                self.client.query(
                    TableName=repo.table_name,
                    KeyConditionExpression="PK = :pk AND begins_with(SK, :ctx)",
                    ExpressionAttributeValues={
                        ":pk": {"S": keys.user_pk(user)},
                        ":ctx": {"S": keys.CONTEXT_PREFIX},
                    },
                )
                body = captured[0]
                reps = 30 if n < 5000 else 3
                times = []
                for _ in range(reps):
                    started = time.perf_counter()
                    parser.parse({"body": body, "headers": {}, "status_code": 200}, model.output_shape)
                    times.append(time.perf_counter() - started)
                out[str(n)] = {"first_page_bytes": len(body), **summarize(times)}
        finally:
            events.unregister("after-call.dynamodb.Query", grab)
        return out

    def measure_question(self, users: dict[int, str], query: str) -> dict:
        """The responses one question gets now (its section ranges), parsed the same way."""
        captured: list[bytes] = []

        def grab(http_response, **_):
            captured.append(http_response.content)

        events = self.client.meta.events
        events.register("after-call.dynamodb.Query", grab)
        out = {}
        try:
            model = self.client.meta.service_model.operation_model("Query")
            parser = self.client._response_parser
            for n, user in users.items():
                captured.clear()
                harness.invoke_api(harness.api_event(query, user))
                bodies = list(captured)
                reps = 30 if n < 5000 else 3
                times = []
                for _ in range(reps):
                    started = time.perf_counter()
                    for body in bodies:
                        parser.parse({"body": body, "headers": {}, "status_code": 200}, model.output_shape)
                    times.append(time.perf_counter() - started)
                out[str(n)] = {
                    "responses": len(bodies),
                    "response_bytes": sum(len(b) for b in bodies),
                    **summarize(times),
                }
        finally:
            events.unregister("after-call.dynamodb.Query", grab)
        return out
