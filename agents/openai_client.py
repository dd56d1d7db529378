"""Minimal client for any OpenAI-compatible chat endpoint (vLLM, Ollama, a hosted API), shared by
the `openai` vision backend and the `openai` worker: bounded retries, typed errors, token counts.

Standard library only: `urllib.request` run in a worker thread (`asyncio.to_thread`). The API key
is read from the environment variable *named* in the config at call time and is sent only in the
`Authorization` header; it is never stored in the config, logged, or put in an error message.
A cancelled call stops waiting at once, but its thread finishes (at most `timeout_s`) on its own.
"""

from __future__ import annotations

import asyncio
import base64
import http.client
import json
import os
import re
import struct
import time
import urllib.error
import urllib.request
import zlib
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from tasks.trace import Cost

ErrorKind = Literal["http_error", "timeout", "connection", "bad_response"]
Message = dict[str, Any]

_RETRY_STATUS = frozenset({408, 425, 429})  # plus every 5xx
_MAX_DETAIL = 300

# The preflight request (`OpenAIClient.preflight`) carries this header, so a test server can
# answer it apart from the replies it has queued for the run.
PREFLIGHT_HEADER = "X-Groundbench-Preflight"
PREFLIGHT_PROMPT = ('groundbench checks that this endpoint answers before a run. Reply with the '
                    'JSON object {"ok": true} and nothing else.')


class OpenAIClientConfig(BaseModel):
    """Where the model lives and how patiently to call it. `api_key_env` is the NAME of the
    environment variable that holds the key (unset or empty: no Authorization header is sent,
    which suits a local vLLM/Ollama server)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    base_url: str = "http://127.0.0.1:8000/v1"
    model: str = "gpt-4o-mini"
    api_key_env: str = Field("OPENAI_API_KEY", pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    timeout_s: float = Field(60.0, gt=0, description="per attempt: connect + full response")
    max_retries: int = Field(2, ge=0, description="extra attempts after the first, transient errors only")
    backoff_s: float = Field(1.0, ge=0, description="wait before retry n is backoff_s * 2**(n-1)")
    backoff_max_s: float = Field(30.0, ge=0, description="cap on one wait (also on Retry-After)")
    temperature: float = Field(0.0, ge=0, le=2)
    max_tokens: int = Field(1024, ge=1)
    json_mode: bool = Field(False, description='send response_format={"type": "json_object"}')


class ChatResult(BaseModel):
    content: str
    cost: Cost = Cost()  # latency: wall time of the whole call, retries and backoff included
    attempts: int = 1
    model: str = ""
    finish_reason: str = ""


class ModelCallError(Exception):
    """A call that failed for good (after retries, where retrying made sense). `kind` is short and
    stable (http_error, timeout, connection, bad_response); the message never holds the key."""

    def __init__(self, kind: ErrorKind, message: str, *, status: int | None = None,
                 attempts: int = 1, latency_ms: float = 0.0) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind: ErrorKind = kind
        self.message = message
        self.status = status
        self.attempts = attempts
        self.latency_ms = latency_ms


class _Attempt(Exception):
    """One failed attempt, internal: whether it is worth another try, and an optional wait hint."""

    def __init__(self, kind: ErrorKind, message: str, *, retry: bool, status: int | None = None,
                 retry_after: float | None = None) -> None:
        super().__init__(message)
        self.kind: ErrorKind = kind
        self.message = message
        self.retry = retry
        self.status = status
        self.retry_after = retry_after


def text_part(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def image_part(png: bytes, detail: str | None = None) -> dict[str, Any]:
    """A PNG as an OpenAI `image_url` content part (a base64 data URL)."""
    url: dict[str, Any] = {"url": "data:image/png;base64," + base64.b64encode(png).decode("ascii")}
    if detail:
        url["detail"] = detail
    return {"type": "image_url", "image_url": url}


def _redact(text: str, secret: str) -> str:
    return text.replace(secret, "***") if secret else text


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MAX_DETAIL else text[: _MAX_DETAIL - 3] + "..."


def _retry_after(value: str | None) -> float | None:
    try:
        return max(float(value), 0.0) if value else None
    except ValueError:
        return None  # an HTTP date: ignore, use our own backoff


def _content_text(content: Any) -> str:
    """`message.content` is a string, or (some servers) a list of text parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    raise ValueError(f"message.content is {type(content).__name__}")


