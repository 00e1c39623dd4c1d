"""The `ltm` command end to end, in subprocesses: run, token, tick, invoke, redrive, restart with data.

Every process gets its own LTM_HOME and ephemeral ports (LTM_PORT=0, LTM_EMULATOR_PORT=0); the ports
in use are read from stack.json.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from ltm_local.emulator import client

pytestmark = [pytest.mark.xdist_group("ltm_local_cli"), pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
# The directory that makes this module importable by its dotted name (for the stand-in handlers).
IMPORT_ROOT = Path(__file__).resolve().parents[len(__name__.split(".")) - 1]
HEALTH_EVENT = ROOT / "events" / "api_get_health.json"


# --- stand-in handlers, imported by the `ltm` subprocesses --------------------------------------------

def api_echo(event: dict, context) -> dict:
    claims = (event["requestContext"].get("authorizer") or {}).get("claims")
    body = {"path": event["path"], "sub": claims["sub"] if claims else None}
    return {"statusCode": 200, "headers": {"Content-Type": "application/json"}, "body": json.dumps(body)}


def maintain_echo(event: dict, context) -> dict:
    return {"kind": event.get("detail-type", "sqs"), "detail": event.get("detail")}


def extract_ok(event: dict, context) -> dict:
    return {"batchItemFailures": []}


# --- helpers ---------------------------------------------------------------------------------------------

def ltm_env(home: Path, standins: bool = True) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("OPENAI_", "LTM_"))}
    env.update(
        {
            "LTM_HOME": str(home),
            "LTM_PORT": "0",
            "LTM_EMULATOR_PORT": "0",
            "LTM_TICK_SECONDS": "0",
            "LTM_SNAPSHOT_SECONDS": "0.5",
            "PYTHONPATH": os.pathsep.join(filter(None, [str(IMPORT_ROOT), env.get("PYTHONPATH")])),
        }
    )
    if standins:
        env["LTM_API_HANDLER"] = f"{__name__}.api_echo"
        env["LTM_MAINTAIN_HANDLER"] = f"{__name__}.maintain_echo"
        env["LTM_EXTRACT_HANDLER"] = f"{__name__}.extract_ok"
    return env


def ltm(env: dict, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ltm_local.cli", *args],
        env=env, cwd=ROOT, capture_output=True, text=True, timeout=timeout, check=False,
    )


class Running:
    """`ltm run` in a subprocess, output to files (pipes could fill up and block it)."""

    def __init__(self, home: Path, env: dict) -> None:
        self.home = home
        self.out = home.parent / f"{home.name}-run-{time.monotonic_ns()}.log"
        home.parent.mkdir(parents=True, exist_ok=True)
        with self.out.open("wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "ltm_local.cli", "run"], env=env, cwd=ROOT,
                stdout=log, stderr=subprocess.STDOUT,
            )
        self.state = self._wait_ready()

    def _wait_ready(self, timeout: float = 30.0) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"ltm run exited: {self.output()}")
            try:
                state = json.loads((self.home / "stack.json").read_text())
                if state["pid"] == self.process.pid:
                    return state
            except (OSError, ValueError, KeyError):
                pass
            time.sleep(0.05)
        self.process.kill()
        raise AssertionError(f"ltm run not ready within {timeout} s: {self.output()}")

    def output(self) -> str:
        return self.out.read_text(errors="replace")

    def get(self, path: str, token: str | None = None) -> tuple[int, dict]:
        request = urllib.request.Request(f"http://127.0.0.1:{self.state['api_port']}{path}")
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=15) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as err:
            return err.code, json.loads(err.read())

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                return self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
                raise
        return self.process.returncode


@pytest.fixture
def running(tmp_path):
    started: list[Running] = []

    def start(home: Path, env: dict) -> Running:
        run = Running(home, env)
        started.append(run)
        return run

    yield start
    for run in started:
        if run.process.poll() is None:
            run.process.kill()
            run.process.wait(timeout=10)


# --- tests ------------------------------------------------------------------------------------------------

def test_run_token_tick_invoke_and_restart_keep_data(tmp_path, running):
    home = tmp_path / "ltm"
    env = ltm_env(home)
    run = running(home, env)
    assert run.get("/v1/health") == (200, {"path": "/v1/health", "sub": None})
    assert run.get("/v1/facts")[0] == 401

    token = ltm(env, "token", "bob").stdout.strip()
    assert run.get("/v1/facts", token) == (200, {"path": "/v1/facts", "sub": "bob"})

    tick = ltm(env, "tick", "--dry-run")
    assert tick.returncode == 0, tick.stderr
    assert json.loads(tick.stdout) == {"kind": "Scheduled Event", "detail": {"dry_run": True}}

    invoked = ltm(env, "invoke", "api", str(HEALTH_EVENT))
    assert invoked.returncode == 0, invoked.stderr
    assert json.loads(json.loads(invoked.stdout)["body"]) == {"path": "/v1/health", "sub": None}

    table = run.state["resources"]["table"]
    item = {"PK": {"S": "USER#bob"}, "SK": {"S": "FACT#allergy"}, "v": {"N": "1"}}
    client("dynamodb", run.state["emulator_endpoint"]).put_item(TableName=table, Item=item)
    assert run.stop() == 0
    assert not (home / "stack.json").exists()
    assert "no model configured" in run.output()

    redriven = ltm(env, "redrive")  # no stack running: a headless one for the command's duration
    assert redriven.returncode == 0, redriven.stderr
    assert "extraction: moved 0" in redriven.stdout and "maintenance: moved 0" in redriven.stdout

    again = running(home, env)
    stored = client("dynamodb", again.state["emulator_endpoint"]).get_item(
        TableName=table, Key={"PK": item["PK"], "SK": item["SK"]}
    )
    assert stored.get("Item") == item
    assert again.stop() == 0


def test_invoke_real_api_handler_health_without_a_stack(tmp_path):
    result = ltm(ltm_env(tmp_path / "ltm", standins=False), "invoke", "api", str(HEALTH_EVENT))
    assert result.returncode == 0, result.stdout + result.stderr
    response = json.loads(result.stdout)
    assert response["statusCode"] == 200
    assert json.loads(response["body"]) == {"status": "ok"}


def test_run_with_real_handlers_answers_health(tmp_path, running):
    run = running(tmp_path / "ltm", ltm_env(tmp_path / "ltm", standins=False))
    assert run.get("/v1/health") == (200, {"status": "ok"}), run.output()
    assert run.stop() == 0
