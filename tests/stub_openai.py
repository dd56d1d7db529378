"""A scripted OpenAI-compatible stub server for tests of the `openai` backend and worker: it
answers `POST .../chat/completions` from a per-test queue and records every request it got.

Standard library only (`http.server` on 127.0.0.1, a free port, a daemon thread). Each queued
`StubReply` is one HTTP answer: a chat completion whose content is given (JSON or raw text), a bare
HTTP status, a raw non-JSON body, an optional delay (to provoke client timeouts), or a dropped
connection. An empty queue answers 599 "no scripted reply", so a test that over-calls fails loudly.

The request a run sends before it starts (its preflight, marked by the `X-Groundbench-Preflight`
header) is answered by `stub.preflight` and recorded in `stub.preflights`, apart from the queue and
from `stub.requests`; `stub.preflight = None` answers it like any other request.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self

PREFLIGHT_HEADER = "X-Groundbench-Preflight"  # agents.openai_client.PREFLIGHT_HEADER


@dataclass
class StubReply:
    content: str | None = None  # the assistant message content of a 200 chat completion
    status: int = 200
    body: bytes | None = None  # a raw body instead of a chat completion (any status)
    delay_s: float = 0.0
    tokens_in: int = 11
    tokens_out: int = 7
    headers: dict[str, str] = field(default_factory=dict)
    drop: bool = False  # close the connection without answering

    @classmethod
    def json(cls, obj: Any, **kw: Any) -> StubReply:
        return cls(content=json.dumps(obj), **kw)

    @classmethod
    def text(cls, text: str, **kw: Any) -> StubReply:
        return cls(content=text, **kw)

    @classmethod
    def error(cls, status: int, message: str = "stub error", **kw: Any) -> StubReply:
        body = json.dumps({"error": {"message": message, "type": "server_error"}}).encode()
        return cls(status=status, body=body, **kw)


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    t: float = field(default_factory=time.monotonic)  # when it arrived

    @property
    def json(self) -> Any:
        return json.loads(self.body)

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.json["messages"]

    def texts(self) -> list[str]:
        """Every text in the messages (string contents and text parts), in order."""
        out: list[str] = []
        for m in self.messages:
            c = m.get("content")
            if isinstance(c, str):
                out.append(c)
            elif isinstance(c, list):
                out.extend(p["text"] for p in c if p.get("type") == "text")
        return out

    def image_urls(self) -> list[str]:
        return [p["image_url"]["url"] for m in self.messages if isinstance(m.get("content"), list)
                for p in m["content"] if p.get("type") == "image_url"]


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        stub = self.server.stub
        request = RecordedRequest("POST", self.path, dict(self.headers.items()), body)
        if stub.preflight is not None and self.headers.get(PREFLIGHT_HEADER):  # any case
            with stub._lock:
                stub.preflights.append(request)
            reply = stub.preflight
        else:
            stub._record(request)
            reply = stub._next(request)
        if reply.delay_s and stub._stopping.wait(reply.delay_s):
            return
        try:
            if reply.drop:
                self.close_connection = True
                return
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send(404, b'{"error": {"message": "not found"}}', {})
                return
            if reply.body is not None:
                self._send(reply.status, reply.body, reply.headers)
                return
            payload = {
                "id": f"chatcmpl-stub-{len(stub.requests)}",
                "object": "chat.completion",
                "model": json.loads(body or b"{}").get("model", "stub"),
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": reply.content}}],
                "usage": {"prompt_tokens": reply.tokens_in, "completion_tokens": reply.tokens_out,
                          "total_tokens": reply.tokens_in + reply.tokens_out},
            }
            self._send(reply.status, json.dumps(payload).encode(), reply.headers)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout): nothing to answer

    def _send(self, status: int, body: bytes, headers: dict[str, str]) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    stub: StubOpenAI


class StubOpenAI:
    """`with StubOpenAI() as stub: stub.queue(StubReply.json({...}))`; `stub.base_url` ends in /v1."""

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self.preflights: list[RecordedRequest] = []
        # The answer to a run's preflight request (None: it takes its turn in the queue).
        self.preflight: StubReply | None = StubReply.json({"ok": True})
        self._replies: deque[StubReply] = deque()
        # Answers requests once the queue is empty (a fake model for end-to-end runs).
        self.responder: Callable[[RecordedRequest], StubReply] | None = None
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        assert self._server is not None, "stub not started"
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def queue(self, *replies: StubReply) -> None:
        with self._lock:
            self._replies.extend(replies)

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._replies)

    def _next(self, request: RecordedRequest) -> StubReply:
        with self._lock:
            if self._replies:
                return self._replies.popleft()
        if self.responder is not None:
            return self.responder(request)
        return StubReply.error(599, "stub: no scripted reply left")

    def _record(self, req: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(req)

    def start(self) -> Self:
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.stub = self
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.05}, daemon=True,
                                        name="stub-openai")
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes delayed handlers at once
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()
