"""Cost model and capacity plan at AWS / OpenAI list prices, from the measured figures.

Everything measured comes from the benchmark results (the same run's ``results.json``);
everything else is an assumption, named in ``ASSUMPTIONS`` and printed in ``docs/cost.md``
beside the formula that uses it. Function memory, concurrency caps, timeouts and batch sizes
are read from the CDK app and ``health_ltm.schema``, so the model follows the deployment.
"""

# ruff: noqa: E501  (Markdown table rows and formulas read better on one line)

from __future__ import annotations

import ast
import json
import math
import statistics
from pathlib import Path

from bench.env import REPO

PRICE_DATE = "AWS and OpenAI public price pages as of mid-2025 (not re-fetched by this offline run)"
REGION = "us-east-1 (N. Virginia), the region cdk.out is synthesised for by default"
PRICES = {
    "lambda_gb_second_arm": 0.0000133334,  # first 7.5 billion GB-s/month
    "lambda_request": 0.20e-6,
    "api_gateway_rest_request": 3.50e-6,  # first 333 million/month
    "waf_request": 0.60e-6,  # + $5/month per web ACL + $1/month per rule
    "dynamodb_write_request_unit": 0.625e-6,  # on-demand, after the Nov 2024 price cut
    "dynamodb_read_request_unit": 0.125e-6,
    "dynamodb_storage_gb_month": 0.25,
    "sqs_fifo_request": 0.50e-6,  # per 64 KB chunk
    "sqs_standard_request": 0.40e-6,
    "opensearch_serverless_ocu_hour": 0.24,
    "opensearch_serverless_storage_gb_month": 0.024,
    "gpt_4_1_mini_input_token": 0.40e-6,
    "gpt_4_1_mini_output_token": 1.60e-6,
    "text_embedding_3_small_token": 0.02e-6,
}
ASSUMPTIONS = {
    "lambda_mb_per_full_vcpu": 1769,  # Lambda allocates CPU in proportion to memory
    "graviton_vs_this_host_per_core": 1.0,  # single-thread speed of an arm64 Lambda core vs this machine
    "dynamodb_call_ms": 5.0,  # in-region round trip of GetItem/PutItem/TransactWriteItems
    "dynamodb_query_ms_per_100kb": 2.0,  # on top of a call, for the bytes a Query returns
    "sqs_call_ms": 10.0,
    "api_cold_start_share": 0.01,  # of API invocations (init is billed since Aug 2025)
    "reads_needing_episodes_share": 0.6,  # question classes with needs_episodes
    "query_embedding_ms": 150.0,  # OpenAI embedding of the question (read path, in parallel)
    "query_embedding_tokens": 20,
    "opensearch_call_ms": 20.0,
    "model_latency_s": {"classifier": 0.8, "extractor": 2.0, "episode_embedding": 0.15},
    "sqs_requests_per_fragment": 3,  # send + receive + delete, receive/delete not batched: an upper bound
    "extract_invocations_per_fragment": 1.0,  # batches of up to 5 make it fewer: an upper bound
    "users": 10_000_000,
    "daily_active_share": 0.10,
    "reads_per_active_user_day": 5,
    "fragments_per_active_user_day": 3,
    "facts_per_user_mean": 100,
    "fragment_item_bytes": 1500,  # stored 90 days (TTL)
    "episode_vector_bytes": 1536 * 4 + 1000,  # text-embedding-3-small + text and metadata in OpenSearch
    "peak_to_mean_traffic": 3.0,
    "nightly_jobs": {"expected": 1_000_000, "upper_bound": 5_000_000, "every_user": 10_000_000},
    "nightly_window_hours": 2.0,
    "gsi_query_page_ms": 30.0,  # one 1 MB page of the active-users GSI
    "gsi_marker_bytes": 120,
    "dynamodb_partition_write_limit_per_s": 1000,
}


# ------------------------------------------------------------------------ deployment facts
def _functions_memory() -> dict[str, int]:
    tree = ast.parse((REPO / "infra" / "components" / "functions.py").read_text(encoding="utf-8"))
    out = {}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", None) == "FunctionSpec"
            and len(node.args) >= 4
        ):
            name, memory = node.args[0], node.args[3]
            if isinstance(name, ast.Constant) and isinstance(memory, ast.Constant):
                out[name.value] = int(memory.value)
    return out


def _config_defaults() -> dict:
    tree = ast.parse((REPO / "infra" / "config.py").read_text(encoding="utf-8"))
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == "Config":
            for item in node.body:
                if isinstance(item, ast.AnnAssign) and isinstance(item.value, ast.Constant):
                    out[item.target.id] = item.value.value  # type: ignore[union-attr]
    return out


def deployment() -> dict:
    from health_ltm import schema

    config = _config_defaults()
    return {
        "memory_mb": _functions_memory(),
        "maintain_max_concurrency": config.get("maintain_max_concurrency"),
        "extract_max_concurrency": config.get("extract_max_concurrency"),
        "throttle_rate_limit": config.get("throttle_rate_limit"),
        "vector_standby_replicas": config.get("vector_standby_replicas"),
        "maintain_timeout_s": schema.MAINTAIN_TIMEOUT_S,
        "maintenance_batch_size": schema.MAINTENANCE_QUEUE.batch_size,
        "extraction_batch_size": schema.EXTRACTION_QUEUE.batch_size,
    }


