"""The fake server: a stdlib HTTP server on 127.0.0.1 in background threads, answering from a FIFO script.

Each connection gets its own thread (the SDKs open several at once, and a `hang` must not block the others), and
nothing here runs on the test's event loop, so async tests can await SDK calls against it freely. Waiting replies
(`slow`, `hang`) watch the socket while they wait, so a client that gives up is noticed at once: its thread is
freed and the request is marked `disconnected`, which is how cancellation tests prove the HTTP request was aborted.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import select
import socket
import threading
import time
import traceback
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from tests.fake_llm.recorded import Headers, Provider, RecordedRequest
from tests.fake_llm.replies import Reply
from tests.fake_llm.wire import (
    NO_SCRIPT_MESSAGE,
    Rendered,
    json_response,
    render_answer,
    render_error,
    render_models,
    route,
    wants_stream,
)

_POLL = 0.02  # how often a waiting reply checks for a departed client or a stopping server


class FakeLLMServer:
    """Speaks the Anthropic, OpenAI and Gemini HTTP APIs; see the package docstring for how to script it."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.host = host
        self.default: Reply | None = None  # answers any request the script has no reply left for
        self.valid_keys: set[str] | None = None  # when set, other keys get the provider's invalid-key error
        self.known_models: set[str] | None = None  # when set, other models get the provider's not-found error
        self.models: list[str] = ["fake-model"]  # what GET .../models lists when known_models is not set
        self.errors: list[str] = []  # tracebacks of the fake server's own failures (the fixture fails on them)
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._script: collections.deque[Reply] = collections.deque()
        self._requests: list[RecordedRequest] = []
        self._stopping = threading.Event()
        self._httpd: _HTTPServer | None = None
        self._serve_thread: threading.Thread | None = None

    # Life cycle.

    def start(self) -> FakeLLMServer:
        self._httpd = _HTTPServer((self.host, 0), _Handler, self)
        self._serve_thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.01},
                                              name=f"fake-llm:{self.port}", daemon=True)
        self._serve_thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stop serving, release every waiting reply, close every connection, and join the threads."""
        httpd = self._httpd
        if httpd is None:
            return
        self._stopping.set()
        httpd.shutdown()
        httpd.close_connections()  # wakes handler threads blocked reading an idle keep-alive connection
        httpd.server_close()
        deadline = time.monotonic() + timeout
        for thread in httpd.handler_threads():
            thread.join(max(0.0, deadline - time.monotonic()))
            if thread.is_alive():
                self.errors.append(f"handler thread {thread.name} still running {timeout} s after stop()")
        if self._serve_thread is not None:
            self._serve_thread.join(max(0.0, deadline - time.monotonic()))
        self._httpd = None

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("the fake LLM server is not running")
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """Anthropic's and Gemini's SDK base_url (they add /v1/... themselves)."""
        return f"http://{self.host}:{self.port}"

    def base_url_for(self, provider: str) -> str:
        """The base_url to give each SDK: OpenAI's includes /v1, the others' do not."""
        return f"{self.base_url}/v1" if provider == "openai" else self.base_url

    # Scripting.

    def script(self, *replies: Reply) -> None:
        """Queue replies; each generation request takes the next one (model listings do not)."""
        for reply in replies:
            if not isinstance(reply, Reply):
                raise TypeError(f"script() takes Reply objects, not {type(reply).__name__}")
        with self._lock:
            self._script.extend(replies)

    @property
    def remaining(self) -> int:
        """Scripted replies not used yet."""
        with self._lock:
            return len(self._script)

    def reset(self) -> None:
        """Forget the script, the recorded requests and every setting (for a server shared between tests)."""
        with self._lock:
            self._script.clear()
            self._requests.clear()
            self.default = None
            self.valid_keys = None
            self.known_models = None
            self.models = ["fake-model"]
            self.errors.clear()

    # What was received.

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request so far, in arrival order (a snapshot copy)."""
        with self._lock:
            return list(self._requests)

    @property
    def last(self) -> RecordedRequest:
        with self._lock:
            if not self._requests:
                raise AssertionError("the fake LLM server has received no request")
            return self._requests[-1]

    @property
    def disconnects(self) -> int:
        """How many requests the client abandoned before the server answered."""
        with self._lock:
            return sum(1 for r in self._requests if r.disconnected)

    def wait_for_requests(self, n: int, timeout: float = 5.0) -> list[RecordedRequest]:
        """Block until `n` requests have arrived (for sync code and threads; in async tests use await_requests)."""
        return self._wait_until(lambda: len(self._requests) >= n, timeout, f"{n} request(s)")

    def wait_for_disconnects(self, n: int, timeout: float = 5.0) -> list[RecordedRequest]:
        return self._wait_until(lambda: sum(r.disconnected for r in self._requests) >= n, timeout,
                                f"{n} client disconnect(s)")

    async def await_requests(self, n: int, timeout: float = 5.0) -> list[RecordedRequest]:
        """Like wait_for_requests, but yields to the event loop (which is where the SDK clients run)."""
        return await self._await_until(lambda: len(self._requests) >= n, timeout, f"{n} request(s)")

    async def await_disconnects(self, n: int, timeout: float = 5.0) -> list[RecordedRequest]:
        return await self._await_until(lambda: sum(r.disconnected for r in self._requests) >= n, timeout,
                                       f"{n} client disconnect(s)")

    def _wait_until(self, ready: Callable[[], bool], timeout: float, what: str) -> list[RecordedRequest]:
        with self._changed:
            if not self._changed.wait_for(ready, timeout):
                raise TimeoutError(f"fake LLM server: waited {timeout} s for {what}; got {self._summary()}")
            return list(self._requests)

    async def _await_until(self, ready: Callable[[], bool], timeout: float, what: str) -> list[RecordedRequest]:
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                if ready():
                    return list(self._requests)
                if time.monotonic() >= deadline:
                    raise TimeoutError(f"fake LLM server: waited {timeout} s for {what}; got {self._summary()}")
            await asyncio.sleep(0.01)

    def _summary(self) -> str:
        """The requests so far, for timeout messages (call with the lock held)."""
        lines = [f"{r.index}: {r.provider} {r.method} {r.path} model={r.model} -> {r.answered_with}"
                 f"{' (disconnected)' if r.disconnected else ''}" for r in self._requests]
        return f"{len(lines)} request(s)" + "".join(f"\n  {line}" for line in lines)

    # Serving (runs in the handler threads).

    def _serve(self, handler: _Handler) -> None:
        parts = urlsplit(handler.path)
        items = list(handler.headers.items())
        headers = Headers(items)
        body = _read_body(handler, headers)
        try:
            parsed: Any = json.loads(body) if body else None
        except ValueError:
            parsed = None
        where = route(handler.command, parts.path, headers)
        model = where.model_in_path or (parsed.get("model") if isinstance(parsed, dict) else None)
        with self._changed:
            record = RecordedRequest(len(self._requests), where.provider, handler.command, parts.path,
                                     dict(parse_qsl(parts.query)), headers, body, parsed,
                                     model if isinstance(model, str) else None)
            self._requests.append(record)
            self._changed.notify_all()
        reply, label = self._choose(record, where.action)
        record.answered_with = label
        self._execute(handler, record, reply)

    def _choose(self, record: RecordedRequest, action: str) -> tuple[Reply, str]:
        """What to answer: checks that hold for every request first, then the script."""
        if action == "none":
            return Reply.error(404, message=f"fake server: no such endpoint: {record.method} {record.path}"), \
                "no_route"
        if self.valid_keys is not None and record.key() not in self.valid_keys:
            return Reply.error(kind="invalid_key"), "invalid_key"
        if action == "models":
            return Reply.raw(lambda r: render_models(r.provider, sorted(self.known_models or self.models))), \
                "models_list"
        if self.known_models is not None and record.model not in self.known_models:
            return Reply.error(kind="not_found"), "unknown_model"
        if action == "stream" or wants_stream(record.provider, record.json):
            return Reply.error(400, message="fake server: streaming is not supported; call without stream=True"), \
                "stream_refused"
        with self._lock:
            if self._script:
                reply = self._script.popleft()
                return reply, reply.kind
        if self.default is not None:
            return self.default, f"default {self.default.kind}"
        message = f"{NO_SCRIPT_MESSAGE} (request #{record.index}: {record.method} {record.path}, model {record.model})"
        return Reply.error(500, "no_script", message), "no_script"

    def _execute(self, handler: _Handler, record: RecordedRequest, reply: Reply) -> None:
        if reply.kind == "dynamic":
            assert reply.make is not None
            try:
                decided = reply.make(record)
            except Exception:
                self.errors.append(traceback.format_exc())
                decided = Reply.error(500, message="fake server: the Reply.from_request function raised")
            record.answered_with = f"dynamic {decided.kind}"
            self._execute(handler, record, decided)
        elif reply.kind in ("slow", "hang"):
            outcome = self._wait(handler, reply.seconds if reply.kind == "slow" else float("inf"))
            if outcome == "done" and reply.then is not None:
                self._execute(handler, record, reply.then)
                return
            if outcome == "gone":
                with self._changed:
                    record.disconnected = True
                    self._changed.notify_all()
            handler.close_connection = True  # no answer: the client left, or the server is stopping
        elif reply.kind == "drop":
            handler.close_connection = True
        elif reply.kind == "truncated":
            assert reply.then is not None
            rendered = self._render(record, reply.then)
            cut = int(len(rendered.body) * reply.keep)
            self._send(handler, record, Rendered(rendered.status, rendered.headers, rendered.body[:cut]),
                       length=len(rendered.body))
            handler.close_connection = True
        else:
            self._send(handler, record, self._render(record, reply))

    def _render(self, record: RecordedRequest, reply: Reply) -> Rendered:
        provider: Provider = record.provider
        if reply.kind in ("text", "tool_call") and provider != "unknown":
            return render_answer(provider, reply, record.model or "fake-model", record.index)
        if reply.kind == "error":
            version = record.path.split("/")[1] if record.path.count("/") > 1 else "v1beta"
            return render_error(provider, reply, model=record.model, key=record.key(), index=record.index,
                                api_version=version)
        if reply.kind == "malformed":
            body = reply.body.encode() if isinstance(reply.body, str) else bytes(reply.body)
            return Rendered(200, {"content-type": "application/json"}, body)
        if reply.kind == "raw":
            value = reply.body(record) if callable(reply.body) else reply.body
            if isinstance(value, Rendered):
                return value
            if isinstance(value, bytes | str):
                data = value.encode() if isinstance(value, str) else value
                return Rendered(reply.status or 200, {"content-type": "application/json", **reply.headers}, data)
            return json_response(reply.status or 200, value, reply.headers)
        raise ValueError(f"fake server: cannot render a {reply.kind!r} reply here ({record.provider} request)")

    def _send(self, handler: _Handler, record: RecordedRequest, rendered: Rendered, length: int | None = None) -> None:
        try:
            handler.send_response(rendered.status)
            for name, value in rendered.headers.items():
                handler.send_header(name, value)
            handler.send_header("content-length", str(len(rendered.body) if length is None else length))
            handler.end_headers()
            handler.wfile.write(rendered.body)
            handler.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            with self._changed:
                record.disconnected = True
                self._changed.notify_all()
            handler.close_connection = True

    def _wait(self, handler: _Handler, seconds: float) -> str:
        """Sleep up to `seconds`: "done", or "gone" as soon as the client closes, or "stopping" with the server."""
        sock = handler.connection
        deadline = time.monotonic() + seconds
        while not self._stopping.is_set():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return "done"
            try:
                readable, _, _ = select.select([sock], [], [], min(remaining, _POLL))
                # A readable socket with nothing to read is a closed one (the client's FIN or RST)...
                if readable and not sock.recv(1, socket.MSG_PEEK):
                    return "stopping" if self._stopping.is_set() else "gone"  # ...or one stop() shut down
            except (OSError, ValueError):
                return "stopping" if self._stopping.is_set() else "gone"
            if readable:  # bytes from the client mid-request (nothing sends those); avoid spinning on them
                self._stopping.wait(min(remaining, _POLL))
        return "stopping"


