"""docs/bench/README.md from the results: tables, targets met or missed, how to reproduce."""

# ruff: noqa: E501  (Markdown table rows and formulas read better on one line)

from __future__ import annotations

from bench.cost import _money

TARGETS = {
    "init_ratio": 1.5,
    "read_ms": 5.0,
    "token_reduction": 0.80,
    "single_over_multi_bytes": 0.40,  # issue 12: a read costs what the question needs
    "read_ms_5000": 15.0,
}
PEERS = [
    ("a widely used open-source memory layer", "p95 1.4 s per query", "~2K tokens per query", "-"),
    ("a managed temporal-graph memory", "87 / 155 ms p50 / p95", "~5,800 tokens median", "-"),
    ("the AWS managed memory", "~200 ms to retrieve", "-", "20-40 s to extract"),
]


def _ms(summary: dict | None, key: str = "median_ms") -> str:
    if not summary or key not in summary:
        return "-"
    value = summary[key]
    return f"{value:,.2f}" if value < 100 else f"{value:,.0f}"


def _pct(x: float) -> str:
    return f"{x * 100:.1f}%"


def targets(results: dict) -> list[dict]:
    out = []
    cold = results.get("cold_start", {})
    if cold:
        ratio = cold["ratio_to_bare_median"]["api"]
        bare = cold["targets"]["bare"]["init"]["median_ms"]
        api = cold["targets"]["api"]["init"]["median_ms"]
        met = ratio <= TARGETS["init_ratio"]
        margin = abs(ratio / TARGETS["init_ratio"] - 1)
        out.append(
            {
                "target": "read (api) handler init ≤ 1.5× a bare Powertools handler",
                "result": f"{ratio:.2f}× (api {api:,.0f} ms vs bare {bare:,.0f} ms, medians of "
                f"{cold['rounds']} interleaved fresh processes; per-round ratio median "
                f"{cold['api_ratio_per_round']['median']:.2f}×)",
                "met": met,
                "by": None
                if met
                else f"{(ratio / TARGETS['init_ratio'] - 1) * 100:.1f}% ({api - TARGETS['init_ratio'] * bare:+.0f} ms); "
                f"per-round ratios {cold['api_ratio_per_round']['min']:.2f}-{cold['api_ratio_per_round']['max']:.2f}×"
                + (", a miss within run-to-run noise" if ratio < TARGETS["init_ratio"] * 1.05 else ""),
                "narrow": margin < 0.05,
            }
        )
    read = results.get("read_path", {}).get("in_process", {}).get("500", {})
    if read:
        single = read["single_topic"]
        met = single["median_ms"] < TARGETS["read_ms"]
        others = ", ".join(
            f"{name.replace('_', '-')} {read[name]['median_ms']:.2f} ms"
            for name in read
            if name != "single_topic"
        )
        out.append(
            {
                "target": "read handler own time median < 5 ms at 500 facts, in-process storage",
                "result": f"single-topic {single['median_ms']:.2f} ms (p95 {single['p95_ms']:.2f} ms, n={single['n']}); {others}",
                "met": met,
                "by": None if met else f"{single['median_ms'] - TARGETS['read_ms']:.2f} ms over",
                "narrow": abs(single["median_ms"] / TARGETS["read_ms"] - 1) < 0.1,
            }
        )
    out += _read_scaling_targets(results)
    context = results.get("context_size", {})
    if context:
        worst = context["target"]["worst_single_topic_reduction_at_max_budget"]
        default = context["summary"]["single_topic"]["400"]["reduction_vs_json_dump_min"]
        met = worst >= TARGETS["token_reduction"]
        out.append(
            {
                "target": "≥ 80% fewer context tokens than the whole-profile dump, single-topic questions",
                "result": f"worst single-topic question: {_pct(default)} fewer at the default 400-token budget, "
                f"{_pct(worst)} fewer at the 4,000-token maximum ({context['whole_profile_json_tokens']:,} tokens in the dump)",
                "met": met,
                "by": None if met else f"{(TARGETS['token_reduction'] - worst) * 100:.1f} points short",
            }
        )
    return out