def cpu_factor(memory_mb: int) -> float:
    full = ASSUMPTIONS["lambda_mb_per_full_vcpu"]
    return max(1.0, full / memory_mb) * ASSUMPTIONS["graviton_vs_this_host_per_core"]


# ------------------------------------------------------------------------ measured inputs
def extraction_tokens() -> dict:
    """Model tokens per fragment, from the real prompts and schemas over the bench fragments."""
    from bench.profiles import NOW
    from bench.write_path import FRAGMENTS, record
    from health_ltm.adapters import prompts
    from health_ltm.adapters.llm_schemas import SectionChoice, extraction_model
    from health_ltm.domain.clock import FixedClock
    from health_ltm.domain.models import Message, Role
    from health_ltm.read.tokens import count_tokens
    from health_ltm.write.quality import filter_messages

    count_tokens("warm up")  # load the tokenizer up front
    recorded = record(FixedClock(NOW))
    rows = []
    for fragment in FRAGMENTS:
        messages = [Message(role=Role(r), text=t) for r, t in fragment]
        kept = list(filter_messages(messages).kept)
        if not kept:
            continue
        sections, assertions = recorded[tuple(m.text for m in kept)]
        dialogue = prompts.render_dialogue(kept)
        classifier_in = (
            count_tokens(prompts.classifier_system())
            + count_tokens(dialogue)
            + count_tokens(json.dumps(SectionChoice.model_json_schema()))
        )
        classifier_out = count_tokens(json.dumps({"sections": [s.value for s in sections]})) + 5
        extractor_in = extractor_out = 0
        if sections:
            extractor_in = (
                count_tokens(prompts.extractor_system(sections, prompts.reference_date(kept)))
                + count_tokens(dialogue)
                + count_tokens(json.dumps(extraction_model(sections).model_json_schema()))
            )
            extractor_out = 5 + sum(
                count_tokens(a.model_dump_json(exclude_none=True, exclude_defaults=True)) for a in assertions
            )
        embedding = count_tokens(" ".join(m.text for m in kept if m.role is Role.USER))
        rows.append((classifier_in, classifier_out, extractor_in, extractor_out, embedding, len(sections)))
    mean = [statistics.fmean(r[i] for r in rows) for i in range(6)]
    return {
        "fragments": len(rows),
        "classifier_input": round(mean[0]),
        "classifier_output": round(mean[1]),
        "extractor_input": round(mean[2]),
        "extractor_output": round(mean[3]),
        "embedding_input": round(mean[4]),
        "sections_per_fragment": round(mean[5], 2),
        "_how": "system prompt + dialogue + the JSON schema of the structured output (input); the "
        "recorded assertions as JSON (output), tokenised with o200k_base; means over the bench fragments",
    }


def storage_per_fact(n: int = 100) -> dict:
    """Bytes a profile takes in DynamoDB per fact (facts, history, key guards, section states),
    from the items the repository itself builds; +100 bytes per item of DynamoDB overhead."""
    from bench.harness import item_size
    from bench.profiles import build_profile, seed
    from health_ltm.storage.dynamodb import DynamoRepository

    class _Capture:
        class exceptions:
            TransactionCanceledException = type("TransactionCanceledException", (Exception,), {})

        def __init__(self) -> None:
            self.items: list[dict] = []

        def transact_write_items(self, TransactItems):
            self.items.extend(a["Put"]["Item"] for a in TransactItems if "Put" in a)

        def put_item(self, TableName, Item, **_):
            self.items.append(Item)

    capture = _Capture()
    profile = build_profile(n)
    seed(DynamoRepository("t", capture), "u-00000000", profile)
    total = sum(item_size(i) + 100 for i in capture.items)
    return {"facts": profile.n_facts, "items": len(capture.items), "bytes": total,
            "bytes_per_fact": round(total / profile.n_facts)}  # fmt: skip


# ------------------------------------------------------------------------ the model
def _get(results: dict, *path, default=None):
    node = results
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return default
        node = node[key]
    return node


