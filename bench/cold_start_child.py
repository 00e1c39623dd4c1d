"""One cold start, in this fresh process: ``python bench/cold_start_child.py bare|api|extract|maintain``.

Started by ``bench.cold_start`` with the benchmark environment; prints one JSON line.
The clock starts before any import of the target.
"""

import time

_T0 = time.perf_counter()

import sys  # noqa: E402

WATCHED = (
    "openai",
    "opensearchpy",
    "bpe_openai",
    "boto3",
    "botocore",
    "aws_xray_sdk",
    "health_ltm.write.rules.extractor",
)


def _init(target: str):
    if target == "bare":
        # --- bare handler ---
        from aws_lambda_powertools import Logger, Metrics, Tracer
        from aws_lambda_powertools.event_handler import APIGatewayRestResolver

        logger = Logger(service="bare")
        tracer = Tracer(service="bare")
        metrics = Metrics(namespace="Bare", service="bare")
        app = APIGatewayRestResolver(enable_validation=True)

        @app.get("/v1/health")
        def health() -> dict:
            return {"status": "ok"}

        @logger.inject_lambda_context(log_event=False)
        @tracer.capture_lambda_handler(capture_response=False)
        @metrics.log_metrics
        def handler(event, context):
            return app.resolve(event, context)

        # --- end bare ---

        return handler
    import importlib

    return importlib.import_module(f"health_ltm.handlers.{target}").handler


def _timed(handler, event, context) -> tuple[float, dict]:
    started = time.perf_counter()
    response = handler(event, context)
    elapsed = time.perf_counter() - started
    if response.get("statusCode") != 200:
        raise SystemExit(f"status {response.get('statusCode')}: {response.get('body')}")
    return elapsed, response


def _peak_rss_mb() -> float:
    """VmHWM: this process image's peak RSS (ru_maxrss would carry the parent's across exec)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    target = sys.argv[1]
    handler = _init(target)
    init_s = time.perf_counter() - _T0
    init_done = time.perf_counter()
    out: dict = {"target": target, "init_s": init_s, "modules": {m: m in sys.modules for m in WATCHED}}

    ready_at: list[float] = []
    if target == "api":
        import threading

        from health_ltm.read import tokens

        def watch() -> None:  # notes when the background tokenizer load finishes
            while not tokens.is_ready():
                time.sleep(0.001)
            ready_at.append(time.perf_counter())

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()

    import json
    import warnings

    warnings.filterwarnings("ignore", message="No application metrics to publish")
    if target in ("bare", "api"):
        from bench import harness
        from ltm_local.invoke import LambdaContext

        if target == "bare":
            event = json.loads((harness.REPO / "events" / "api_get_health.json").read_text(encoding="utf-8"))
        else:
            # 500 facts in the in-process repository (built after init, while the tokenizer loads).
            from bench.profiles import build_profile, seed
            from health_ltm.storage.memory import InMemoryRepository

            repo = InMemoryRepository()
            seed(repo, "bench-cold-500", build_profile(500))
            patched = harness.use_repository(repo)  # kept referenced: leaving it would undo the patch
            patched.__enter__()
            event = harness.api_event("Можно ли мне ибупрофен?", "bench-cold-500")
        out["first_request"], first = _timed(handler, event, LambdaContext(target, 30))
        out["second_request"], _ = _timed(handler, event, LambdaContext(target, 30))
        if target == "api":
            out["first_request_counter"] = json.loads(first["body"])["tokens"]["counter"]
            watcher.join()
            out["tokenizer_ready_after_init"] = max(0.0, ready_at[0] - init_done)
            out["warm_request"], _ = _timed(handler, event, LambdaContext(target, 30))
            out["modules_after_requests"] = {m: m in sys.modules for m in WATCHED}
            # What the DynamoDB repository adds to the first request in AWS: boto3 and its client.
            started = time.perf_counter()
            import boto3

            boto3.client("dynamodb")
            out["first_dynamodb_client"] = time.perf_counter() - started
    out["rss_mb"] = _peak_rss_mb()
    print(json.dumps({"bench": out}), flush=True)


if __name__ == "__main__":
    main()