def _count(value: Any) -> int:
    try:
        return max(int(value or 0), 0)
    except (TypeError, ValueError):
        return 0


_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n?(.*?)```", re.DOTALL)
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)


def extract_json(text: str) -> Any:
    """The JSON value in a model's reply: tolerant of ```json fences, <think> blocks and prose
    around one object or array. Raises ValueError when there is none."""
    text = _THINK.sub("", text).strip()
    fenced = _FENCE.search(text)
    if fenced:
        text = fenced.group(1).strip()
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    decoder = json.JSONDecoder()
    for i, ch in enumerate(text):
        if ch in "{[":
            try:
                return decoder.raw_decode(text, i)[0]
            except json.JSONDecodeError:
                continue
    raise ValueError(f"no JSON in the reply: {_short(text)!r}" if text else "empty reply")


class OpenAIClient:
    """`await client.chat(messages)` posts to `{base_url}/chat/completions` and returns the text."""

    def __init__(self, config: OpenAIClientConfig) -> None:
        self.config = config

    @property
    def url(self) -> str:
        return self.config.base_url.rstrip("/") + "/chat/completions"

    def _key(self) -> str:
        return os.environ.get(self.config.api_key_env, "").strip()

    def _post(self, body: bytes, key: str, extra: dict[str, str]) -> tuple[dict[str, Any], int]:
        """One blocking attempt; runs in a thread. Raises _Attempt on any failure."""
        headers = {"Content-Type": "application/json", "Accept": "application/json", **extra}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        req = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=self.config.timeout_s) as resp:
                status = resp.status
                raw = resp.read()
        except urllib.error.HTTPError as e:
            try:
                detail = e.read().decode("utf-8", "replace")
            except Exception:  # noqa: BLE001 - the body of an error is best effort
                detail = ""
            finally:
                e.close()
            retry = e.code >= 500 or e.code in _RETRY_STATUS
            msg = f"HTTP {e.code} from {self.url}" + (f": {_short(_redact(detail, key))}" if detail else "")
            raise _Attempt("http_error", msg, retry=retry, status=e.code,
                           retry_after=_retry_after(e.headers.get("Retry-After") if e.headers else None)) from None
        except urllib.error.URLError as e:
            if isinstance(e.reason, TimeoutError):
                raise _Attempt("timeout", f"no answer from {self.url} within {self.config.timeout_s}s",
                               retry=True) from None
            raise _Attempt("connection", f"cannot reach {self.url}: {_short(_redact(str(e.reason), key))}",
                           retry=True) from None
        except TimeoutError:
            raise _Attempt("timeout", f"no answer from {self.url} within {self.config.timeout_s}s",
                           retry=True) from None
        except (ConnectionError, http.client.HTTPException, OSError) as e:
            raise _Attempt("connection", f"connection to {self.url} failed: {type(e).__name__}: "
                           f"{_short(_redact(str(e), key))}", retry=True) from None
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise _Attempt("bad_response", f"HTTP {status} with a non-JSON body: "
                           f"{_short(_redact(raw.decode('utf-8', 'replace'), key))!r}", retry=False) from None
        if not isinstance(data, dict):
            raise _Attempt("bad_response", "response body is not a JSON object", retry=False)
        return data, status

    async def chat(self, messages: list[Message], *, model: str | None = None,
                   max_tokens: int | None = None, headers: dict[str, str] | None = None) -> ChatResult:
        """Send one chat completion; retry transient failures (5xx, 429, timeouts, connection
        errors) with exponential backoff; raise ModelCallError once they run out."""
        cfg = self.config
        payload: dict[str, Any] = {
            "model": model or cfg.model,
            "messages": messages,
            "temperature": cfg.temperature,
            "max_tokens": max_tokens or cfg.max_tokens,
        }
        if cfg.json_mode:
            payload["response_format"] = {"type": "json_object"}
        body = json.dumps(payload).encode("utf-8")
        key = self._key()
        t0 = time.perf_counter()
        attempt = 0
        while True:
            attempt += 1
            try:
                data, _ = await asyncio.to_thread(self._post, body, key, headers or {})
                break
            except _Attempt as e:
                failure = e
            latency = round((time.perf_counter() - t0) * 1000, 2)
            if not failure.retry or attempt > cfg.max_retries:
                tail = f" (after {attempt} attempts)" if attempt > 1 else ""
                raise ModelCallError(failure.kind, failure.message + tail, status=failure.status,
                                     attempts=attempt, latency_ms=latency)
            wait = cfg.backoff_s * 2 ** (attempt - 1)
            if failure.retry_after is not None:
                wait = max(wait, failure.retry_after)
            await asyncio.sleep(min(wait, cfg.backoff_max_s))
        latency = round((time.perf_counter() - t0) * 1000, 2)
        try:
            choice = data["choices"][0]
            # A server that echoes the key into the reply must not get it into traces via errors.
            content = _redact(_content_text(choice["message"].get("content") or ""), key)
        except (KeyError, IndexError, TypeError, AttributeError, ValueError) as e:
            raise ModelCallError("bad_response", f"no choices[0].message.content in the response "
                                 f"({type(e).__name__}: {_short(_redact(str(e), key))})",
                                 attempts=attempt, latency_ms=latency) from None
        usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
        return ChatResult(
            content=content,
            cost=Cost(latency_ms=latency, tokens_in=_count(usage.get("prompt_tokens")),
                      tokens_out=_count(usage.get("completion_tokens"))),
            attempts=attempt,
            model=str(data.get("model") or payload["model"]),
            finish_reason=str(choice.get("finish_reason") or ""),
        )

    async def preflight(self, model: str | None = None, max_tokens: int | None = None) -> ChatResult:
        """One small request before a run (a line of text and a 32x32 image, as every real call
        sends an image), with the run's retries: the endpoint must answer a chat completion whose
        content holds JSON. Raises ModelCallError (`bad_response` for a reply without JSON)."""
        messages = [{"role": "user", "content": [text_part(PREFLIGHT_PROMPT),
                                                 image_part(blank_png(32, 32))]}]
        reply = await self.chat(messages, model=model, max_tokens=max_tokens,
                                headers={PREFLIGHT_HEADER: "1"})
        try:
            extract_json(reply.content)
        except ValueError as e:
            raise ModelCallError("bad_response", f"the reply to the preflight request holds no JSON "
                                 f"({e})", attempts=reply.attempts,
                                 latency_ms=reply.cost.latency_ms) from None
        return reply


def blank_png(width: int, height: int) -> bytes:
    """A white RGB PNG (standard library only)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(
            ">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(b"\x00" + b"\xff" * 3 * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows))
            + chunk(b"IEND", b""))