def compute(results: dict) -> dict:
    p, a = PRICES, ASSUMPTIONS
    dep = deployment()
    mem = dep["memory_mb"]
    tokens = extraction_tokens()
    storage = storage_per_fact()

    # ------------------------------------------------------------------ per read (POST /v1/context)
    own_ms = _get(results, "read_path", "in_process", "500", "single_topic", "median_ms", default=5.0)
    # botocore on the responses a single-topic question gets (its section ranges); older results
    # only have the whole profile's first page
    parse_ms = _get(
        results,
        "read_path",
        "emulator",
        "boto3_parse_single_topic",
        "500",
        "median_ms",
        default=_get(results, "read_path", "emulator", "boto3_parse", "500", "median_ms", default=10.0),
    )
    round_trips = _get(
        results, "read_path", "emulator", "read_cost", "500", "single_topic", "round_trips", default=1
    )
    read_units = _get(
        results, "read_path", "emulator", "500", "single_topic", "dynamodb", "read_units", default=52
    )
    bytes_read = _get(
        results, "read_path", "emulator", "500", "single_topic", "dynamodb", "bytes_read", default=425_000
    )
    api_factor = cpu_factor(mem.get("api", 1024))
    query_ms = a["dynamodb_call_ms"] + bytes_read / 100_000 * a["dynamodb_query_ms_per_100kb"]
    facts_path_ms = (own_ms + parse_ms) * api_factor + query_ms
    episode_path_ms = a["query_embedding_ms"] + a["opensearch_call_ms"]
    share = a["reads_needing_episodes_share"]
    read_ms = (1 - share) * facts_path_ms + share * max(facts_path_ms, episode_path_ms)
    init_ms = _get(results, "cold_start", "targets", "api", "init", "median_ms", default=500.0) * api_factor
    gb_api = mem.get("api", 1024) / 1024
    per_million_reads = {
        "API Gateway (REST)": 1e6 * p["api_gateway_rest_request"],
        "WAF": 1e6 * p["waf_request"],
        "Lambda requests": 1e6 * p["lambda_request"],
        "Lambda duration": 1e6 * read_ms / 1000 * gb_api * p["lambda_gb_second_arm"],
        "Lambda init (cold starts)": 1e6
        * a["api_cold_start_share"]
        * init_ms
        / 1000
        * gb_api
        * p["lambda_gb_second_arm"],
        "DynamoDB reads": 1e6 * read_units * p["dynamodb_read_request_unit"],
        "OpenAI embedding of the question": 1e6
        * share
        * a["query_embedding_tokens"]
        * p["text_embedding_3_small_token"],
        "OpenSearch Serverless": 0.0,
        "SQS": 0.0,
    }
    prompt_tokens = _get(
        results, "context_size", "summary", "single_topic", "400", "prompt_tokens_median", default=365
    )
    dump_tokens = _get(results, "context_size", "whole_profile_json_tokens", default=60_000)
    downstream = {
        "our prompt (single-topic median, default budget)": 1e6
        * prompt_tokens
        * p["gpt_4_1_mini_input_token"],
        "whole profile as JSON (200 facts)": 1e6 * dump_tokens * p["gpt_4_1_mini_input_token"],
    }

    # ------------------------------------------------------------------ per thousand fragments
    recorded = _get(results, "write_path", "emulator", "recorded", default={})
    wcu = recorded.get("write_units_per_fragment", 18.0)
    rcu = recorded.get("read_units_per_fragment", 9.0)
    calls = recorded.get("dynamodb_calls_per_fragment", 10.0)
    intake_wcu = _get(results, "write_path", "emulator", "intake", "write_units_per_fragment", default=3.0)
    worker_own_ms = _get(
        results, "write_path", "in_process", "recorded", "per_fragment", "median_ms", default=1.0
    )
    intake_own_ms = _get(results, "write_path", "intake_handler", "median_ms", default=3.0)
    extract_factor = cpu_factor(mem.get("extract", 1024))
    models = a["model_latency_s"]
    extract_ms = (
        1000 * (models["classifier"] + models["extractor"] + models["episode_embedding"])
        + worker_own_ms * extract_factor
        + calls * a["dynamodb_call_ms"]
        + a["opensearch_call_ms"]
    )
    intake_ms = intake_own_ms * api_factor + a["dynamodb_call_ms"] + a["sqs_call_ms"]
    gb_extract = mem.get("extract", 1024) / 1024
    model_cost = (
        (tokens["classifier_input"] + tokens["extractor_input"]) * p["gpt_4_1_mini_input_token"]
        + (tokens["classifier_output"] + tokens["extractor_output"]) * p["gpt_4_1_mini_output_token"]
        + tokens["embedding_input"] * p["text_embedding_3_small_token"]
    )
    per_thousand_fragments = {
        "API Gateway (REST) + WAF": 1e3 * (p["api_gateway_rest_request"] + p["waf_request"]),
        "Lambda (api: intake)": 1e3
        * (p["lambda_request"] + intake_ms / 1000 * gb_api * p["lambda_gb_second_arm"]),
        "Lambda (extract)": 1e3
        * (
            a["extract_invocations_per_fragment"] * p["lambda_request"]
            + extract_ms / 1000 * gb_extract * p["lambda_gb_second_arm"]
        ),
        "DynamoDB writes": 1e3 * (wcu + intake_wcu) * p["dynamodb_write_request_unit"],
        "DynamoDB reads": 1e3 * rcu * p["dynamodb_read_request_unit"],
        "SQS FIFO": 1e3 * a["sqs_requests_per_fragment"] * p["sqs_fifo_request"],
        "OpenAI tokens (classifier + extractor + embedding)": 1e3 * model_cost,
        "OpenSearch Serverless": 0.0,
    }

    # ------------------------------------------------------------------ fixed per month
    min_ocu = 2.0 if dep["vector_standby_replicas"] else 1.0
    fixed = {
        "OpenSearch Serverless minimum OCUs": min_ocu * p["opensearch_serverless_ocu_hour"] * 730,
        "WAF web ACL + rules": 5.0 + 1.0 * 5,
    }

    # ------------------------------------------------------------------ 10 million users
    users = a["users"]
    active = users * a["daily_active_share"]
    reads_month = active * a["reads_per_active_user_day"] * 30
    fragments_month = active * a["fragments_per_active_user_day"] * 30
    storage_gb = users * a["facts_per_user_mean"] * storage["bytes_per_fact"] / 1e9
    fragments_gb = active * a["fragments_per_active_user_day"] * 90 * a["fragment_item_bytes"] / 1e9
    vectors_gb = users * 20 * a["episode_vector_bytes"] / 1e9  # ~20 live episodes per user
    capacity = capacity_plan(results, dep)
    monthly = {
        "reads": reads_month / 1e6 * sum(per_million_reads.values()),
        "fragments": fragments_month / 1e3 * sum(per_thousand_fragments.values()),
        "nightly maintenance (expected scenario, 30 nights)": 30
        * capacity["scenarios"]["expected"]["cost_per_night"],
        "DynamoDB storage (profiles, history, 90 days of fragments)": (storage_gb + fragments_gb)
        * p["dynamodb_storage_gb_month"],
        "OpenSearch Serverless storage (~20 live episodes per user)": vectors_gb
        * p["opensearch_serverless_storage_gb_month"],
        **fixed,
    }
    peak_rps = active * a["reads_per_active_user_day"] / 86400 * a["peak_to_mean_traffic"]
    peak_fragments = active * a["fragments_per_active_user_day"] / 86400 * a["peak_to_mean_traffic"]
    ocu_note = (
        "OpenSearch Serverless scales OCUs with load above the minimum; at this volume "
        f"(~{peak_fragments:.0f} episode writes/s at peak) expect more than the minimum: not modelled."
    )
    return {
        "price_date": PRICE_DATE,
        "region": REGION,
        "prices": p,
        "assumptions": a,
        "deployment": dep,
        "measured": {
            "read_own_ms_500_facts": own_ms,
            "read_boto3_parse_ms_500_facts": parse_ms,
            "read_units_per_read_500_facts": read_units,
            "bytes_read_per_read_500_facts": bytes_read,
            "round_trips_per_read_500_facts": round_trips,
            "write_units_per_fragment": wcu,
            "intake_write_units_per_fragment": intake_wcu,
            "read_units_per_fragment": rcu,
            "dynamodb_calls_per_fragment": calls,
            "worker_own_ms_per_fragment": worker_own_ms,
            "tokens_per_fragment": tokens,
            "storage": storage,
            "prompt_tokens_single_topic": prompt_tokens,
            "whole_profile_json_tokens": dump_tokens,
        },
        "derived": {
            "api_cpu_factor": round(api_factor, 2),
            "read_billed_ms_facts_only": round(facts_path_ms, 1),
            "read_billed_ms_with_episodes": round(max(facts_path_ms, episode_path_ms), 1),
            "read_billed_ms_mean": round(read_ms, 1),
            "api_init_billed_ms": round(init_ms, 1),
            "extract_billed_ms": round(extract_ms, 1),
            "intake_billed_ms": round(intake_ms, 1),
        },
        "per_million_reads": {k: round(v, 4) for k, v in per_million_reads.items()},
        "per_million_reads_total": round(sum(per_million_reads.values()), 2),
        "downstream_prompt_per_million_reads": {k: round(v, 2) for k, v in downstream.items()},
        "per_thousand_fragments": {k: round(v, 5) for k, v in per_thousand_fragments.items()},
        "per_thousand_fragments_total": round(sum(per_thousand_fragments.values()), 4),
        "fixed_per_month": {k: round(v, 2) for k, v in fixed.items()},
        "ten_million_users": {
            "reads_per_month": reads_month,
            "fragments_per_month": fragments_month,
            "monthly": {k: round(v, 2) for k, v in monthly.items()},
            "monthly_total": round(sum(monthly.values()), 2),
            "storage_gb": round(storage_gb + fragments_gb, 1),
            "peak_reads_per_s": round(peak_rps, 1),
            "peak_fragments_per_s": round(peak_fragments, 1),
            "notes": [ocu_note],
        },
        "capacity": capacity,
    }


