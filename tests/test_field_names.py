"""Fields named in other words (tests/language/sites/booking): the task asks for the last name, the
ZIP code, the phone and the car's year; the page captions its unnamed fields Surname, Postcode,
Telephone and Build date. The scripted worker reads a caption that names what a field asks for by
another of its names (tasks/text_match.py `FIELD_NAMES`) as saying the description's words."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from conftest import run_experiment

from agents.worker import fit

pytestmark = pytest.mark.browser

HERE = Path(__file__).parent / "language"
ARGS = [f"sites.dirs=[{HERE / 'sites'}]", f"tasks.dirs=[{HERE / 'tasks'}]", "suite=fixtures",
        "suite.ids=[booking-fields]", "seeds=[0,1]", "perception=none", "trace.playwright=false",
        "trace.screenshots=none"]
RENAMED = {"Last name field": {"Surname", "Family name"}, "ZIP code field": {"Postcode", "Postal code"},
           "Phone field": {"Telephone", "Tel. number"}, "Year field": {"Build date", "Registration date"}}


def test_each_field_is_found_by_the_pages_name_for_it(tmp_path: Path) -> None:
    result = run_experiment(tmp_path, ARGS)
    assert result.episodes.success.all(), result.episodes[["failure", "failure_detail"]].to_dict("records")
    steps = pd.read_parquet(result.run_dir / "steps.parquet")
    for target, captions in RENAMED.items():
        typed = steps[(steps.subgoal_target == target) & (steps.action == "type")]
        assert len(typed) == 2, target
        # the field typed into is the one the page's caption for it stands beside
        assert all(ctx.split(" | ")[0] in captions for ctx in typed.target_context), typed.target_context.tolist()


def test_without_the_field_names_the_same_pages_fail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fit, "FIELD_NAMES", ())
    result = run_experiment(tmp_path, ARGS)
    assert not result.episodes.success.any()
    assert (result.episodes.failure == "no_target").all()
