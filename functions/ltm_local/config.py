"""Where the local stack keeps its data, which ports it uses, and the environment the handlers see."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

REGION = "eu-central-1"
STACK_PREFIX = "health-ltm-local"
TABLE_NAME = "health-ltm-local"
STAGE = "local"
API_ID = "ltmlocal"

DEFAULT_API_PORT = 3000
# Not moto's 5000 (AirPlay on macOS) nor LocalStack's 4566; if busy and not set explicitly, an
# ephemeral port is used instead (stack.json records the one in use).
DEFAULT_EMULATOR_PORT = 4567
DEFAULT_TICK_SECONDS = 3600.0
# With the write-ahead journal a snapshot is compaction only (every change is durable before it is
# acknowledged): a full-table snapshot every 30 s, or sooner when the journal grows.
DEFAULT_SNAPSHOT_SECONDS = 30.0
# Lambda leaves a failed message invisible for the whole visibility timeout (minutes); locally a
# retry should come back in seconds.
DEFAULT_RETRY_SECONDS = 2
# API Gateway's payload limit.
MAX_BODY_BYTES = 10 * 1024 * 1024

FUNCTIONS = ("api", "extract", "maintain")
DEFAULT_HANDLERS = {
    "api": "health_ltm.handlers.api.handler",
    "extract": "health_ltm.handlers.extract.handler",
    "maintain": "health_ltm.handlers.maintain.handler",
}
# API Gateway allows at most 29 s per integration; the workers use the timeouts the CDK stack sets.
FUNCTION_TIMEOUTS_S = {"api": 29, "extract": 60, "maintain": 120}

# Environment variables that would send boto3 somewhere other than the emulator.
_ENV_TO_CLEAR_PREFIXES = ("AWS_ENDPOINT_URL_",)
_ENV_TO_CLEAR = ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN", "LTM_OPENAI_SECRET_ARN")


def repo_root() -> Path | None:
    """The checkout this package lives in (editable install), else None."""
    candidate = Path(__file__).resolve().parents[2]
    return candidate if (candidate / "pyproject.toml").is_file() else None


def default_home(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    if env.get("LTM_HOME"):
        return Path(env["LTM_HOME"]).expanduser().resolve()
    root = repo_root()
    return (root if root else Path.cwd()) / ".ltm"


def _int(env: Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(name, "")
    try:
        return int(raw) if raw.strip() else default
    except ValueError as err:
        raise SystemExit(f"ltm: {name} must be an integer, got {raw!r}") from err


def _float(env: Mapping[str, str], name: str, default: float) -> float:
    raw = env.get(name, "")
    try:
        return float(raw) if raw.strip() else default
    except ValueError as err:
        raise SystemExit(f"ltm: {name} must be a number, got {raw!r}") from err


@dataclass
class StackConfig:
    home: Path
    api_port: int = DEFAULT_API_PORT
    emulator_port: int = DEFAULT_EMULATOR_PORT
    # When the default emulator port is busy, fall back to an ephemeral one instead of failing.
    emulator_port_fallback: bool = True
    handlers: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_HANDLERS))
    tick_seconds: float = DEFAULT_TICK_SECONDS  # 0 disables the maintenance timer
    snapshot_seconds: float = DEFAULT_SNAPSHOT_SECONDS
    retry_visibility_s: int = DEFAULT_RETRY_SECONDS
    poll_wait_s: int = 1
    max_body_bytes: int = MAX_BODY_BYTES

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides) -> StackConfig:
        env = os.environ if env is None else env
        handlers = dict(DEFAULT_HANDLERS)
        # Test and debugging hook: run the stack with other handlers (dotted paths).
        for function in FUNCTIONS:
            override = env.get(f"LTM_{function.upper()}_HANDLER")
            if override:
                handlers[function] = override
        values = {
            "home": default_home(env),
            "api_port": _int(env, "LTM_PORT", DEFAULT_API_PORT),
            "emulator_port": _int(env, "LTM_EMULATOR_PORT", DEFAULT_EMULATOR_PORT),
            "emulator_port_fallback": not env.get("LTM_EMULATOR_PORT"),
            "handlers": handlers,
            "tick_seconds": _float(env, "LTM_TICK_SECONDS", DEFAULT_TICK_SECONDS),
            "snapshot_seconds": _float(env, "LTM_SNAPSHOT_SECONDS", DEFAULT_SNAPSHOT_SECONDS),
            "retry_visibility_s": _int(env, "LTM_RETRY_SECONDS", DEFAULT_RETRY_SECONDS),
        }
        values.update(overrides)
        return cls(**values)

    @property
    def data_dir(self) -> Path:
        return self.home / "data"

    @property
    def vector_path(self) -> Path:
        return self.home / "vectors"

    @property
    def key_path(self) -> Path:
        return self.home / "dev-signing-key.pem"

    @property
    def state_path(self) -> Path:
        return self.home / "stack.json"

    @property
    def lock_path(self) -> Path:
        return self.home / "stack.lock"

    def ensure_home(self) -> None:
        # Health data lives here: owner-only.
        self.home.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.data_dir.mkdir(exist_ok=True, mode=0o700)


def handler_environment(
    *, endpoint: str, table_name: str, extraction_queue_url: str, maintenance_queue_url: str,
    vector_path: Path, env: Mapping[str, str] | None = None,
) -> dict[str, str | None]:
    """The variables the handlers read, as set by ``ltm run`` (None = remove from the environment).

    OPENAI_API_KEY / OPENAI_BASE_URL pass through untouched from the caller's environment.
    """
    env = os.environ if env is None else env
    values: dict[str, str | None] = {
        "AWS_ENDPOINT_URL": endpoint,
        "AWS_DEFAULT_REGION": REGION,
        "AWS_REGION": REGION,
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",  # dummy credentials for the emulator
        "AWS_EC2_METADATA_DISABLED": "true",
        "LTM_TABLE_NAME": table_name,
        "LTM_EXTRACTION_QUEUE_URL": extraction_queue_url,
        "LTM_MAINTENANCE_QUEUE_URL": maintenance_queue_url,
        "LTM_LOCAL_VECTOR_PATH": str(vector_path),
        # Empty endpoint = the local vector index, whatever the caller's shell says.
        "LTM_VECTOR_ENDPOINT": "",
        "POWERTOOLS_TRACE_DISABLED": "1",
        "POWERTOOLS_METRICS_NAMESPACE": "HealthLTM",
        "POWERTOOLS_SERVICE_NAME": "health-ltm",
    }
    for name in _ENV_TO_CLEAR:
        values[name] = None
    for name in env:
        if name.startswith(_ENV_TO_CLEAR_PREFIXES):
            values[name] = None
    return values


def apply_environment(values: Mapping[str, str | None]) -> dict[str, str | None]:
    """Set (or remove) variables in os.environ; returns the previous values for restore_environment."""
    previous = {name: os.environ.get(name) for name in values}
    for name, value in values.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    _clear_settings_cache()
    return previous


def restore_environment(previous: Mapping[str, str | None]) -> None:
    apply_environment(previous)


def _clear_settings_cache() -> None:
    """Settings are cached per process; a later stack in the same process (tests) must not see the first's."""
    import sys

    settings = sys.modules.get("health_ltm.settings")
    cached = getattr(settings, "get_settings", None)
    if cached is not None and hasattr(cached, "cache_clear"):
        cached.cache_clear()


def model_configured(env: Mapping[str, str] | None = None) -> bool:
    env = os.environ if env is None else env
    return bool(env.get("OPENAI_API_KEY") or env.get("OPENAI_BASE_URL"))


def model_banner(env: Mapping[str, str] | None = None) -> str:
    env = os.environ if env is None else env
    if not model_configured(env):
        return "no model configured: offline rule extractor and local embedder; POST /v1/chat answers 503"
    where = env.get("OPENAI_BASE_URL") or "api.openai.com"
    key = "key set" if env.get("OPENAI_API_KEY") else "no key"
    return f"model configured: OpenAI-compatible endpoint {where} ({key})"
