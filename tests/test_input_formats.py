"""Date and time fields take their wire format (agents/input_formats.py). On a page of its own
(tests/language/sites/clinic/: the browser's own date and time inputs), "12/24/2026" and "7:30 PM"
are typed as people write them; before, the keys went into the field's display segments and the
validator saw "2026-12-24" against "12/24/2026": value_mismatch every step (0/2 on 26f5136)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.input_formats import same_value, wire
from tests.conftest import run_experiment

HERE = Path(__file__).parent / "language"


@pytest.mark.browser
@pytest.mark.parametrize("perception", ["none", "synthetic"])
def test_a_date_and_a_time_written_as_people_write_them(tmp_path: Path, perception: str) -> None:
    result = run_experiment(tmp_path, [
        f"sites.dirs=[{HERE / 'sites'}]", f"tasks.dirs=[{HERE / 'tasks'}]", "suite=fixtures",
        "suite.ids=[clinic-visit]", "seeds=[0,1]", "trace.playwright=false",
        f"perception={perception}"])
    assert result.episodes.success.all(), result.episodes.failure_detail.tolist()


@pytest.mark.parametrize(("kind", "text", "value"), [
    ("date", "12/24/2026", "2026-12-24"), ("date", "24/12/2026", "2026-12-24"),
    ("date", "2026-12-24", "2026-12-24"), ("date", "December 24, 2026", "2026-12-24"),
    ("date", "24 Dec 2026", "2026-12-24"), ("date", "02/30/2026", None), ("date", "soon", None),
    ("time", "7:30 PM", "19:30"), ("time", "12:05 am", "00:05"), ("time", "19:30", "19:30"),
    ("time", "13:00 PM", None), ("month", "December 2026", "2026-12"),
    ("datetime-local", "12/24/2026 7:30 PM", "2026-12-24T19:30"),
])
def test_wire_formats(kind: str, text: str, value: str | None) -> None:
    assert wire(kind, text) == value


def test_the_value_read_back_is_compared_in_either_format() -> None:
    assert same_value("2026-12-24", "12/24/2026")
    assert same_value("hello", "hello")
    assert not same_value("2026-12-25", "12/24/2026")
