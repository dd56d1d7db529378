"""Loopback fixture server: serves every site folder on three origins and keeps per-episode state.

Pages write their state with POST /_gb/state (keyed by the episode cookie the harness sets on each
browser context); only the harness, holding the server's token, can read it back.
"""

from __future__ import annotations

import json
import mimetypes
import secrets
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Self
from urllib.parse import SplitResult, parse_qs, unquote, urlsplit

from tasks.state_paths import get_path, set_path

SITES_ROOT = Path(__file__).resolve().parent
GB_JS = SITES_ROOT / "_gb" / "gb.js"
EPISODE_COOKIE = "gb_episode"
SEED_COOKIE = "gb_seed"
ORIGIN_NAMES = ("main", "alt", "offsite")
SHUTDOWN_POLL_S = 0.05  # how often a server thread checks for shutdown
MAX_BODY = 1 << 20
FAULTS = ("500", "stall")
# Request-log status of a request the server held open without answering (a "stall" fault).
STALLED = 0


@dataclass
class EpisodeStore:
    """Server-side state of every episode; thread-safe because handlers run on threads."""

    _states: dict[str, dict[str, Any]] = field(default_factory=lambda: defaultdict(dict))
    _requests: dict[str, list[dict[str, Any]]] = field(default_factory=lambda: defaultdict(list))
    _faulted: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def apply(self, episode: str, body: dict[str, Any]) -> None:
        with self._lock:
            state = self._states[episode]
            for key, value in (body.get("set") or {}).items():
                set_path(state, key, value)
            for key, item in (body.get("push") or {}).items():
                current = get_path(state, key)
                if not isinstance(current, list):
                    current = []
                    set_path(state, key, current)
                current.append(item)
            for key, amount in (body.get("incr") or {}).items():
                set_path(state, key, (get_path(state, key) or 0) + amount)

    def state(self, episode: str) -> dict[str, Any]:
        with self._lock:
            return json.loads(json.dumps(self._states.get(episode, {})))

    def log_request(self, episode: str, origin: str, path: str) -> dict[str, Any]:
        """Logs a request as it arrives; its `status` is filled in as the answer is sent."""
        entry = {"origin": origin, "path": path, "t": time.time(), "status": None}
        with self._lock:
            self._requests[episode].append(entry)
        return entry

    def set_status(self, entry: dict[str, Any], status: int) -> None:
        with self._lock:
            entry["status"] = status

    def requests(self, episode: str) -> list[dict[str, Any]]:
        with self._lock:
            return [dict(r) for r in self._requests.get(episode, [])]

    def claim_fault(self, episode: str, path: str) -> bool:
        """True the first time an episode requests `path`: a fault fires once per episode."""
        with self._lock:
            first = path not in self._faulted[episode]
            self._faulted[episode].add(path)
            return first

    def drop(self, episode: str) -> None:
        with self._lock:
            self._states.pop(episode, None)
            self._requests.pop(episode, None)
            self._faulted.pop(episode, None)


