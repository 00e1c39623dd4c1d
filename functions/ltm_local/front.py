"""API Gateway stand-in: HTTP on 127.0.0.1 -> REST proxy events -> the api handler, in-process.

What it does like API Gateway (REST API, Cognito user-pool authorizer on ``/v1/{proxy+}``):

* ``Authorization: Bearer <jwt>`` (or the raw token) is required on every route except
  GET /v1/health, /v1/docs*, /v1/openapi.json and CORS preflights (OPTIONS); a missing, unsigned,
  expired or wrongly signed token gets 401 {"message": "Unauthorized"} and the handler is not called;
* the token's claims reach the handler as ``requestContext.authorizer.claims`` (strings);
* routes under /v1/internal/ are IAM-authorised in AWS (SigV4): locally they answer
  403 {"message": "Missing Authentication Token"} unless the request carries ``X-Ltm-Internal: 1``,
  and then reach the handler without claims;
* paths outside /v1 answer 403 {"message": "Missing Authentication Token"} (no such resource);
* bodies over 10 MB answer 413; a handler error or a malformed response answers 502
  {"message": "Internal server error"}.

Local-only control routes under /_ltm/ (not part of the API) need the control token from
``.ltm/stack.json``: POST /_ltm/tick {"dry_run": bool} runs the maintain handler in this process.
"""

from __future__ import annotations

import base64
import hmac
import json
import logging
import threading
import time
import uuid
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, unquote, urlsplit

from .auth import DevSigner, apigw_claims
from .events import api_gateway_event
from .invoke import Invoker

log = logging.getLogger("ltm.front")

PUBLIC_GET_PATHS = frozenset({"/v1/health", "/v1/openapi.json", "/v1/docs", "/v1/docs.json"})
INTERNAL_PREFIX = "/v1/internal"
LOCAL_INTERNAL_CALLER = "arn:aws:sts::123456789012:assumed-role/local-internal-caller/local"
CONTROL_PREFIX = "/_ltm/"
_NO_SUCH_ROUTE = "MissingAuthenticationTokenException"
_HOP_BY_HOP = frozenset({"connection", "content-length", "transfer-encoding", "keep-alive"})


class PayloadTooLarge(Exception):
    pass


def is_public(method: str, path: str) -> bool:
    if method == "OPTIONS":  # CORS preflights carry no Authorization header
        return True
    return method in ("GET", "HEAD") and (path in PUBLIC_GET_PATHS or path.startswith("/v1/docs/"))


def is_internal(path: str) -> bool:
    return path == INTERNAL_PREFIX or path.startswith(INTERNAL_PREFIX + "/")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    # socketserver's default backlog of 5 resets most of a burst of parallel connections.
    request_queue_size = 256

    front: Front