def markdown(results: dict) -> str:
    meta = results["meta"]
    lines = [
        "# Benchmarks",
        "",
        f"Run {meta['date']} on commit `{meta['git']['commit'][:12]}`"
        + (" (working tree had uncommitted changes under functions/)" if meta["git"]["dirty"] else "")
        + f", {meta['machine']['cores']} cores ({meta['machine']['cpu']}), Python {meta['machine']['python']}, "
        f"load average at start {meta['machine']['load_average_at_start']}. "
        f"{'**Quick run** (`--quick`: few samples; not for comparison).' if meta['quick'] else 'Full run.'} "
        f"Took {meta['seconds']:.0f} s. Raw figures: [`results.json`](results.json); "
        "cost model and capacity plan: [`../cost.md`](../cost.md).",
        "",
        "Reproduce: `make bench` (or `.venv/bin/python -m bench`, about 4-5 minutes here; the first run also "
        "builds the dependency layer with pip into `.bench-tmp/`). `--quick` is a short smoke run written "
        "to `.bench-tmp/quick/`; `--only read_path,cold_start` reruns some parts and keeps the others "
        "from the last results.",
        "",
        "Every timing is a distribution over repeated runs (n, median, p95 by nearest rank); cases that are",
        "compared run interleaved in the same run. This is a shared 2-core machine: compare the figures",
        "inside one table, not across runs or machines.",
        "",
        "## Targets",
        "",
        "| target | result | met |",
        "|---|---|---|",
    ]
    previous = results.get("previous_run")
    prev_by_target = {t["target"]: t for t in (previous or {}).get("targets", [])}
    if previous:
        lines[-2] = f"| target | result | met | previous full run ({previous['date']}, same targets) |"
        lines[-1] = "|---|---|---|---|"
    narrow = []
    for t in targets(results):
        verdict = "**met**" if t["met"] else f"**missed** by {t['by']}"
        if t.get("narrow"):
            verdict += " (at the threshold: within run-to-run noise)"
            narrow.append(t["target"])
        row = f"| {t['target']} | {t['result']} | {verdict} |"
        if previous:
            p = prev_by_target.get(t["target"])
            row += f" {('met' if p['met'] else 'missed') + ': ' + p['result'] if p else '-'} |"
        lines.append(row)
    if narrow:
        lines += [
            "",
            "Plainly: "
            + "; ".join(f"«{n}»" for n in narrow)
            + " sit at the threshold. Repeated full runs of the "
            "same code on this shared machine land on either side of it (see the previous-run column when "
            'present), so read these as "at the target", not as a margin. The multi-topic question at 500 facts '
            "is well above 5 ms in every run (its sections hold more facts; see below).",
        ]
    lines += _miss_explanations(results)
    if results.get("cold_start"):
        lines += ["", CHANGES_MADE]
    lines += _read_path(results.get("read_path"))
    lines += _cold_start(results.get("cold_start"))
    lines += _write_path(results.get("write_path"))
    lines += _maintenance(results.get("maintenance"))
    lines += _context(results.get("context_size"))
    lines += _sizes(results.get("sizes"))
    lines += _cost(results.get("cost"))
    lines += _peers(results)
    lines += [
        "",
        "## How the figures are made, and their limits",
        "",
        "- **In-process storage** is `InMemoryRepository` (same conditions and outcomes as DynamoDB, no",
        "  network): it isolates our code. **Emulator** is the local stack's moto server in a child process",
        "  on 127.0.0.1, reached through boto3 as in AWS. moto is much slower than DynamoDB (it serialises",
        "  a Query response in Python, ~0.7 ms per fact item): emulator times show the client side and",
        "  the call counts, not DynamoDB's latency. Two moto artifacts that grow with the whole table are",
        "  removed in the benchmark's own emulator (`bench/moto_patch.py`): a deep copy of the table for",
        "  every item of every transaction, and a walk over every item of the table for each Query; left",
        "  in, timings would depend on what earlier cases stored.",
        "- **Capacity units** are computed from item sizes by DynamoDB's rules (moto does not report",
        "  consumed capacity): 1 WRU per KB per item written, 2 for transactional writes, +1 per GSI",
        "  entry; 0.5 RRU per 4 KB for eventually consistent Query results, 1 for consistent reads.",
        "- **Profiles** are built by `bench/profiles.py` through `write.validate` and",
        "  `domain.transitions.decide` (names from the reviewed synonym table, realistic statuses and",
        "  histories, ~2% documented facts, a few legacy duplicates) and written with the repository's",
        "  own transactions.",
        "- **Cold start** is measured in fresh `python` processes on this x86 machine; Lambda arm64 at",
        "  1 GB gets ~0.6 vCPU, so absolute init times there are higher; the ratio is the point.",
    ]
    return "\n".join(lines) + "\n"


def _miss_explanations(results: dict) -> list[str]:
    notes = results.get("analysis", {})
    lines: list[str] = []
    for key in ("cold_start", "read_path", "storage_read", "context_size"):
        if notes.get(key):
            lines += ["", notes[key]]
    return lines