def capacity_plan(results: dict, dep: dict) -> dict:
    """How long one nightly maintenance run takes for 10 million users, and what it costs."""
    p, a = PRICES, ASSUMPTIONS
    factor = cpu_factor(dep["memory_mb"].get("maintain", 512))
    gb = dep["memory_mb"].get("maintain", 512) / 1024
    concurrency = dep["maintain_max_concurrency"] or 5
    batch = dep["maintenance_batch_size"] or 10
    jobs: dict = {}
    for night, n in (("nightly", "100"), ("backlog", "100"), ("nightly_5000_facts", "5000")):
        phase = night.split("_")[0]
        cpu_ms = _get(results, "maintenance", "in_process", n, phase, "median_ms", default=5.0)
        dynamo = _get(results, "maintenance", "emulator", n, phase, "dynamodb", default={})
        calls = dynamo.get("calls", 7 if night == "nightly" else 41)
        kb = dynamo.get("bytes_read", 180_000) / 1000
        job_s = (
            cpu_ms / 1000 * factor
            + calls * a["dynamodb_call_ms"] / 1000
            + kb / 100 * a["dynamodb_query_ms_per_100kb"] / 1000
        )
        jobs[night] = {
            "cpu_ms_here": cpu_ms,
            "dynamodb_calls": calls,
            "read_units": dynamo.get("read_units", 24.0),
            "write_units": dynamo.get("write_units", 11.0),
            "job_seconds_in_lambda": round(job_s, 4),
            "cost_per_job": job_s * gb * p["lambda_gb_second_arm"]
            + p["lambda_request"] / batch
            + dynamo.get("read_units", 24.0) * p["dynamodb_read_request_unit"]
            + dynamo.get("write_units", 11.0) * p["dynamodb_write_request_unit"]
            + 3 / batch * p["sqs_standard_request"],
        }
    fan_cpu_us = _get(results, "maintenance", "fan_out_in_process", "cpu_us_per_user", default=10.0)
    per_user_fan_s = (
        fan_cpu_us / 1e6 * factor
        + a["sqs_call_ms"] / 1000 / 10  # SendMessageBatch of 10, sequential
        + a["gsi_marker_bytes"] / 1e6 * a["gsi_query_page_ms"] / 1000
    )
    fan_out_limit = int(dep["maintain_timeout_s"] / per_user_fan_s)
    scenarios = {}
    for name, count in a["nightly_jobs"].items():
        job = jobs["nightly"]
        busy_s = count * job["job_seconds_in_lambda"]
        window = a["nightly_window_hours"] * 3600
        scenarios[name] = {
            "jobs": count,
            "hours_at_configured_concurrency": round(busy_s / concurrency / 3600, 2),
            "concurrency_for_window": math.ceil(busy_s / window),
            "fan_out_seconds_single_invocation": round(count * per_user_fan_s, 1),
            "cost_per_night": round(count * job["cost_per_job"], 2),
            "cost_per_night_if_backlog": round(count * jobs["backlog"]["cost_per_job"], 2),
            "hours_if_backlog_at_configured_concurrency": round(
                count * jobs["backlog"]["job_seconds_in_lambda"] / concurrency / 3600, 2
            ),
        }
    return {
        "maintain_memory_mb": dep["memory_mb"].get("maintain", 512),
        "cpu_factor": round(factor, 2),
        "configured_concurrency": concurrency,
        "batch_size": batch,
        "per_job": {
            k: {kk: (round(vv, 8) if isinstance(vv, float) else vv) for kk, vv in v.items()}
            for k, v in jobs.items()
        },
        "fan_out": {
            "seconds_per_user": round(per_user_fan_s, 6),
            "users_within_timeout": fan_out_limit,
            "timeout_s": dep["maintain_timeout_s"],
        },
        "scenarios": scenarios,
    }


