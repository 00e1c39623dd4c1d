"""``ltm``: run the whole service locally, mint dev tokens, invoke handlers, tick maintenance, redrive DLQs.

    ltm run                          emulator + API front (127.0.0.1:3000) + queue pollers + maintain timer
    ltm token USER [--ttl SECONDS]   a development JWT with sub=USER
    ltm invoke FUNCTION EVENT.json   one handler, one event file (a Docker-free sam local invoke)
    ltm tick [--dry-run]             one EventBridge "Scheduled Event" to the maintain handler
    ltm redrive [--queue Q]          move dead-lettered messages back to their queue
    ltm doctor [--base-url U]        check the model endpoint: key, reachable, key accepted, modes
    ltm smoke --base-url U --token T the seed-000 medication story end to end against a stage

Environment: LTM_HOME (data dir, default <repo>/.ltm), LTM_PORT (3000), LTM_EMULATOR_PORT (4567),
LTM_TICK_SECONDS (3600, 0 = off), LTM_SNAPSHOT_SECONDS (30: journal compaction), LTM_RETRY_SECONDS (2),
LTM_DEBUG, OPENAI_API_KEY / OPENAI_BASE_URL (passed through to the handlers).

Auth as in AWS: every /v1 route except GET /v1/health, /v1/docs and /v1/openapi.json needs
"Authorization: Bearer $(ltm token USER)". Routes under /v1/internal/ are IAM-only in AWS; locally
they answer 403 unless the request carries the header "X-Ltm-Internal: 1".
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import signal
import sys
import threading
import time
import traceback
import urllib.error
import urllib.request
import warnings
from pathlib import Path

from .config import FUNCTIONS, StackConfig, apply_environment, handler_environment, restore_environment


def _setup_logging(verbose: bool) -> None:
    level = logging.DEBUG if os.environ.get("LTM_DEBUG") else logging.INFO if verbose else logging.WARNING
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("ltm %(name)s %(levelname)s: %(message)s"))
    root = logging.getLogger("ltm")
    root.handlers[:] = [handler]
    root.setLevel(level)
    root.propagate = False


def _print_json(value: object) -> None:
    print(json.dumps(value, indent=2, ensure_ascii=False, default=str))


# --- run ----------------------------------------------------------------------------------------------

def cmd_run(args: argparse.Namespace) -> int:
    from .stack import LocalStack, StackBusy

    config = StackConfig.from_env()
    stack = LocalStack(config)
    try:
        stack.start()
    except StackBusy as err:
        print(f"ltm: {err}", file=sys.stderr)
        return 1
    except OSError as err:
        print(f"ltm: cannot start: {err} (LTM_PORT / LTM_EMULATOR_PORT choose other ports)", file=sys.stderr)
        return 1
    print(stack.banner(), flush=True)

    stopping = threading.Event()

    def request_stop(signum, _frame) -> None:
        if stopping.is_set():
            print("ltm: forced exit (everything acknowledged is in the journal)", file=sys.stderr, flush=True)
            os._exit(130)
        stopping.set()

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)
    try:
        while not stopping.wait(1.0):
            pass
    finally:
        print("ltm: stopping (snapshotting data)...", file=sys.stderr, flush=True)
        started = time.monotonic()
        stack.stop()
        print(f"ltm: stopped in {time.monotonic() - started:.1f} s; data kept in {config.home}",
              file=sys.stderr, flush=True)
    return 0


# --- token --------------------------------------------------------------------------------------------

def cmd_token(args: argparse.Namespace) -> int:
    from .auth import DevSigner

    if args.ttl <= 0:
        print("ltm: --ttl must be positive", file=sys.stderr)
        return 2
    config = StackConfig.from_env()
    print(DevSigner(config.key_path).mint(args.user, ttl_s=args.ttl))
    return 0


# --- invoke -------------------------------------------------------------------------------------------

def _lambda_error(err: BaseException) -> dict:
    return {
        "errorMessage": str(err),
        "errorType": err.__class__.__name__,
        "stackTrace": traceback.format_tb(err.__traceback__),
    }


def cmd_invoke(args: argparse.Namespace) -> int:
    from .emulator import Resources
    from .invoke import Invoker
    from .stack import LocalStack, connect_or_lock

    try:
        event = json.loads(Path(args.event).read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        print(f"ltm: cannot read event {args.event}: {err}", file=sys.stderr)
        return 2
    config = StackConfig.from_env()
    state, lock = connect_or_lock(config)
    outcome: tuple[bool, object]
    # Handler logs (Powertools prints to stdout) go to stderr: stdout carries only the result.
    with contextlib.redirect_stdout(sys.stderr):
        if state is not None:
            resources = Resources.from_json(state["resources"])
            previous = apply_environment(handler_environment(
                endpoint=state["emulator_endpoint"],
                table_name=resources.table_name,
                extraction_queue_url=resources.queues["extraction"].url,
                maintenance_queue_url=resources.queues["maintenance"].url,
                vector_path=Path(state["vector_path"]),
            ))
            try:
                outcome = _invoke(Invoker(config.handlers, resources.account_id), args.function, event)
            finally:
                restore_environment(previous)
        else:
            stack = LocalStack(config, front=False, pollers=False, timer=False)
            stack.start(lock)
            try:
                outcome = _invoke(stack.invoker, args.function, event)  # type: ignore[arg-type]
            finally:
                stack.stop()
    ok, value = outcome
    _print_json(value)
    return 0 if ok else 1


def _invoke(invoker, function: str, event: dict) -> tuple[bool, object]:
    try:
        return True, invoker.invoke(function, event)
    except Exception as err:  # reported like Lambda does
        return False, _lambda_error(err)


# --- tick ---------------------------------------------------------------------------------------------

def cmd_tick(args: argparse.Namespace) -> int:
    from .stack import LocalStack, connect_or_lock

    config = StackConfig.from_env()
    state, lock = connect_or_lock(config)
    if state is not None:
        request = urllib.request.Request(  # fixed http://127.0.0.1 URL from stack.json
            f"http://127.0.0.1:{state['api_port']}/_ltm/tick",
            data=json.dumps({"dry_run": args.dry_run}).encode(),
            headers={"X-Ltm-Control": state["control_token"], "Content-Type": "application/json"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=300) as response:  # noqa: S310
                _print_json(json.loads(response.read() or b"null"))
                return 0
        except urllib.error.HTTPError as err:
            _print_json(json.loads(err.read() or b"null"))
            return 1
    # No stack running: a headless one with pollers, so the work the tick fans out is done too.
    stack = LocalStack(config, front=False, pollers=True, timer=False)
    with contextlib.redirect_stdout(sys.stderr):
        stack.start(lock)
        try:
            try:
                outcome: tuple[bool, object] = (True, stack.tick(args.dry_run))
            except Exception as err:  # reported like Lambda does
                outcome = (False, _lambda_error(err))
            drained = stack.wait_idle(float(os.environ.get("LTM_TICK_DRAIN_SECONDS", "120")))
        finally:
            stack.stop()
    if not drained:
        print("ltm: queued work not finished in time; it stays queued for the next `ltm run`",
              file=sys.stderr)
    ok, value = outcome
    _print_json(value)
    return 0 if ok else 1


# --- redrive ------------------------------------------------------------------------------------------

def cmd_redrive(args: argparse.Namespace) -> int:
    from .emulator import Resources
    from .redrive import redrive
    from .stack import LocalStack, connect_or_lock

    config = StackConfig.from_env()
    state, lock = connect_or_lock(config)
    stack = None
    if state is not None:
        endpoint, resources = state["emulator_endpoint"], Resources.from_json(state["resources"])
    else:
        stack = LocalStack(config, front=False, pollers=False, timer=False).start(lock)
        endpoint, resources = stack.emulator.endpoint, stack.resources  # type: ignore[union-attr]
    try:
        keys = [args.queue] if args.queue else list(resources.queues)  # type: ignore[union-attr]
        for key in keys:
            ref = resources.queues[key]  # type: ignore[union-attr]
            moved = redrive(endpoint, ref)
            print(f"{key}: moved {moved} message(s) from {ref.dlq_url.rsplit('/', 1)[1]} "
                  f"to {ref.url.rsplit('/', 1)[1]}")
    finally:
        if stack is not None:
            stack.stop()
    return 0


# --- doctor -------------------------------------------------------------------------------------------


def doctor(settings=None, *, model: str | None = None) -> dict:
    """Check the model endpoint the settings point at: key, reachability, key accepted, and which
    structured output modes work (each asked for the classifier's tiny schema)."""
    from health_ltm.adapters import openai_llm
    from health_ltm.adapters.llm_schemas import SectionChoice
    from health_ltm.adapters.secrets import get_openai_api_key
    from health_ltm.errors import ModelNotConfigured, ModelUnavailable
    from health_ltm.settings import Settings

    settings = settings or Settings()
    model = model or settings.classifier_model
    report: dict = {
        "endpoint": settings.openai_base_url or "https://api.openai.com/v1",
        "model": model,
        "configured_mode": settings.structured_output,
        "checks": {},
        "ok": False,
    }
    checks = report["checks"]
    try:
        get_openai_api_key(settings)
        has_key = bool(settings.openai_api_key or settings.openai_secret_arn)
        checks["key"] = {"ok": True, "detail": "a key is set" if has_key else "none set (a base URL alone)"}
    except ModelNotConfigured as err:
        checks["key"] = {"ok": False, "detail": str(err)}
        return report
    except ModelUnavailable as err:
        checks["key"] = {"ok": False, "detail": str(err)}
        return report
    client = openai_llm.openai_client(settings)
    try:
        with openai_llm._model_errors("doctor"):
            listed = [m.id for m in client.models.list()]
        checks["reachable"] = {"ok": True, "detail": f"{len(listed)} model(s) listed"}
        checks["key_accepted"] = {"ok": True, "detail": "the endpoint answered with the key"}
        if listed and model not in listed:
            # A warning: servers alias models (llama.cpp serves whatever it loaded under any name).
            report["warning"] = f"{model} is not among the listed models {listed[:5]}"
    except openai_llm.ModelAuthRejected as err:
        checks["reachable"] = {"ok": True, "detail": "the endpoint answered"}
        checks["key_accepted"] = {"ok": False, "detail": str(err)}
        return report
    except openai_llm.ModelServerError as err:
        checks["reachable"] = {"ok": False, "detail": str(err)}
        return report
    except ModelUnavailable as err:  # e.g. 404: some servers do not list models; the modes will tell
        checks["reachable"] = {"ok": True, "detail": f"models list not served ({err})"}
    modes = {}
    for mode in openai_llm.MODES:
        try:
            openai_llm.structured_completion(
                client,
                model=model,
                system="Which health topics does the user's message touch? Answer with the sections.",
                user="[user] I am allergic to penicillin.",
                response_model=SectionChoice,
                operation="doctor",
                mode=mode,
            )
            modes[mode] = {"ok": True, "detail": "answer validated against the schema"}
        except openai_llm.ModelModeUnsupported as err:
            modes[mode] = {"ok": False, "detail": f"refused: {err}"}
        except openai_llm.ModelAuthRejected as err:
            checks["key_accepted"] = {"ok": False, "detail": str(err)}
            return report
        except ModelUnavailable as err:
            modes[mode] = {"ok": False, "detail": f"accepted, but {err}"}
    checks["structured_output"] = modes
    working = [m for m, r in modes.items() if r["ok"]]
    report["recommended_mode"] = working[0] if working else None
    wanted = settings.structured_output
    report["ok"] = (
        bool(working)
        and (wanted == "auto" or modes.get(wanted, {}).get("ok", False))
        and all(check.get("ok", True) for name, check in checks.items() if name != "structured_output")
    )
    if not report["ok"] and working:
        report["hint"] = f"set LTM_STRUCTURED_OUTPUT={working[0]} (or auto)"
    return report


def cmd_doctor(args: argparse.Namespace) -> int:
    from health_ltm.settings import Settings

    overrides = {}
    if args.base_url:
        overrides["OPENAI_BASE_URL"] = args.base_url
    if args.mode:
        overrides["LTM_STRUCTURED_OUTPUT"] = args.mode
    report = doctor(Settings(**overrides), model=args.model)
    _print_json(report)
    return 0 if report["ok"] else 1


# --- smoke --------------------------------------------------------------------------------------------


def cmd_smoke(args: argparse.Namespace) -> int:
    repo = str(Path(__file__).resolve().parents[2])
    if repo not in sys.path:
        sys.path.insert(0, repo)  # bench/ sits beside functions/, outside the installed packages
    from bench.smoke import run_smoke

    report = run_smoke(args.base_url, args.token, timeout_s=args.timeout, erase_first=args.erase_first)
    _print_json(report)
    return 0 if report["ok"] else 1


# --- entry point --------------------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ltm", description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 1)[1],
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("run", help="run the local stack in the foreground").set_defaults(func=cmd_run)

    token = commands.add_parser("token", help="print a development JWT for USER (sub=USER)")
    token.add_argument("user")
    token.add_argument("--ttl", type=int, default=24 * 3600, help="lifetime in seconds (default a day)")
    token.set_defaults(func=cmd_token)

    invoke = commands.add_parser("invoke", help="run one handler once with an event file, print its result")
    invoke.add_argument("function", choices=FUNCTIONS)
    invoke.add_argument("event", help="event JSON file, e.g. events/api_get_health.json")
    invoke.set_defaults(func=cmd_invoke)

    tick = commands.add_parser("tick", help="send a scheduled event to the maintain handler")
    tick.add_argument("--dry-run", action="store_true", help='detail {"dry_run": true}: report only')
    tick.set_defaults(func=cmd_tick)

    redrive_cmd = commands.add_parser("redrive", help="move DLQ messages back to their source queue")
    redrive_cmd.add_argument("--queue", choices=("extraction", "maintenance"), help="default: both")
    redrive_cmd.set_defaults(func=cmd_redrive)

    doctor_cmd = commands.add_parser(
        "doctor", help="check the model endpoint: key, reachable, key accepted, structured output modes"
    )
    doctor_cmd.add_argument("--base-url", help="default: OPENAI_BASE_URL (else api.openai.com)")
    doctor_cmd.add_argument("--model", help="default: LTM_CLASSIFIER_MODEL")
    doctor_cmd.add_argument(
        "--mode",
        choices=("json_schema", "json_object", "tools", "auto"),
        help="the mode you mean to run with (default: LTM_STRUCTURED_OUTPUT)",
    )
    doctor_cmd.set_defaults(func=cmd_doctor)

    smoke_cmd = commands.add_parser("smoke", help="the seed-000 medication story against a deployed stage")
    smoke_cmd.add_argument(
        "--base-url", required=True, help="the stage URL (ApiUrl output), e.g. https://.../prod/"
    )
    smoke_cmd.add_argument("--token", required=True, help="a Cognito access/ID token of a test user")
    smoke_cmd.add_argument("--timeout", type=float, default=180.0, help="seconds to wait per fragment")
    smoke_cmd.add_argument("--erase-first", action="store_true", help="erase the user's memory first")
    smoke_cmd.set_defaults(func=cmd_smoke)
    return parser


def main(argv: list[str] | None = None) -> int:
    # Powertools warns on every invocation that emits no business metric: noise on a console.
    warnings.filterwarnings("ignore", message="No application metrics to publish")
    args = build_parser().parse_args(argv)
    _setup_logging(verbose=args.command == "run")
    try:
        return args.func(args)
    except KeyboardInterrupt:
        return 130
    except Exception as err:
        from .stack import StackBusy

        if isinstance(err, StackBusy):
            print(f"ltm: {err}", file=sys.stderr)
            return 1
        raise


if __name__ == "__main__":
    sys.exit(main())