def _read_scaling_targets(results: dict) -> list[dict]:
    """Issue 12: bytes read by question (emulator), in-process time at 5,000 facts, round trips."""
    out: list[dict] = []
    read = results.get("read_path", {})
    rows = read.get("emulator", {}).get("read_cost", {})
    cost = rows.get("500")
    if cost and cost.get("single_over_multi_bytes") is not None:
        single, multi = cost["single_topic"], cost["multi_topic"]
        ratio = cost["single_over_multi_bytes"]
        met = ratio <= TARGETS["single_over_multi_bytes"]
        out.append(
            {
                "target": "single-topic question reads ≤ 40% of the bytes a multi-topic one reads, DynamoDB, 500 facts",
                "result": f"{ratio:.2f}: single-topic {single['bytes_read'] / 1000:,.0f} KB ({single['items_read']} items, "
                f"{single['read_units']} RRU), multi-topic {multi['bytes_read'] / 1000:,.0f} KB ({multi['items_read']} items, "
                f"{multi['read_units']} RRU), same run; whole profile {cost['whole_profile']['bytes_read'] / 1000:,.0f} KB",
                "met": met,
                "by": None
                if met
                else f"{(ratio - TARGETS['single_over_multi_bytes']) * 100:.0f} points (see below)",
            }
        )
    big = read.get("in_process", {}).get("5000", {})
    if big.get("single_topic"):
        single = big["single_topic"]
        small = read.get("in_process", {}).get("500", {}).get("single_topic")
        others = ", ".join(
            f"{name.replace('_', '-')} {s['median_ms']:.2f} ms"
            for name, s in big.items()
            if name != "single_topic"
        )
        met = single["median_ms"] <= TARGETS["read_ms_5000"]
        out.append(
            {
                "target": "read handler median ≤ 15 ms at 5,000 facts, single-topic, in-process storage",
                "result": f"single-topic {single['median_ms']:.2f} ms (p95 {single['p95_ms']:.2f} ms, n={single['n']}); {others}"
                + (f"; 500 facts, same run: {small['median_ms']:.2f} ms" if small else ""),
                "met": met,
                "by": None if met else f"{single['median_ms'] - TARGETS['read_ms_5000']:.2f} ms over",
                "narrow": abs(single["median_ms"] / TARGETS["read_ms_5000"] - 1) < 0.1,
            }
        )
    if rows.get("max_round_trips"):
        bound = rows["max_round_trips"]
        per_size = {
            n: {
                name: row["round_trips"]
                for name, row in by_q.items()
                if isinstance(row, dict) and row.get("sections")
            }
            for n, by_q in rows.items()
            if n.isdigit()
        }
        if per_size.get("500"):
            met = max(per_size["500"].values()) <= bound
            out.append(
                {
                    "target": "round trips per POST /v1/context bounded and reported",
                    "result": "; ".join(
                        f"{int(n):,} facts: "
                        + ", ".join(f"{name.replace('_', '-')} {t}" for name, t in trips.items())
                        for n, trips in per_size.items()
                    )
                    + f" DynamoDB calls (bound: {bound} key-range Queries in parallel, plus a page per 1 MB read)",
                    "met": met,
                    "by": None if met else "more calls than key ranges at 500 facts",
                }
            )
    return out


