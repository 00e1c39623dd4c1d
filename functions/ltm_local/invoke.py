"""Calling handlers in-process the way Lambda does: loaded lazily, one event at a time per function."""

from __future__ import annotations

import importlib
import logging
import threading
import time
import uuid
from collections.abc import Callable, Mapping

from .config import FUNCTION_TIMEOUTS_S, REGION, STACK_PREFIX

log = logging.getLogger("ltm.invoke")

Handler = Callable[[dict, object], object]


class HandlerUnavailable(RuntimeError):
    """The handler module does not import (yet): nothing was invoked."""


class LambdaContext:
    """The attributes Powertools and handlers read from a real Lambda context."""

    def __init__(self, function: str, timeout_s: float, account_id: str = "123456789012") -> None:
        self.function_name = f"{STACK_PREFIX}-{function}"
        self.function_version = "$LATEST"
        self.invoked_function_arn = f"arn:aws:lambda:{REGION}:{account_id}:function:{self.function_name}"
        self.memory_limit_in_mb = 512
        self.aws_request_id = str(uuid.uuid4())
        self.log_group_name = f"/aws/lambda/{self.function_name}"
        self.log_stream_name = time.strftime("%Y/%m/%d/[$LATEST]") + uuid.uuid4().hex
        self.identity = None
        self.client_context = None
        self.tenant_id = None
        self._deadline = time.monotonic() + timeout_s

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


def load_handler(dotted: str) -> Handler:
    """'package.module.function' -> the function (imports the module on first use)."""
    module_name, _, attribute = dotted.rpartition(".")
    if not module_name:
        raise HandlerUnavailable(f"handler path must be module.function, got {dotted!r}")
    try:
        module = importlib.import_module(module_name)
    except ImportError as err:
        raise HandlerUnavailable(f"cannot import {module_name}: {err}") from err
    handler = getattr(module, attribute, None)
    if not callable(handler):
        raise HandlerUnavailable(f"{module_name} has no callable {attribute!r}")
    return handler


class Invoker:
    """Resolves the api/extract/maintain handlers and serialises the invocations of each.

    Lambda gives every execution environment one event at a time; the handlers keep per-invocation
    state in module globals (the Powertools resolver's current event, the logger's keys), so two
    concurrent requests in one process would otherwise see each other's event.
    """

    def __init__(self, handler_paths: Mapping[str, str], account_id: str = "123456789012") -> None:
        self._paths = dict(handler_paths)
        self._account_id = account_id
        self._handlers: dict[str, Handler] = {}
        self._locks = {function: threading.Lock() for function in self._paths}
        self._resolve_lock = threading.Lock()

    def path(self, function: str) -> str:
        return self._paths[function]

    def resolve(self, function: str) -> Handler:
        handler = self._handlers.get(function)
        if handler is None:
            with self._resolve_lock:
                handler = self._handlers.get(function)
                if handler is None:
                    handler = load_handler(self._paths[function])
                    self._handlers[function] = handler
        return handler

    def invoke(self, function: str, event: dict, context: LambdaContext | None = None) -> object:
        handler = self.resolve(function)
        timeout_s = FUNCTION_TIMEOUTS_S.get(function, 60)
        with self._locks[function]:
            context = context or LambdaContext(function, timeout_s, self._account_id)
            started = time.monotonic()
            outcome = "error"
            try:
                result = handler(event, context)
                outcome = "ok"
                return result
            finally:
                elapsed = time.monotonic() - started
                # ids and timings only: never the event (it carries what the user said); the front
                # already logs each API request
                log.log(logging.DEBUG if function == "api" else logging.INFO,
                        "%s %s %s in %.0f ms", function, context.aws_request_id, outcome, elapsed * 1000)
                if elapsed > timeout_s:
                    log.warning("%s ran %.1f s, longer than its Lambda timeout of %s s",
                                function, elapsed, timeout_s)