def _money(x: float) -> str:
    if x == 0:
        return "0"
    if x < 0.01:
        return f"${x:.4f}"
    if x < 100:
        return f"${x:,.2f}"
    return f"${x:,.0f}"


def markdown(cost: dict) -> str:
    p, a, dep, m, d = (
        cost["prices"],
        cost["assumptions"],
        cost["deployment"],
        cost["measured"],
        cost["derived"],
    )
    cap = cost["capacity"]
    ten = cost["ten_million_users"]
    lines = [
        "# Cost model and capacity plan",
        "",
        "Generated by `make bench` (`bench/cost.py`) from the measured figures in",
        "[`bench/results.json`](bench/results.json); rerun it and this page follows. Measured inputs",
        "come from this repository's benchmarks; every other input is an assumption, listed below and",
        "used by name in the formulas. Prices: " + cost["price_date"] + "; region " + cost["region"] + ".",
        "On-demand list prices, no free tier, no Savings Plans, no volume tiers beyond the first.",
        "",
        "## List prices used",
        "",
        "| item | price |",
        "|---|---|",
        f"| Lambda arm64 duration | ${p['lambda_gb_second_arm']:.10f} per GB-s |",
        f"| Lambda requests | ${p['lambda_request'] * 1e6:.2f} per million |",
        f"| API Gateway REST API | ${p['api_gateway_rest_request'] * 1e6:.2f} per million |",
        f"| AWS WAF requests | ${p['waf_request'] * 1e6:.2f} per million (+ $5/month per web ACL, $1 per rule) |",
        f"| DynamoDB on-demand writes | ${p['dynamodb_write_request_unit'] * 1e6:.3f} per million WRU |",
        f"| DynamoDB on-demand reads | ${p['dynamodb_read_request_unit'] * 1e6:.3f} per million RRU |",
        f"| DynamoDB storage | ${p['dynamodb_storage_gb_month']:.2f} per GB-month |",
        f"| SQS FIFO / standard | ${p['sqs_fifo_request'] * 1e6:.2f} / ${p['sqs_standard_request'] * 1e6:.2f} per million requests |",
        f"| OpenSearch Serverless | ${p['opensearch_serverless_ocu_hour']:.2f} per OCU-hour, "
        f"${p['opensearch_serverless_storage_gb_month']:.3f} per GB-month |",
        f"| gpt-4.1-mini | ${p['gpt_4_1_mini_input_token'] * 1e6:.2f} / ${p['gpt_4_1_mini_output_token'] * 1e6:.2f} "
        "per million input / output tokens |",
        f"| text-embedding-3-small | ${p['text_embedding_3_small_token'] * 1e6:.2f} per million tokens |",
        "",
        "OpenSearch Serverless bills a minimum whether or not it is used: a collection needs at least",
        "0.5 OCU for indexing and 0.5 OCU for search, each doubled with standby replicas (the stack's",
        f"default: `vector_standby_replicas={dep['vector_standby_replicas']}`), so the floor is "
        f"{'2 OCUs' if dep['vector_standby_replicas'] else '1 OCU'} = "
        f"{_money(cost['fixed_per_month']['OpenSearch Serverless minimum OCUs'])} a month. The collection",
        "uses the stack's own KMS key, so it cannot share OCUs with collections under other keys.",
        "",
        "## Deployment facts (read from the CDK app)",
        "",
        f"- memory: api {dep['memory_mb'].get('api')} MB, extract {dep['memory_mb'].get('extract')} MB, "
        f"maintain {dep['memory_mb'].get('maintain')} MB (arm64); Lambda gives a full vCPU at "
        f"{a['lambda_mb_per_full_vcpu']} MB, so CPU-bound time measured here is multiplied by "
        f"`cpu_factor = max(1, {a['lambda_mb_per_full_vcpu']} / memory_mb)` "
        f"(api {d['api_cpu_factor']}, maintain {cap['cpu_factor']}), assuming an arm64 core as fast as this machine's "
        f"(`graviton_vs_this_host_per_core = {a['graviton_vs_this_host_per_core']}`);",
        f"- maintenance: SQS batch size {dep['maintenance_batch_size']}, event-source maximum concurrency "
        f"{dep['maintain_max_concurrency']}, timeout {dep['maintain_timeout_s']} s; extraction batch size "
        f"{dep['extraction_batch_size']}, maximum concurrency {dep['extract_max_concurrency']};",
        f"- API stage throttle: {dep['throttle_rate_limit']} requests/s.",
        "",
        "## Per million reads (POST /v1/context)",
        "",
        "Measured: own time at 500 facts (in-process, median) "
        f"{m['read_own_ms_500_facts']:.2f} ms; botocore parsing the Query responses {m['read_boto3_parse_ms_500_facts']:.2f} ms; "
        f"a single-topic question reads {m['bytes_read_per_read_500_facts'] / 1000:.0f} KB = {m['read_units_per_read_500_facts']} RRU "
        f"in {m.get('round_trips_per_read_500_facts', 1)} Query call(s) (eventually consistent, 0.5 RRU per 4 KB; facts are keyed by "
        "section, `CTX#S#<rank>-<section>#F#<id>`, and a question reads the key ranges of its sections only, "
        "one Query per run of adjacent sections, in parallel).",
        "",
        "```",
        "facts_ms    = (own_ms + parse_ms) * cpu_factor(api) + dynamodb_call_ms + KB_read / 100 * dynamodb_query_ms_per_100kb",
        f"            = ({m['read_own_ms_500_facts']:.2f} + {m['read_boto3_parse_ms_500_facts']:.2f}) * {d['api_cpu_factor']} "
        f"+ {a['dynamodb_call_ms']} + {m['bytes_read_per_read_500_facts'] / 1000:.0f} / 100 * {a['dynamodb_query_ms_per_100kb']} "
        f"= {d['read_billed_ms_facts_only']} ms",
        "episode_ms  = query_embedding_ms + opensearch_call_ms (in parallel with the facts; waited for up to 250 ms)",
        f"billed_ms   = (1 - share) * facts_ms + share * max(facts_ms, episode_ms) = {d['read_billed_ms_mean']} ms"
        f"   (share = reads_needing_episodes_share = {a['reads_needing_episodes_share']})",
        "duration $  = 1e6 * billed_ms / 1000 * memory_GB * price_GB_s",
        "init $      = 1e6 * api_cold_start_share * init_ms * cpu_factor / 1000 * memory_GB * price_GB_s",
        "DynamoDB $  = 1e6 * RRU_per_read * price_RRU",
        "```",
        "",
        "| component | $ per million reads |",
        "|---|---|",
    ]
    for k, v in cost["per_million_reads"].items():
        lines.append(f"| {k} | {_money(v)} |")
    lines += [
        f"| **total** | **{_money(cost['per_million_reads_total'])}** |",
        "",
        "The read path makes no model call of its own; what it hands the assistant's model is paid there.",
        "At gpt-4.1-mini input prices, per million questions:",
        "",
        "| context handed to the assistant's model | $ per million reads |",
        "|---|---|",
    ]
    for k, v in cost["downstream_prompt_per_million_reads"].items():
        lines.append(f"| {k} | {_money(v)} |")
    t = m["tokens_per_fragment"]
    lines += [
        "",
        "## Per thousand fragments (POST /v1/fragments + extraction)",
        "",
        f"Measured (emulator, recorded extractor): {m['dynamodb_calls_per_fragment']} DynamoDB calls, "
        f"{m['write_units_per_fragment']} WRU + {m['intake_write_units_per_fragment']} WRU at intake, "
        f"{m['read_units_per_fragment']} RRU per fragment; worker own time {m['worker_own_ms_per_fragment']:.2f} ms. "
        f"Tokens per fragment ({t['_how']}): classifier {t['classifier_input']} in / {t['classifier_output']} out, "
        f"extractor {t['extractor_input']} in / {t['extractor_output']} out, embedding {t['embedding_input']}.",
        "",
        "```",
        "extract_ms = 1000 * (classifier_s + extractor_s + episode_embedding_s) + own_ms * cpu_factor(extract)",
        "             + dynamodb_calls * dynamodb_call_ms + opensearch_call_ms",
        f"           = 1000 * ({a['model_latency_s']['classifier']} + {a['model_latency_s']['extractor']} + "
        f"{a['model_latency_s']['episode_embedding']}) + ... = {d['extract_billed_ms']} ms (the model's latency is billed as Lambda time)",
        "tokens $   = (in_classifier + in_extractor) * price_in + (out_classifier + out_extractor) * price_out + embedding * price_emb",
        "SQS $      = sqs_requests_per_fragment * price_FIFO",
        "```",
        "",
        "| component | $ per thousand fragments |",
        "|---|---|",
    ]
    for k, v in cost["per_thousand_fragments"].items():
        lines.append(f"| {k} | {_money(v)} |")
    lines += [
        f"| **total** | **{_money(cost['per_thousand_fragments_total'])}** |",
        "",
        "## Ten million users: a month",
        "",
        f"Assumptions: {a['users']:,} users, {a['daily_active_share']:.0%} active a day, "
        f"{a['reads_per_active_user_day']} questions and {a['fragments_per_active_user_day']} fragments per active user "
        f"a day, {a['facts_per_user_mean']} facts per user on average ({m['storage']['bytes_per_fact']} bytes per fact "
        "in DynamoDB with its history and key guard, measured on a 100-fact profile).",
        "",
        f"- reads: {ten['reads_per_month'] / 1e6:,.0f} million a month; fragments: {ten['fragments_per_month'] / 1e6:,.0f} million a month",
        f"- peak (x{a['peak_to_mean_traffic']} the mean): {ten['peak_reads_per_s']} reads/s, {ten['peak_fragments_per_s']} fragments/s",
        "",
        "| line | $ per month |",
        "|---|---|",
    ]
    for k, v in ten["monthly"].items():
        lines.append(f"| {k} | {_money(v)} |")
    lines += [f"| **total** | **{_money(ten['monthly_total'])}** |", ""]
    lines += [f"- {n}" for n in ten["notes"]]
    lines += _capacity_markdown(cost)
    lines += [
        "",
        "## Not in the model",
        "",
        "- CloudWatch Logs ingestion ($0.50/GB) and metrics, X-Ray traces (tracing is on: $5 per million",
        "  traces recorded beyond the free tier, sampled), KMS requests (data keys are cached by DynamoDB",
        "  and SQS), Cognito (per monthly active user), Secrets Manager ($0.40/secret + API calls, cached),",
        "  data transfer out, backups (AWS Backup: per GB-month), OpenSearch OCUs above the minimum.",
        "- The assistant's own chat model calls (only the context it is handed is priced above).",
        "- Free tiers and Savings Plans (they lower every Lambda line).",
    ]
    return "\n".join(lines) + "\n"