def _read_path(read: dict | None) -> list[str]:
    if not read:
        return []
    lines = [
        "",
        "## Read path: POST /v1/context",
        "",
        "The real handler (`health_ltm.handlers.api.handler`) with an API Gateway REST proxy event like",
        "`events/api_post_context.json`, for a user holding N facts; the time is the handler call, event in,",
        "response out, tokenizer loaded. Questions:",
        "",
    ]
    for name, q in read["queries"].items():
        lines.append(
            f"- {name.replace('_', '-')}: «{q['text']}» → {', '.join(q['classes'])}; sections "
            f"{', '.join(q['sections'])}{'; history' if q['history_intent'] else ''}"
            f"{'; + episodes' if q['needs_episodes'] else ''}"
        )
    lines += [
        "",
        "In-process storage (ms):",
        "",
        "| facts | question | median | p95 | n | storage calls / request | response bytes |",
        "|---|---|---|---|---|---|---|",
    ]
    for n, by_q in read["in_process"].items():
        for name, s in by_q.items():
            lines.append(
                f"| {int(n):,} | {name} | {_ms(s)} | {_ms(s, 'p95_ms')} | {s['n']} | "
                f"{s['storage_calls_per_request']['median']} | {s['response_bytes']:,} |"
            )
    comp = read.get("components")
    if comp:
        lines += [
            "",
            "Where the time goes at 500 facts (each part timed alone, interleaved; medians, ms):",
            "",
            "| question | handler | classify | load_memory | build_context | render_prompt | handler overhead | visible facts |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for name, c in comp.items():
            if name.startswith("_"):
                continue
            lines.append(
                f"| {name} | {_ms(c['handler'])} | {_ms(c['classify'])} | {_ms(c['load_memory'])} | "
                f"{_ms(c['build_context'])} | {_ms(c['render_prompt'])} | {c['handler_overhead_median_ms']:.2f} | "
                f"{c['visible_facts']} |"
            )
        lines += ["", comp.get("_notes", "")]
    emu = read.get("emulator")
    if emu:
        lines += [
            "",
            "Emulator (DynamoDB repository → moto server), ms:",
            "",
            "| facts | question | median | p95 | n | in DynamoDB calls (median) | outside them (median) | calls | Query pages | RRU | KB read |",
            "|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for n, by_q in emu.items():
            if not n.isdigit():
                continue
            for name, s in by_q.items():
                dyn = s["dynamodb"]
                lines.append(
                    f"| {int(n):,} | {name} | {_ms(s)} | {_ms(s, 'p95_ms')} | {s['n']} | {_ms(s['in_storage_calls'])} | "
                    f"{_ms(s['outside_storage_calls'])} | {s['storage_calls_per_request']['median']} | "
                    f"{dyn['by_operation'].get('Query', 0)} | {dyn['read_units']} | {dyn['bytes_read'] / 1000:,.0f} |"
                )
        parse = emu.get("boto3_parse", {})
        if parse:
            lines += [
                "",
                "botocore parsing the first Query page (client CPU inside a DynamoDB call, any backend): "
                + "; ".join(
                    f"{int(n):,} facts {p['first_page_bytes'] / 1000:,.0f} KB → {_ms(p)} ms median"
                    for n, p in parse.items()
                ),
            ]
        single_parse = emu.get("boto3_parse_single_topic", {})
        if single_parse:
            lines += [
                "",
                "botocore parsing the responses of one single-topic question (its section ranges): "
                + "; ".join(
                    f"{int(n):,} facts {p['responses']} response(s), {p['response_bytes'] / 1000:,.0f} KB → {_ms(p)} ms median"
                    for n, p in single_parse.items()
                ),
            ]
        cost = emu.get("read_cost", {})
        if any(n.isdigit() for n in cost):
            lines += [
                "",
                "What one POST /v1/context reads from DynamoDB, by question (one call each, same run; facts are keyed by "
                "section, `CTX#S#<rank>-<section>#F#<id>`, and a question reads one key range per run of adjacent "
                f"sections, in parallel, at most {cost.get('max_round_trips', '-')} ranges; `whole profile` is "
                "`load_memory(user)`, the write path's and maintenance's load):",
                "",
                "| facts | question | sections | key ranges | round trips | items | KB read | RRU |",
                "|---|---|---|---|---|---|---|---|",
            ]
            for n, by_q in cost.items():
                if not n.isdigit():
                    continue
                for name, row in by_q.items():
                    if not isinstance(row, dict):
                        continue
                    sections = ", ".join(row["sections"]) if row.get("sections") is not None else "all"
                    lines.append(
                        f"| {int(n):,} | {name} | {sections} | {row.get('read_ranges', '-')} | {row['round_trips']} | "
                        f"{row['items_read']:,} | {row['bytes_read'] / 1000:,.1f} | {row['read_units']} |"
                    )
                lines.append(
                    f"| {int(n):,} | single-topic / multi-topic bytes | | | | | {by_q['single_over_multi_bytes']} | |"
                )
                lines.append(
                    f"| {int(n):,} | single-topic / whole profile bytes | | | | | {by_q['single_over_whole_bytes']} | |"
                )
        lines += ["", emu.get("_notes", "")]
    return lines


def _cold_start(cold: dict | None) -> list[str]:
    if not cold:
        return []
    lines = [
        "",
        "## Cold start",
        "",
        f"Fresh `python` processes, {cold['rounds']} rounds, targets interleaved (bare, api, extract, maintain, ...);",
        "init = import + module-level code, timed inside the process; ms. Process wall = interpreter start to",
        "exit (for bare and api it includes the requests below, and for api building a 500-fact profile).",
        "",
        "| handler | init median | init p95 | × bare | process wall median | peak RSS MB | openai imported | opensearch-py imported | all write rules imported |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for target, t in cold["targets"].items():
        ratio = "1.00" if target == "bare" else f"{cold['ratio_to_bare_median'][target]:.2f}"
        lines.append(
            f"| {target} | {_ms(t['init'])} | {_ms(t['init'], 'p95_ms')} | {ratio} | {_ms(t['process_wall'])} | "
            f"{t['peak_rss_mb_median']} | {'yes' if t['imported']['openai'] else 'no'} | "
            f"{'yes' if t['imported']['opensearchpy'] else 'no'} | "
            f"{'yes' if t['imported'].get('health_ltm.write.rules.extractor') else 'no'} |"
        )
    api = cold["targets"]["api"]
    lines += [
        "",
        "The api handler after init (same processes; POST /v1/context, 500 facts, in-process storage):",
        "",
        "| request | median | p95 |",
        "|---|---|---|",
        f"| first, while the tokenizer loads in the background | {_ms(api.get('first_request'))} | {_ms(api.get('first_request'), 'p95_ms')} |",
        f"| second | {_ms(api.get('second_request'))} | {_ms(api.get('second_request'), 'p95_ms')} |",
        f"| once the tokenizer is ready | {_ms(api.get('warm_request'))} | {_ms(api.get('warm_request'), 'p95_ms')} |",
        f"| (tokenizer ready after init) | {_ms(api.get('tokenizer_ready_after_init'))} | {_ms(api.get('tokenizer_ready_after_init'), 'p95_ms')} |",
        f"| (`import boto3` + first DynamoDB client, paid by the first DynamoDB-backed request) | {_ms(api.get('first_dynamodb_client'))} | {_ms(api.get('first_dynamodb_client'), 'p95_ms')} |",
        "",
        f"Token counter used by the first request: {api.get('first_request_token_counter')} (the estimate is an upper bound, so the budget still holds). "
        f"After the requests, openai imported: {api.get('imported_after_requests', {}).get('openai')}, "
        f"opensearch-py: {api.get('imported_after_requests', {}).get('opensearchpy')}.",
    ]
    it = cold.get("importtime")
    if it:
        lines += [
            "",
            f"`-X importtime` of the api handler ({it['runs']} runs, medians; warm-up thread off): "
            f"{it['api_modules']} modules vs {it['bare_modules']} for the bare handler; beyond the bare handler "
            f"{it['beyond_bare_self_ms_total']:.0f} ms of self time:",
            "",
            "| package (beyond bare) | self ms |",
            "|---|---|",
        ]
        lines += [f"| {name} | {ms} |" for name, ms in it["beyond_bare_self_ms_by_package"][:12]]
        lines += [
            "",
            "Heaviest imports (cumulative ms): "
            + ", ".join(f"`{n}` {ms}" for n, ms in it["top_cumulative_ms"][:10]),
        ]
    return lines


def _write_path(write: dict | None) -> list[str]:
    if not write:
        return []
    lines = [
        "",
        "## Write path: one fragment through WritePath.process",
        "",
        f"{write['fragments']} fragments (RU/EN, with assistant turns, a correction, noise) said in order by a user",
        f"who already has {write['base_profile_facts']} facts; model latency excluded: `recorded` returns the",
        "model's part instantly (model time = 0), `rules` runs the offline rule extractor. ms per fragment:",
        "",
        "| storage | extractor | median | p95 | n | median, fragments with events | DynamoDB calls / applied event | WRU / applied event | WRU / fragment | RRU / fragment |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for storage in ("in_process", "emulator"):
        for mode in ("recorded", "rules"):
            s = write.get(storage, {}).get(mode)
            if not s:
                continue
            lines.append(
                f"| {storage.replace('_', '-')} | {mode} | {_ms(s['per_fragment'])} | {_ms(s['per_fragment'], 'p95_ms')} | "
                f"{s['per_fragment']['n']} | {_ms(s.get('per_fragment_with_events'))} | "
                f"{s.get('dynamodb_calls_per_applied_event', '-')} | {s.get('write_units_per_applied_event', '-')} | "
                f"{s.get('write_units_per_fragment', '-')} | {s.get('read_units_per_fragment', '-')} |"
            )
    rec = write.get("emulator", {}).get("recorded", {})
    if rec:
        lines += [
            "",
            f"Applied {rec['applied_events']} events from {rec['fragments']} fragments ({rec['statuses']}); DynamoDB calls per "
            f"fragment by operation: {rec['calls_by_operation_per_fragment']}. Intake (POST /v1/fragments, before the worker): "
            f"{write['emulator']['intake']['dynamodb_calls_per_fragment']} call and "
            f"{write['emulator']['intake']['write_units_per_fragment']} WRU per fragment; the intake handler's own time "
            f"in-process: {_ms(write.get('intake_handler'))} ms median (p95 {_ms(write.get('intake_handler'), 'p95_ms')}).",
        ]
    lines += ["", write.get("_notes", "")]
    return lines


def _maintenance(maint: dict | None) -> list[str]:
    if not maint:
        return []
    lines = [
        "",
        "## Maintenance: the per-user job",
        "",
        "The real `maintain` handler with one SQS record; `backlog` = first run over a never-maintained",
        "profile, `nightly` = the next night. ms:",
        "",
        "| storage | facts | night | median | p95 | n | storage calls | RRU | WRU |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for n, nights in maint.get("in_process", {}).items():
        for night in ("backlog", "nightly"):
            s = nights[night]
            lines.append(
                f"| in-process | {int(n):,} | {night} | {_ms(s)} | {_ms(s, 'p95_ms')} | {s['n']} | "
                f"{s['repository_calls']['median']} | - | - |"
            )
    for n, nights in maint.get("emulator", {}).items():
        if not n.isdigit():
            continue
        for night in ("backlog", "nightly"):
            s = nights[night]
            dyn = s["dynamodb"]
            lines.append(
                f"| emulator | {int(n):,} | {night} | {_ms(s)} | {_ms(s, 'p95_ms')} | {s['n']} | {dyn['calls']} | "
                f"{dyn['read_units']} | {dyn['write_units']} |"
            )
    changes = {n: v["backlog_changes"]["median"] for n, v in maint.get("in_process", {}).items()}
    lines += ["", f"Changes made by the backlog run (policy and merge events): {changes}."]
    fan = maint.get("emulator", {}).get("fan_out")
    fan_cpu = maint.get("fan_out_in_process")
    if fan:
        lines.append(
            f"Fan-out for {fan['users']:,} due users: {fan['days_queried']} GSI days queried, DynamoDB "
            f"{fan['dynamodb']['by_operation']}, SQS {fan['sqs_calls']} ({fan['sqs_calls_per_user']} calls per user)"
            + (f"; CPU in-process {fan_cpu['cpu_us_per_user']} µs per user." if fan_cpu else ".")
        )
    lines += [
        "",
        maint.get("_notes", ""),
        "",
        "Nightly duration and cost for 10 million users: [`../cost.md`](../cost.md#capacity-plan-the-nightly-maintenance-run-for-10-million-users).",
    ]
    return lines


def _context(context: dict | None) -> list[str]:
    if not context:
        return []
    lines = [
        "",
        "## Context size",
        "",
        f"A {context['profile']['facts']}-fact profile (+{context['profile']['documented']} documented). Whole profile as JSON "
        f"(`model_dump`, `ensure_ascii=False`): **{context['whole_profile_json_tokens']:,} tokens** "
        f"({context['whole_profile_json_bytes'] / 1000:,.0f} KB); the whole profile in the service's compact lines: "
        f"{context['whole_profile_rendered_tokens']:,} tokens. Counted with {context['tokenizer']}.",
        "",
        "| question | kind | sections | prompt tokens (budget 400) | fewer than JSON dump | prompt tokens (budget 4,000) | fewer than JSON dump | fewer than compact whole profile |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for kind, rows in context["questions"].items():
        for row in rows:
            b400, b4k = row["400"], row["4000"]
            lines.append(
                f"| {row['question']} | {kind.replace('_', '-')} | {len(b4k['sections'])} | {b400['prompt_tokens']} | "
                f"{_pct(b400['vs_json_dump'])} | {b4k['prompt_tokens']} | {_pct(b4k['vs_json_dump'])} | "
                f"{_pct(b4k['vs_rendered_profile'])} |"
            )
    return lines


def _sizes(sizes: dict | None) -> list[str]:
    if not sizes:
        return []
    f, d, p = sizes["function_asset"], sizes["dependency_layer"], sizes["powertools_layer"]
    mb = 1_000_000
    lines = [
        "",
        "## Sizes",
        "",
        "| artifact | unzipped MB | zipped MB | files | how |",
        "|---|---|---|---|---|",
        f"| function code asset (`functions/`, CDK excludes) | {f['unzipped_bytes'] / mb:.2f} | {f['zipped_bytes'] / mb:.2f} | "
        f"{f['files']} | excludes {', '.join(f['excludes'])} |",
    ]
    if "unzipped_bytes" in d:
        lines.append(
            f"| dependency layer (ours) | {d['unzipped_bytes'] / mb:.1f} | {d['zipped_bytes'] / mb:.1f} | {d['files']} | {d['source']} |"
        )
    else:
        lines.append(f"| dependency layer (ours) | - | - | - | {d.get('error')} |")
    lines += [
        f"| Powertools layer (AWS's, not ours) | ~{p['approx_unzipped_bytes'] / mb:.0f} | - | - | {p['note']} |",
        "",
        f"Unzipped total ~{sizes['unzipped_total_mb']:.0f} MB of Lambda's {sizes['lambda_unzipped_limit_mb']} MB limit "
        f"({sizes['headroom_mb']:.0f} MB headroom).",
    ]
    if d.get("largest_packages_mb"):
        name, size_mb = d["largest_packages_mb"][0]
        share = size_mb * mb / d["unzipped_bytes"]
        if share > 0.5:
            lines.append(
                f"`{name}` alone is {share:.0%} of our layer (for `bpe_openai`: a compiled module with the "
                "encodings built in; the service uses o200k_base only, and loading it is the ~0.7 s the "
                "tokenizer takes in the background after init)."
            )
    if "largest_packages_mb" in d:
        lines.append(
            "Largest packages in our layer (MB): "
            + ", ".join(f"{n} {s}" for n, s in d["largest_packages_mb"][:6])
            + "."
        )
    check = f.get("cdk_out_check")
    if check:
        lines.append(
            f"Same file list as the function asset in cdk.out: {check['same_file_list']} "
            f"({check['only_here']} files only here, {check['only_in_cdk_out']} only in cdk.out; {check['note']})."
        )
    return lines


def _cost(cost: dict | None) -> list[str]:
    if not cost:
        return []
    cap = cost["capacity"]["scenarios"]["expected"]
    return [
        "",
        "## Cost (summary of [`../cost.md`](../cost.md))",
        "",
        f"- per million reads: **{_money(cost['per_million_reads_total'])}** "
        f"(API Gateway alone {_money(cost['per_million_reads']['API Gateway (REST)'])}); the context it hands the "
        f"assistant's model costs {_money(next(iter(cost['downstream_prompt_per_million_reads'].values())))} per million "
        f"questions vs {_money(list(cost['downstream_prompt_per_million_reads'].values())[1])} for the whole profile as JSON;",
        f"- per thousand fragments: **{_money(cost['per_thousand_fragments_total'])}**, mostly model tokens;",
        f"- 10 million users: **{_money(cost['ten_million_users']['monthly_total'])} a month** under the stated assumptions;",
        f"- nightly maintenance for {cap['jobs']:,} users: {cap['hours_at_configured_concurrency']} h at the configured "
        f"concurrency ({cap['concurrency_for_window']} concurrent invocations finish it in "
        f"{cost['assumptions']['nightly_window_hours']:g} h), {_money(cap['cost_per_night'])} a night.",
    ]


def _peers(results: dict) -> list[str]:
    read = results.get("read_path", {}).get("in_process", {}).get("500", {}).get("single_topic")
    context = results.get("context_size", {}).get("summary", {})
    write = results.get("write_path", {}).get("in_process", {}).get("recorded", {}).get("per_fragment")
    cost = results.get("cost", {})
    ours_latency = "-"
    if read and cost:
        d = cost["derived"]
        ours_latency = (
            f"own {read['median_ms']:.1f} / {read['p95_ms']:.1f} ms p50 / p95 here; in AWS ~{d['read_billed_ms_facts_only']:.0f} ms "
            f"with the DynamoDB Query, ~{d['read_billed_ms_with_episodes']:.0f} ms when episodes are searched (modelled)"
        )
    ours_tokens = "-"
    if context:
        ours_tokens = (
            f"{context['single_topic']['400']['prompt_tokens_median']:.0f} median at the default budget "
            f"({context['single_topic']['4000']['prompt_tokens_median']:.0f} at 4,000)"
        )
    ours_extract = f"own {write['median_ms']:.1f} ms + the model calls" if write else "-"
    lines = [
        "",
        "## Peers (their published figures, not measured here)",
        "",
        "| system | retrieval latency | context per query | extraction |",
        "|---|---|---|---|",
        f"| **Health LTM** (this run) | {ours_latency} | {ours_tokens} | {ours_extract} (async, off the read path) |",
    ]
    lines += [f"| {name} | {lat} | {tok} | {ext} |" for name, lat, tok, ext in PEERS]
    lines += [
        "",
        "Not like for like: the peers search free text semantically over all memories; this read path",
        "selects sections by a local classifier and reads one DynamoDB partition, with no model call.",
    ]
    return lines


COLD_START_TIPS = [
    (
        "aws_lambda_powertools.event_handler.openapi",
        "`aws_lambda_powertools.event_handler.openapi.models` (a large pydantic module the bare handler never "
        "loads) comes with `app.enable_swagger(...)` and the `HTTPBearer` security schemes in "
        "`handlers/api_app.py`: serve the Swagger UI and the committed docs/openapi.json as static responses "
        "(or from a separate function) instead of enabling them on the read path's resolver.",
    ),
    (
        "health_ltm.domain.attributes",
        "`domain.attributes` (the pydantic attribute models of every section) is loaded at init by "
        "`read.profile` (used by PATCH /v1/facts only) and by `documents.ingest` (internal route), both at "
        "module level: import it inside the functions that validate attributes.",
    ),
    (
        ("health_ltm.documents", "health_ltm.write.normalize"),
        "`handlers/internal_routes.py` imports `documents.ingest` at module level, which brings "
        "`write.normalize` (and `domain.attributes`): import it inside the internal route.",
    ),
    (
        "health_ltm.chat",
        "`handlers/api_app.py` imports `chat.service` and `chat.sessions` at module level for the chat routes: "
        "import them inside those routes (this saves chat's own modules only: `read.context` and "
        "`read.classify`, which they also bring, are needed by the first context request anyway).",
    ),
    (
        "pydantic_settings",
        "`Settings` (pydantic-settings, python-dotenv) is built at import for the CORS origin alone.",
    ),
]
CHANGES_MADE = (
    "Changed for these results (lazy imports only, behaviour unchanged): `write/rules/__init__.py` loads "
    "`RuleExtractor` and `RuleSectionClassifier` on first use (PEP 562), and `write/intake.py` imports "
    "`write.mentions` inside `submit_fragment`. Before, the api handler's import compiled every section's "
    "rule patterns (the whole `write.rules` package, ~70-80 ms of self time in the -X importtime profile on "
    "this machine) for POST /v1/fragments, which the read path never calls; now POST /v1/fragments pays "
    "them on its first call."
)


def analysis(results: dict) -> dict:
    """Plain words for each target, written from the figures (why a miss is a miss)."""
    out: dict = {}
    cold = results.get("cold_start")
    if cold:
        ratio = cold["ratio_to_bare_median"]["api"]
        it = cold.get("importtime", {})
        top = ", ".join(f"`{n}` {ms:.0f} ms" for n, ms in it.get("beyond_bare_self_ms_by_package", [])[:6])
        verdict = "meets" if ratio <= 1.5 else "misses"
        out["cold_start"] = (
            f"**Cold start ({verdict} the 1.5× target at {ratio:.2f}×).** Whatever the bare Powertools "
            f"handler imports, the api handler imports too (Powertools with X-Ray's SDK, botocore through "
            f"it, pydantic); on top it imports {it.get('api_modules', 0) - it.get('bare_modules', 0)} more modules, "
            f"{it.get('beyond_bare_self_ms_total', 0):.0f} ms of self time in the -X importtime profile, led by {top}. "
            "openai and opensearch-py are not imported by the read path (table below). The tokenizer "
            "(o200k_base from bpe-openai's Rust core, ~50 ms) loads on the first request that counts "
            "tokens, not at init, and is not in these figures."
        )
        tips = [
            tip
            for prefix, tip in COLD_START_TIPS
            if any(n.startswith(prefix) for n, _ in it.get("beyond_bare_self_ms_by_package", [])[:15])
        ]
        if tips:
            out["cold_start"] += " What would cut it further, roughly heaviest first: " + " ".join(
                f"({i}) {t}" for i, t in enumerate(tips, 1)
            )
    emulator = results.get("read_path", {}).get("emulator", {})
    cost = emulator.get("read_cost", {}).get("500")
    if cost and cost.get("single_over_multi_bytes") is not None:
        single, multi, whole = cost["single_topic"], cost["multi_topic"], cost["whole_profile"]
        by_section = results["read_path"].get("profiles", {}).get("500", {}).get("by_section", {})
        shared = [s for s in single["sections"] if s in multi["sections"]]
        extra = [s for s in multi["sections"] if s not in single["sections"]]
        held = sum(by_section.get(s, 0) for s in shared)
        added = sum(by_section.get(s, 0) for s in extra)
        parse = emulator.get("boto3_parse", {}).get("500", {})
        parse_single = emulator.get("boto3_parse_single_topic", {}).get("500", {})
        ratio = cost["single_over_multi_bytes"]
        out["storage_read"] = (
            "**What a read costs in DynamoDB.** Facts are keyed by section (`CTX#S#<rank>-<section>#F#<id>`, "
            "decision 18), so a question reads the key ranges of its sections, one Query per run of adjacent "
            f"sections, in parallel. At 500 facts the single-topic question reads {single['items_read']} items, "
            f"{single['bytes_read'] / 1000:,.0f} KB ({single['read_units']} RRU) in {single['round_trips']} call(s); "
            f"the multi-topic one {multi['items_read']} items, {multi['bytes_read'] / 1000:,.0f} KB ({multi['read_units']} RRU) "
            f"in {multi['round_trips']}; the whole profile (write path, maintenance) {whole['bytes_read'] / 1000:,.0f} KB. "
            f"Single over multi is {ratio:.2f} of the bytes"
            + (
                f": the single-topic sections ({', '.join(shared)}) are all among the multi-topic ones and hold "
                f"{held} of the profile's facts, the multi-topic question adds {', '.join(extra) or 'nothing'} "
                f"({added} facts). Reading by section cannot take the single-topic share below "
                f"{held / max(1, held + added):.2f}, whatever each item weighs; 0.40 would take a read bounded by the "
                "budget inside a section (the newest lines first), which fact-id keys do not order, or a per-section "
                "current-state item kept by the write path. Stored fact JSON leaves out default-valued fields "
                "(`storage.codec.fact_data`: about a quarter fewer bytes per fact item), which cuts every read, not the ratio."
                if ratio > TARGETS["single_over_multi_bytes"] and by_section
                else "."
            )
            + (
                f" botocore parses the single-topic responses in {parse_single['median_ms']:.1f} ms (median) against "
                f"{parse.get('median_ms', 0):.1f} ms for the whole profile's first page."
                if parse_single and parse
                else ""
            )
        )
    read = results.get("read_path", {}).get("in_process", {}).get("500")
    if read:
        slow = {k: v["median_ms"] for k, v in read.items() if v["median_ms"] >= 5.0}
        if slow:
            comp = results["read_path"].get("components", {})
            parts = []
            for name in slow:
                c = comp.get(name)
                if c:
                    parts.append(
                        f"{name.replace('_', '-')}: {c['visible_facts']} facts visible in its sections; load_memory "
                        f"{c['load_memory']['median_ms']:.2f} ms, build_context {c['build_context']['median_ms']:.2f} ms, "
                        f"render_prompt {c['render_prompt']['median_ms']:.2f} ms, response overhead "
                        f"{c['handler_overhead_median_ms']:.2f} ms"
                    )
            out["read_path"] = (
                "**Read path at 500 facts:** "
                + ", ".join(f"{k.replace('_', '-')} {v:.2f} ms" for k, v in slow.items())
                + " at or above 5 ms: "
                + "; ".join(parts)
                + ". build_context makes one pass over the loaded facts (what is visible, which sections have "
                "a fact); lines are formatted and counted lazily in fill order and filling stops when the budget is "
                "full, and the response's blocks list the facts the prompt carries, so the rest does not grow "
                "with the profile."
            )
    return out