class _RequestHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes: with Nagle on, the second waits for the client's
    # delayed ACK, about 40 ms per keep-alive request.
    disable_nagle_algorithm = True
    server: _Server

    def do_GET(self) -> None:
        self._handle()

    do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = do_HEAD = do_GET

    def __getattr__(self, name: str):
        # Any other method (TRACE, CONNECT, made-up ones): a 4xx like API Gateway's, never
        # http.server's 501 (a 5xx for the caller's mistake).
        if name.startswith("do_"):
            return self._unsupported_method
        raise AttributeError(name)

    def _unsupported_method(self) -> None:
        self.close_connection = True  # the body, if any, is not read
        request_id = str(uuid.uuid4())
        self._send(405, {"Allow": ["DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT"]},
                   json.dumps({"message": "Method Not Allowed"}).encode(), request_id)
        log.info("%s %s 405", self.command, urlsplit(self.path).path)

    def log_message(self, format: str, *args) -> None:  # stdlib signature
        pass  # requests are logged by _handle: method, path without query, status, time

    # --- plumbing ---

    def _read_body(self, limit: int) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            chunks, total = [], 0
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    return b"".join(chunks)
                total += size
                if total > limit:
                    raise PayloadTooLarge
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        if length > limit:
            raise PayloadTooLarge
        return self.rfile.read(length) if length > 0 else b""

    def _send(self, status: int, headers: dict[str, list[str]], body: bytes, request_id: str) -> None:
        self.send_response(status)
        if not any(name.lower() == "content-type" for name in headers):
            headers["Content-Type"] = ["application/json"]
        for name, values in headers.items():
            if name.lower() in _HOP_BY_HOP:
                continue
            for value in values:
                self.send_header(name, value)
        self.send_header("x-amzn-RequestId", request_id)
        self.send_header("Content-Length", str(len(body)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _send_message(self, status: int, message: str, request_id: str, error_type: str = "") -> None:
        headers = {"x-amzn-ErrorType": [error_type]} if error_type else {}
        self._send(status, headers, json.dumps({"message": message}).encode(), request_id)

    # --- the request ---

    def _handle(self) -> None:
        front = self.server.front
        started = time.monotonic()
        request_id = str(uuid.uuid4())
        split = urlsplit(self.path)
        path = unquote(split.path) or "/"
        method = self.command
        status = 500
        disconnected = False
        front.enter()
        try:
            try:
                body = self._read_body(front.max_body_bytes)
            except PayloadTooLarge:
                self.close_connection = True  # the body was not read
                status = 413
                self._send_message(413, "Request Too Long", request_id)
                return
            except ValueError:
                self.close_connection = True
                status = 400
                self._send_message(400, "Bad Request", request_id)
                return
            if path.startswith(CONTROL_PREFIX):
                status = self._control(path, body, request_id)
            else:
                status = self._api(method, path, split.query, body, request_id)
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, TimeoutError):
            # The client went away (or stalled mid-body): not a server error, and nothing to answer.
            self.close_connection = True
            disconnected = True
        finally:
            front.leave()
            # path only: the query string may carry what the user typed
            if disconnected:
                log.info("%s %s client disconnected (status %s not delivered) %.0f ms", method, path,
                         status, (time.monotonic() - started) * 1000)
            else:
                log.info("%s %s %s %.0f ms", method, path, status, (time.monotonic() - started) * 1000)

    def _api(self, method: str, path: str, query: str, body: bytes, request_id: str) -> int:
        front = self.server.front
        if not (path == "/v1" or path.startswith("/v1/")):
            self._send_message(403, "Missing Authentication Token", request_id, _NO_SUCH_ROUTE)
            return 403
        claims: dict[str, str] | None = None
        if is_internal(path):
            if self.headers.get("X-Ltm-Internal", "").strip() != "1":
                self._send_message(403, "Missing Authentication Token", request_id, _NO_SUCH_ROUTE)
                return 403
        elif not is_public(method, path):
            verified = front.signer.verify(self.headers.get("Authorization"))
            if verified is None:
                self._send_message(401, "Unauthorized", request_id, "UnauthorizedException")
                return 401
            claims = apigw_claims(verified)

        host = self.headers.get("Host") or f"127.0.0.1:{front.port}"
        event = api_gateway_event(
            method=method,
            path=path,
            headers=list(self.headers.items()),
            query=parse_qsl(query, keep_blank_values=True),
            body=body,
            source_ip=self.client_address[0],
            claims=claims,
            host=host,
            account_id=front.account_id,
        )
        event["requestContext"]["requestId"] = request_id
        if is_internal(path):
            # As API Gateway delivers an IAM-authorised route: its own resource, a SigV4 caller.
            event["resource"] = event["requestContext"]["resourcePath"] = path
            event["pathParameters"] = None
            event["requestContext"]["identity"]["userArn"] = LOCAL_INTERNAL_CALLER
            event["requestContext"]["identity"]["caller"] = "AROALOCALINTERNAL:local"
        try:
            result = front.invoker.invoke("api", event)
            status, headers, payload = _integration_response(result)
        except Exception as err:  # API Gateway answers 502 to a failed integration
            log.warning("api handler failed: %s (request %s)", err.__class__.__name__, request_id)
            if front.debug:
                log.exception("api handler traceback")
            self._send_message(502, "Internal server error", request_id)
            return 502
        self._send(status, headers, payload, request_id)
        return status

    def _control(self, path: str, body: bytes, request_id: str) -> int:
        front = self.server.front
        token = self.headers.get("X-Ltm-Control", "")
        if not front.control_token or not hmac.compare_digest(token, front.control_token):
            self._send_message(403, "Forbidden", request_id)
            return 403
        route = path[len(CONTROL_PREFIX):]
        handler = front.control_routes.get((self.command, route))
        if handler is None:
            self._send_message(404, "Not Found", request_id)
            return 404
        try:
            payload = json.loads(body or b"{}")
            result = handler(payload)
        except Exception as err:
            self._send(500, {}, json.dumps({"errorType": err.__class__.__name__,
                                            "errorMessage": str(err)}).encode(), request_id)
            return 500
        self._send(200, {}, json.dumps(result, default=str).encode(), request_id)
        return 200


def _integration_response(result: object) -> tuple[int, dict[str, list[str]], bytes]:
    """A proxy integration response -> (status, headers, body); ValueError when malformed (502)."""
    if not isinstance(result, dict) or "statusCode" not in result:
        raise ValueError("malformed Lambda proxy response")
    status = int(result["statusCode"])
    headers: dict[str, list[str]] = {}
    # multiValueHeaders win over headers for the same name, as in API Gateway.
    for name, values in (result.get("multiValueHeaders") or {}).items():
        headers[name] = [str(value) for value in values]
    lowered = {name.lower() for name in headers}
    for name, value in (result.get("headers") or {}).items():
        if name.lower() not in lowered:
            headers[name] = [str(value)]
    body = result.get("body")
    if body is None:
        payload = b""
    elif not isinstance(body, str):
        raise ValueError("proxy response body must be a string")
    elif result.get("isBase64Encoded"):
        payload = base64.b64decode(body)
    else:
        payload = body.encode("utf-8")
    return status, headers, payload


class Front:
    def __init__(
        self,
        *,
        port: int,
        signer: DevSigner,
        invoker: Invoker,
        account_id: str,
        max_body_bytes: int,
        control_token: str = "",
        control_routes: dict[tuple[str, str], Callable[[dict], object]] | None = None,
        debug: bool = False,
    ) -> None:
        self.signer = signer
        self.invoker = invoker
        self.account_id = account_id
        self.max_body_bytes = max_body_bytes
        self.control_token = control_token
        self.control_routes = control_routes or {}
        self.debug = debug
        self._requested_port = port
        self.port = 0
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._active = 0
        self._idle = threading.Condition()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def enter(self) -> None:
        with self._idle:
            self._active += 1

    def leave(self) -> None:
        with self._idle:
            self._active -= 1
            self._idle.notify_all()

    def start(self) -> str:
        try:
            server = _Server(("127.0.0.1", self._requested_port), _RequestHandler)
        except OSError as err:
            raise OSError(err.errno, f"API port {self._requested_port}: {err.strerror}") from err
        server.front = self
        self._server = server
        self.port = server.server_address[1]
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.2}, name="ltm-front", daemon=True
        )
        self._thread.start()
        return self.url

    def stop(self, drain_s: float = 5.0) -> None:
        if self._server is None:
            return
        self._server.shutdown()
        self._server.server_close()
        # Let requests already in a handler finish before the data is snapshotted.
        with self._idle:
            self._idle.wait_for(lambda: self._active == 0, timeout=drain_s)
        if self._thread is not None:
            self._thread.join(timeout=2)
        self._server = None