def _capacity_markdown(cost: dict) -> list[str]:
    a, dep, cap = cost["assumptions"], cost["deployment"], cost["capacity"]
    nightly, backlog = cap["per_job"]["nightly"], cap["per_job"]["backlog"]
    heavy = cap["per_job"]["nightly_5000_facts"]
    lines = [
        "",
        "## Capacity plan: the nightly maintenance run for 10 million users",
        "",
        "How it runs: EventBridge starts `maintain` at 03:00; the scheduled invocation only queues one",
        "listing task per due activity day (yesterday and each policy horizon) on the maintenance queue.",
        "Each task is run by its own `maintain` invocation: it pages through that day of the sparse GSI",
        "(1,000 users a page) and queues the users 25 to a message; when its invocation runs short of",
        "time it queues a continuation from the GSI cursor. The queue feeds `maintain` in batches",
        f"of {cap['batch_size']} records, at most {cap['configured_concurrency']} invocations at a time "
        "(`maintain_max_concurrency`); a record runs the per-user jobs of its users.",
        "",
        "Per-user job at 100 facts (measured: CPU in-process, DynamoDB calls and units on the emulator):",
        "",
        "| night | CPU here | DynamoDB calls | RRU | WRU | job in Lambda | $ per million jobs |",
        "|---|---|---|---|---|---|---|",
        f"| nightly (little due) | {nightly['cpu_ms_here']:.2f} ms | {nightly['dynamodb_calls']} | {nightly['read_units']} | "
        f"{nightly['write_units']} | {nightly['job_seconds_in_lambda'] * 1000:.1f} ms | {_money(nightly['cost_per_job'] * 1e6)} |",
        f"| backlog (first run) | {backlog['cpu_ms_here']:.2f} ms | {backlog['dynamodb_calls']} | {backlog['read_units']} | "
        f"{backlog['write_units']} | {backlog['job_seconds_in_lambda'] * 1000:.1f} ms | {_money(backlog['cost_per_job'] * 1e6)} |",
        f"| nightly, a heavy user (5,000 facts) | {heavy['cpu_ms_here']:.2f} ms | {heavy['dynamodb_calls']} | {heavy['read_units']} | "
        f"{heavy['write_units']} | {heavy['job_seconds_in_lambda'] * 1000:.1f} ms | {_money(heavy['cost_per_job'] * 1e6)} |",
        "",
        "```",
        f"job_s          = cpu_ms / 1000 * cpu_factor(maintain = {cap['cpu_factor']}) + calls * dynamodb_call_ms / 1000"
        " + KB_read / 100 * dynamodb_query_ms_per_100kb / 1000",
        f"hours          = jobs * job_s / maintain_max_concurrency ({cap['configured_concurrency']}) / 3600",
        f"concurrency    = ceil(jobs * job_s / (nightly_window_hours ({a['nightly_window_hours']}) * 3600))",
        f"$ per job      = job_s * {cap['maintain_memory_mb'] / 1024:g} GB * price_GB_s + price_request / batch"
        " + RRU * price_RRU + WRU * price_WRU + 3 / batch * price_SQS_standard",
        f"fan-out per user = cpu * cpu_factor + sqs_call_ms / 10 + marker_bytes / 1 MB * gsi_query_page_ms"
        f" = {cap['fan_out']['seconds_per_user'] * 1e6:.0f} µs",
        "```",
        "",
        "| scenario (users due tonight) | jobs | hours at concurrency "
        f"{cap['configured_concurrency']} | concurrency for a {a['nightly_window_hours']:g} h window | listing, all days end to end | $ per night | $ per night if all backlog |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, s in cap["scenarios"].items():
        lines.append(
            f"| {name} | {s['jobs']:,} | {s['hours_at_configured_concurrency']:,} h | {s['concurrency_for_window']} | "
            f"{s['fan_out_seconds_single_invocation']:,} s | {_money(s['cost_per_night'])} | {_money(s['cost_per_night_if_backlog'])} |"
        )
    limit = cap["fan_out"]["users_within_timeout"]
    expected = cap["scenarios"]["expected"]
    lines += [
        "",
        "What this says:",
        "",
        "- **The listing is split, so no invocation holds the night.** Listing all due users takes",
        f"  ~{expected['fan_out_seconds_single_invocation']:,.0f} s of work for the expected {expected['jobs']:,} users; one",
        f"  `maintain` invocation ({cap['fan_out']['timeout_s']} s timeout) lists about {limit:,} before it hands over to a",
        "  continuation, and the due days list in parallel. Listing is not the bottleneck; the jobs are.",
        f"- **The configured concurrency is too low for 10 million users.** At {cap['configured_concurrency']} concurrent",
        f"  invocations the expected night takes {expected['hours_at_configured_concurrency']} h; finishing in "
        f"{a['nightly_window_hours']:g} h needs about {expected['concurrency_for_window']} (`-c maintain_max_concurrency=...`),",
        "  well inside the default account concurrency of 1,000, and the jobs touch one user partition each.",
        "- **The GSI's day key is one partition per day.** Every applied fragment re-puts the user's",
        "  `active on day D` marker, so all of a day's marker writes land on one GSI partition key",
        f"  (limit {a['dynamodb_partition_write_limit_per_s']:,} writes/s per partition); at "
        f"{cost['ten_million_users']['peak_fragments_per_s']} fragments/s at peak it is within the limit "
        f"(~{a['dynamodb_partition_write_limit_per_s'] / max(1e-9, cost['ten_million_users']['peak_fragments_per_s']):.0f}x"
        " headroom, less the retrieval-statistics and course-end markers on the same index);",
        "  shard the day key (`D#0..N`) before the fragment rate approaches it.",
        f"- **The API stage throttle ({dep['throttle_rate_limit']} requests/s) is below the peak read rate** "
        f"({cost['ten_million_users']['peak_reads_per_s']} reads/s):",
        "  raise `throttle_rate_limit` / `throttle_burst_limit` for this audience.",
        "- **Each job reads the user's whole `CTX#` range (every section) twice**: `run_user` loads the memory, then",
        "  `refresh_summary` loads it again to decide whether the summary changed. Reusing the first load",
        "  when no change was written would halve the read units of the common (nightly) job.",
        "- A first run over profiles that were never maintained (a migration) costs the backlog column:",
        "  plan it over several nights or with more concurrency.",
    ]
    return lines


def write(cost: dict, path: Path) -> None:
    path.write_text(markdown(cost), encoding="utf-8")
