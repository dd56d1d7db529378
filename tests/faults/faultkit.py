"""Tools that inject real faults into a run: find and kill the real Chromium browser process, a
loopback trigger server that fires a fault when the page requests it (or never answers), and a
fault site plus tasks written into a tmp folder with the trigger's address filled in."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Self

TEMPLATES = Path(__file__).resolve().parent / "fixtures"
TRIGGER = "__TRIGGER__"


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        tree.setdefault(ppid, []).append(int(entry.name))
    return tree


def descendants(pid: int) -> list[int]:
    tree, out, todo = _children(), [], [pid]
    while todo:
        for child in tree.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def chromium_browsers(root: int) -> list[int]:
    """Browser main processes below `root`: Chromium binaries without a `--type=` (renderers,
    GPU, zygote and utilities all carry one). Debian's /usr/bin/chromium is a shell wrapper, so
    its pid is not the browser's."""
    found = []
    for pid in descendants(root):
        try:
            exe = os.readlink(f"/proc/{pid}/exe")
            args = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if "chrom" in Path(exe).name and b"--type=" not in args:
            found.append(pid)
    return found


def kill_browsers(root: int) -> list[int]:
    pids = chromium_browsers(root)
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    return pids


class TriggerServer:
    """A loopback HTTP server for fault pages: every request is recorded and passed to
    `on_request(path)`; paths in `stall` are never answered, the rest get 204."""

    def __init__(self, on_request: Callable[[str], None] = lambda path: None,
                 stall: tuple[str, ...] = ()) -> None:
        self.on_request, self.stall = on_request, stall
        self.paths: list[str] = []
        self._release = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_GET(self) -> None:
                path = self.path.split("?", 1)[0]
                outer.paths.append(path)
                outer.on_request(path)
                if path in outer.stall:
                    outer._release.wait()
                    return
                self.send_response(204)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> Self:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._release.set()
        self._server.shutdown()
        self._server.server_close()


def fault_suite(tmp_path: Path, trigger: TriggerServer | None = None) -> list[str]:
    """Copies the fault site and tasks into tmp_path with the trigger's address filled in (pages
    that need no trigger run without one); returns the overrides that add them to a run."""
    address = trigger.address if trigger is not None else TRIGGER
    for kind in ("sites", "tasks"):
        for src in (TEMPLATES / kind).rglob("*"):
            if src.is_file():
                dst = tmp_path / kind / src.relative_to(TEMPLATES / kind)
                dst.parent.mkdir(parents=True, exist_ok=True)
                dst.write_text(src.read_text().replace(TRIGGER, address))
    return [f"sites.dirs=[{tmp_path / 'sites'}]", f"tasks.dirs=[{tmp_path / 'tasks'}]"]
