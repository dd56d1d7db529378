"""The worker returns freed C-heap pages to the system as a run goes on (README "Performance",
memory): a 500-episode run otherwise grows by what glibc keeps after Playwright's messages."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_experiment

from harness import runner

MIB = 2**20


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def test_release_free_heap_returns_freed_pages_to_the_system() -> None:
    if runner._malloc_trim() is None:
        pytest.skip("not glibc: no malloc_trim")
    # 100 MiB in 2 KiB blocks (below glibc's mmap threshold, so on the heap), every 50th kept:
    # freed, they stay in the process, since a kept block sits above each free stretch.
    blocks = [bytearray(2048) for _ in range(50_000)]
    kept = blocks[::50]
    del blocks
    before = _rss()
    assert runner.release_free_heap()
    freed = before - _rss()
    assert freed > 40 * MIB, f"only {freed / MIB:.0f} MiB returned"
    assert len(kept) == 1000


@pytest.mark.browser
def test_the_runner_releases_free_heap_every_few_episodes(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    monkeypatch.setattr(runner, "TRIM_EVERY", 2)
    monkeypatch.setattr(runner, "release_free_heap", lambda: calls.append(1) or True)
    result = run_experiment(tmp_path, ["suite=smoke", "seeds=[0]", "trace.playwright=false"])
    assert len(result.episodes) == 4 and len(calls) == 2