def server_errors(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Logged requests the server answered with a 5xx or held open unanswered."""
    return [r for r in requests if r["status"] == STALLED or (r["status"] or 0) >= 500]


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A browser that closes a kept-alive connection (a context closing, the headless shell
        # exiting) is not an error of the fixture; anything else is printed as usual.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class FixtureServer:
    """Three loopback HTTP servers (origins main, alt, offsite) over the same site folders."""

    def __init__(self, extra_dirs: Iterable[str | Path] = (), host: str = "127.0.0.1",
                 faults: Mapping[str, str] | None = None,
                 mounts: dict[str, Path] | None = None) -> None:
        """`faults` is a test-only hook, off by default and out of reach of config and pages:
        {URL path: "500" | "stall"} answers the first GET of that path in each episode with
        HTTP 500, or holds it open unanswered until the server stops.

        `mounts` serves other folders under a name, e.g. {"miniwob": <package html>} serves
        its files at /miniwob/..."""
        if host not in ("127.0.0.1", "localhost", "::1"):
            raise ValueError(f"fixture server binds loopback only, not {host!r}")
        bad = {path: kind for path, kind in (faults or {}).items() if kind not in FAULTS}
        if bad:
            raise ValueError(f"unknown faults {bad}; a fault is one of {FAULTS}")
        self.host = host
        self.faults = dict(faults or {})
        self._release = threading.Event()
        self.token = secrets.token_hex(16)
        self.store = EpisodeStore()
        self.site_dirs = self.collect_sites([SITES_ROOT, *map(Path, extra_dirs)])
        for name, folder in (mounts or {}).items():
            if name in self.site_dirs:
                raise ValueError(f"mount {name!r} would hide the site folder {self.site_dirs[name]}")
            if not Path(folder).is_dir():
                raise FileNotFoundError(f"mounted folder {folder} does not exist")
            self.site_dirs[name] = Path(folder).resolve()
        self._servers: dict[str, ThreadingHTTPServer] = {}
        self._threads: list[threading.Thread] = []

    @staticmethod
    def collect_sites(roots: list[Path]) -> dict[str, Path]:
        sites: dict[str, Path] = {}
        for root in roots:
            if not root.is_dir():
                raise FileNotFoundError(f"site folder {root} does not exist")
            for child in sorted(root.iterdir()):
                if child.is_dir() and not child.name.startswith(("_", ".")):
                    sites[child.name] = child.resolve()
        return sites

    @property
    def origins(self) -> dict[str, str]:
        return {name: f"http://{self.host}:{srv.server_address[1]}" for name, srv in self._servers.items()}

    def origin(self, name: str = "main") -> str:
        return self.origins[name]

    def start(self) -> FixtureServer:
        for name in ORIGIN_NAMES:
            handler = type(f"Handler_{name}", (_Handler,), {"fixture": self, "origin_name": name})
            srv = _Server((self.host, 0), handler)
            self._servers[name] = srv
            # serve_forever notices a shutdown request only between polls: at its default 0.5 s,
            # stopping the three servers one after another took a second at the end of every run.
            thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": SHUTDOWN_POLL_S},
                                      name=f"gb-{name}", daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def stop(self) -> None:
        self._release.set()
        for srv in self._servers.values():
            srv.shutdown()
            srv.server_close()
        self._servers.clear()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def resolve_static(self, url_path: str) -> Path | None:
        """Map /site/rest to a file inside that site's folder; None for unknown or escaping paths."""
        parts = [p for p in unquote(url_path).split("/") if p]
        if not parts or parts[0] not in self.site_dirs:
            return None
        root = self.site_dirs[parts[0]]
        try:
            target = (root.joinpath(*parts[1:]) if len(parts) > 1 else root).resolve()
        except (ValueError, OSError, RuntimeError):  # a NUL byte, a symlink loop: nothing to serve
            return None
        if target != root and root not in target.parents:
            return None
        if target.is_dir():
            target = target / "index.html"
        return target if target.is_file() else None


class _Handler(BaseHTTPRequestHandler):
    fixture: FixtureServer
    origin_name: str
    protocol_version = "HTTP/1.1"
    # An answer goes out as written: with Nagle's algorithm the body of a kept-alive connection's
    # answer waited for the ACK of its headers, which the client delays by 40 ms.
    disable_nagle_algorithm = True
    _logged: dict[str, Any] | None = None  # the request-log entry of the GET being answered

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _episode(self) -> str | None:
        cookie = SimpleCookie(self.headers.get("Cookie", ""))
        return cookie[EPISODE_COOKIE].value if EPISODE_COOKIE in cookie else None

    def _send(self, status: int, body: bytes, ctype: str, extra: dict[str, str] | None = None) -> None:
        if self._logged is not None:
            self.fixture.store.set_status(self._logged, status)
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        for key, value in (extra or {}).items():
            self.send_header(key, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, payload: Any) -> None:
        self._send(status, json.dumps(payload).encode(), "application/json")

    def _not_found(self) -> None:
        self._send(404, b"not found\n", "text/plain; charset=utf-8")

    def _cors(self) -> dict[str, str]:
        origin = self.headers.get("Origin")
        if origin and origin in self.fixture.origins.values():
            return {"Access-Control-Allow-Origin": origin, "Access-Control-Allow-Credentials": "true"}
        return {}

    def do_HEAD(self) -> None:
        self.do_GET()

    def do_OPTIONS(self) -> None:
        headers = self._cors() | {
            "Access-Control-Allow-Methods": "POST, GET",
            "Access-Control-Allow-Headers": "Content-Type",
        }
        self._send(204, b"", "text/plain", headers)

    def do_GET(self) -> None:
        episode = self._episode()
        if episode:
            self._logged = self.fixture.store.log_request(episode, self.origin_name, self.path)
        try:
            self._get(urlsplit(self.path), episode)
        finally:
            self._logged = None

    def _fault(self, path: str, episode: str | None) -> bool:
        """Injects the fault configured for this path, once per episode; True when it fired."""
        kind = self.fixture.faults.get(path)
        if kind is None or episode is None or not self.fixture.store.claim_fault(episode, path):
            return False
        if kind == "500":
            self._send(500, b"injected fault\n", "text/plain; charset=utf-8")
            return True
        self.fixture.store.set_status(self._logged or {}, STALLED)
        self.fixture._release.wait()
        self.close_connection = True
        return True

    def _get(self, url: SplitResult, episode: str | None) -> None:
        if self._fault(url.path, episode):
            return
        if url.path.startswith("/_gb/harness/"):
            self._harness(url.path.removeprefix("/_gb/harness/"), parse_qs(url.query))
            return
        if url.path == "/_gb/gb.js":
            script = GB_JS.read_text().replace("__GB_ORIGINS__", json.dumps(self.fixture.origins))
            self._send(200, script.encode(), "text/javascript; charset=utf-8")
            return
        if url.path.rstrip("/") == "/_gb/redirect":
            target = parse_qs(url.query).get("to", ["/"])[0]
            self._send(302, b"", "text/plain", {"Location": target})
            return
        path = self.fixture.resolve_static(url.path)
        if path is None:
            self._not_found()
            return
        ctype = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        if ctype.startswith("text/") or ctype.endswith(("javascript", "json")):
            ctype += "; charset=utf-8"
        self._send(200, path.read_bytes(), ctype)

    def _harness(self, rest: str, query: dict[str, list[str]]) -> None:
        if query.get("token", [""])[0] != self.fixture.token:
            self._not_found()
            return
        kind, _, episode = rest.partition("/")
        if kind == "state":
            self._json(200, self.fixture.store.state(episode))
        elif kind == "requests":
            self._json(200, self.fixture.store.requests(episode))
        else:
            self._not_found()

    def do_POST(self) -> None:
        url = urlsplit(self.path)
        if url.path != "/_gb/state":
            self._not_found()
            return
        episode = self._episode()
        length = int(self.headers.get("Content-Length") or 0)
        if episode is None or length > MAX_BODY:
            self._send(400, b"missing episode cookie or body too large\n", "text/plain")
            return
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError as exc:
            self._send(400, f"bad state update: {exc}\n".encode(), "text/plain")
            return
        if not isinstance(body, dict):
            self._send(400, b"bad state update: body must be an object\n", "text/plain")
            return
        self.fixture.store.apply(episode, body)
        self._send(200, b'{"ok":true}', "application/json", self._cors())