def _read_body(handler: BaseHTTPRequestHandler, headers: Headers) -> bytes:
    if headers.get("transfer-encoding", "").lower() == "chunked":
        chunks = []
        while True:
            size = int(handler.rfile.readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                handler.rfile.readline()  # the blank line after the last chunk (no trailers are sent by SDKs)
                return b"".join(chunks)
            chunks.append(handler.rfile.read(size))
            handler.rfile.readline()
    length = int(headers.get("content-length") or 0)
    return handler.rfile.read(length) if length else b""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the SDKs' connection pools expect
    # Buffered, so headers and body leave in one write on flush(): two small writes meet Nagle's algorithm and the
    # client's delayed ACK, which costs 40 ms per response.
    wbufsize = -1
    server: _HTTPServer

    def _dispatch(self) -> None:
        self.server.owner._serve(self)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _dispatch

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the recorded requests say more, and test output stays clean


class _HTTPServer(ThreadingHTTPServer):
    """Keeps track of its connections and threads, so stop() can close the first and join the second."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], handler: type[_Handler], owner: FakeLLMServer) -> None:
        self.owner = owner
        self._track_lock = threading.Lock()
        self._sockets: set[socket.socket] = set()
        self._conn_threads: list[threading.Thread] = []  # ThreadingMixIn's `_threads` stays unused
        super().__init__(address, handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        thread = threading.Thread(target=self.process_request_thread, args=(request, client_address),
                                  name=f"fake-llm-conn:{client_address[1]}", daemon=True)
        with contextlib.suppress(OSError):
            request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # see _Handler.wbufsize
        with self._track_lock:
            self._sockets.add(request)
            self._conn_threads = [t for t in self._conn_threads if t.is_alive()]
            self._conn_threads.append(thread)
        thread.start()

    def shutdown_request(self, request: Any) -> None:
        with self._track_lock:
            self._sockets.discard(request)
        super().shutdown_request(request)

    def close_connections(self) -> None:
        with self._track_lock:
            sockets = list(self._sockets)
        for sock in sockets:
            with contextlib.suppress(OSError):  # already closed by the other side
                sock.shutdown(socket.SHUT_RDWR)

    def handler_threads(self) -> Iterable[threading.Thread]:
        with self._track_lock:
            return list(self._conn_threads)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that vanished mid-request is normal here (cancellation tests); anything else is a fake bug.
        error = traceback.format_exc()
        if not any(name in error for name in ("ConnectionResetError", "BrokenPipeError", "ConnectionAbortedError")):
            self.owner.errors.append(error)
