"""A subgoal's `looks_like` (agents/pictures.py): the target is the mark showing the picture, at
another size, inverted on a pressed button, not its mirror image, and not the box around it."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import run_experiment
from PIL import Image, ImageDraw

from agents import pictures
from agents.marks import Mark
from agents.observation import Box
from agents.pictures import RESEMBLES, best_fit, grey, resemble
from tasks.loader import TaskFileError, load_task

HERE = Path(__file__).parent / "language"
ICONS = HERE / "sites" / "toolbar" / "icons"


def _icon(name: str) -> np.ndarray:
    return grey((ICONS / f"{name}.png").read_bytes())


def _on_paper(icon: np.ndarray, size: int, invert: bool = False, pad: int = 6) -> np.ndarray:
    drawn = np.asarray(Image.fromarray(icon).resize((size, size), Image.BILINEAR), dtype=np.float32)
    if invert:
        drawn = 255.0 - drawn
    return np.pad(drawn, pad, constant_values=0.0 if invert else 255.0)


@pytest.mark.parametrize("size", [20, 24, 32])
def test_the_picture_fits_itself_at_another_size_and_inverted(size: int) -> None:
    bolt = _icon("bolt")
    assert best_fit(bolt, _on_paper(bolt, size)) >= RESEMBLES
    assert best_fit(bolt, _on_paper(bolt, size, invert=True)) >= RESEMBLES
    # another icon, and the mirror image of an arrow, do not
    assert best_fit(bolt, _on_paper(_icon("star"), size)) < RESEMBLES
    assert best_fit(_icon("forward"), _on_paper(_icon("back"), size)) < RESEMBLES


def test_a_flat_picture_or_a_blank_box_fits_nothing() -> None:
    assert best_fit(np.full((16, 16), 200.0, dtype=np.float32), _on_paper(_icon("bolt"), 24)) == 0.0
    assert best_fit(_icon("bolt"), np.full((40, 120), 255.0, dtype=np.float32)) == 0.0


def _screen(tmp_path: Path) -> tuple[bytes, list[Mark], str]:
    """A 300×80 screen: a toolbar box holding two 32 px buttons, the star and the bolt."""
    shot = Image.new("RGB", (300, 80), "white")
    draw = ImageDraw.Draw(shot)
    draw.rectangle([10, 10, 200, 60], outline=(150, 150, 150))
    for x, name in ((20, "star"), (80, "bolt")):
        with Image.open(ICONS / f"{name}.png") as icon:
            big = icon.convert("RGBA").resize((32, 32))
            shot.paste(big, (x + 4, 20), big)
    buf = io.BytesIO()
    shot.save(buf, "PNG")
    marks = [Mark(number=1, box=Box(x=10, y=10, width=190, height=50), label="", role="toolbar"),
             Mark(number=2, box=Box(x=20, y=16, width=40, height=40), label="", role="button"),
             Mark(number=3, box=Box(x=80, y=16, width=40, height=40), label="", role="button")]
    return buf.getvalue(), marks, str(ICONS / "bolt.png")


def test_the_picture_is_the_smallest_marks_that_shows_it(tmp_path: Path) -> None:
    png, marks, ref = _screen(tmp_path)
    toolbar, star, bolt = resemble(png, marks, ref, (300, 80))
    assert bolt.resemblance >= RESEMBLES > star.resemblance
    assert toolbar.resemblance == 0.0  # it holds the bolt's button: the picture is the button's


def test_a_task_file_names_its_picture_relative_to_itself(tmp_path: Path) -> None:
    (tmp_path / "pics").mkdir()
    (tmp_path / "pics" / "bolt.png").write_bytes((ICONS / "bolt.png").read_bytes())
    (tmp_path / "pics" / "notes.png").write_text("not a picture")
    body = ("id: t\nsite: s\nstart: /s/\ngoal: g\nplan:\n"
            "  - {action: click, target: the button with the icon, looks_like: %s}\n"
            "success:\n  - {path: done, equals: true}\n")
    (tmp_path / "ok.yaml").write_text(body % "pics/bolt.png")
    assert load_task(tmp_path / "ok.yaml").plan[0].looks_like == str(tmp_path / "pics" / "bolt.png")
    (tmp_path / "bad.yaml").write_text(body % "pics/notes.png")
    with pytest.raises(TaskFileError) as err:
        load_task(tmp_path / "bad.yaml")
    assert err.value.field == "plan.0.looks_like" and err.value.path == tmp_path / "bad.yaml"


ARGS = [f"sites.dirs=[{HERE / 'sites'}]", f"tasks.dirs=[{HERE / 'tasks'}]", "suite=fixtures",
        "suite.ids=[toolbar-pictures]", "seeds=[0,1]", "trace.playwright=false", "trace.screenshots=none"]


@pytest.mark.browser
def test_icon_only_buttons_are_found_by_their_picture(tmp_path: Path) -> None:
    # tests/language/sites/toolbar: six nameless buttons alike in the tree; the plan gives the
    # forward arrow's picture, then the bolt's
    for perception in ("none", "synthetic"):
        result = run_experiment(tmp_path / perception, [*ARGS, f"perception={perception}"])
        assert result.episodes.success.all(), result.episodes[["failure", "failure_detail"]].to_dict("records")
        steps = pd.read_parquet(result.run_dir / "steps.parquet")
        assert (steps[steps.action == "click"].resemblance >= RESEMBLES).all()


@pytest.mark.browser
def test_without_comparing_pictures_the_toolbar_cannot_be_told_apart(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pictures, "resemble", lambda png, marks, ref, viewport: marks)
    result = run_experiment(tmp_path, [*ARGS, "perception=none"])
    assert not result.episodes.success.any()
    assert (result.episodes.failure == "no_target").all()