def json_error(content: str) -> str:
    """"" when a reply holds JSON (whatever it says), else "bad_json: why": a reply without any
    is garbage from the endpoint, not a model's judgement."""
    try:
        extract_json(content)
    except ValueError as e:
        return f"bad_json: {_short(str(e))}"
    return ""


class CallBreaker:
    """Counts failed model calls in a row across every episode of a run; at `limit` (0: never)
    it opens and calls `on_open` once, which is how the runner stops the run. A call failed when
    it raised ModelCallError (retries included) or its reply held no JSON; a reply in JSON that
    is still unusable (boxes out of range, an action without its value) is the model's answer,
    measured like any other."""

    def __init__(self, limit: int, on_open: Callable[[], None] | None = None) -> None:
        self.limit = limit
        self.on_open = on_open
        self.in_row = 0
        self.first_error = ""  # the first failure of the current run of failures
        self.last_error = ""
        self.is_open = False

    def record(self, error: str) -> None:
        """One finished call: `error` is "" when the model answered usably."""
        if self.is_open:
            return
        if not error:
            self.in_row, self.first_error = 0, ""
            return
        self.in_row += 1
        self.first_error = self.first_error or error
        self.last_error = error
        if self.limit and self.in_row >= self.limit:
            self.is_open = True
            if self.on_open is not None:
                self.on_open()

    @property
    def cause(self) -> str:
        if self.first_error == self.last_error:
            return f"{self.in_row} model calls in a row failed (first and last: {self.first_error})"
        return (f"{self.in_row} model calls in a row failed (first: {self.first_error}; last: "
                f"{self.last_error})")


# The run's breaker, set by the runner; every episode task inherits it (None: no run, no breaker).
MODEL_CALLS: ContextVar[CallBreaker | None] = ContextVar("groundbench_model_calls", default=None)


def record_model_call(error: str) -> None:
    """Tell the run's breaker how a model call ended ("": usable)."""
    breaker = MODEL_CALLS.get()
    if breaker is not None:
        breaker.record(error)
