"""A drag onto a place that is no control: a list item, a table row, a card. On a page of its own
(tests/language/sites/backlog/: two tables of tasks; a Backlog row moves by dragging its "Move"
handle onto another row of the same table), "the second row of the Backlog table" is found among
the observation's rows (the table's header row left out, the Done table's rows fitting worse)
and the drag lands there. Before drop places, no drop target matched and every episode ran out
of steps."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.marks import Mark
from agents.observation import Box
from agents.worker.places import nth_place, place_at, place_beside
from tasks.text_match import ordinal
from tests.conftest import run_experiment

HERE = Path(__file__).parent / "language"


@pytest.mark.browser
@pytest.mark.parametrize("perception", ["none", "synthetic"])
def test_a_drag_lands_on_the_row_the_plan_names(tmp_path: Path, perception: str) -> None:
    result = run_experiment(tmp_path, [
        f"sites.dirs=[{HERE / 'sites'}]", f"tasks.dirs=[{HERE / 'tasks'}]", "suite=fixtures",
        "suite.ids=[backlog-second]", "seeds=[0,1,2]", "trace.playwright=false",
        f"perception={perception}"])
    assert result.episodes.success.all(), result.episodes.failure_detail.tolist()


def test_positions_in_words() -> None:
    assert ordinal("the first item (number 1) of the list") == 1
    assert ordinal("the 3rd row of the Backlog table") == 3
    assert ordinal("row number 2") == 2
    assert ordinal("the Alpha card") is None


def _place(number: int, role: str, holder: str, y: float) -> Mark:
    return Mark(number=number, box=Box(x=10, y=y, width=300, height=30), label="", role=role,
                context=(holder,), source="dom")


def test_the_nth_place_is_counted_in_the_holder_the_plan_names() -> None:
    done = [_place(1, "row", "Done", 40), _place(2, "row", "Done", 80)]
    backlog = [_place(3 + i, "row", "Backlog", 200 + 40 * i) for i in range(4)]
    cells = [_place(10 + i, "cell", "Backlog", 200 + 40 * i) for i in range(4)]
    places = [*done, *cells, *backlog]
    assert nth_place("the second row of the Backlog table", 2, places).number == 4
    assert nth_place("the last row of the Backlog table", 1, places).number == 6
    assert nth_place("the first row of the Done table", 1, places).number == 1
    assert nth_place("the 9th row of the Backlog table", 9, places) is None


@pytest.mark.browser
@pytest.mark.parametrize("perception", ["none", "synthetic"])
def test_a_place_is_dragged_to_a_place_named_by_where_it_lies(tmp_path: Path, perception: str) -> None:
    """tests/language/sites/shelf/: a grid of books (plain list items, no handle, no pointer
    cursor, nothing vision draws as a control) rearranged by dragging one onto another. The book
    dragged is found among the places; "the book at the top left of the shelf" and "the book just
    below Hamlet" are found by where they lie. 0/4 on b63cb2b (no mark matched the book)."""
    result = run_experiment(tmp_path, [
        f"sites.dirs=[{HERE / 'sites'}]", f"tasks.dirs=[{HERE / 'tasks'}]", "suite=fixtures",
        "suite.ids=[shelf-corner,shelf-below]", "seeds=[0,1]", "trace.playwright=false",
        f"perception={perception}"])
    assert result.episodes.success.all(), result.episodes.failure_detail.tolist()


def _grid() -> list[Mark]:
    names = ["Dune", "Emma", "Ulysses", "Beloved", "Hamlet", "Walden", "Ivanhoe", "Middlemarch", "Rebecca"]
    return [Mark(number=i + 1, box=Box(x=10 + 120 * (i % 3), y=40 + 70 * (i // 3), width=110, height=60),
                 label=name, role="listitem", context=("Bookshelf",), source="dom")
            for i, name in enumerate(names)]


def test_places_by_where_they_lie() -> None:
    grid = _grid()
    assert place_at("the book at the top left", grid).label == "Dune"
    assert place_at("the center of the grid", grid).label == "Hamlet"
    assert place_at("the bottom right book", grid).label == "Rebecca"
    assert place_at("the top center", grid).label == "Emma"
    assert place_beside("the book just below Hamlet", grid).label == "Middlemarch"
    assert place_beside("the item right of Beloved", grid).label == "Hamlet"
    assert place_beside("the book above Dune", grid) is None
    assert place_at("the Dune card", grid) is None


@pytest.mark.browser
@pytest.mark.parametrize("perception", ["none", "synthetic"])
def test_a_painted_shape_is_dragged_by_what_it_looks_like(tmp_path: Path, perception: str) -> None:
    """tests/language/sites/sketch/: a red square, a blue circle and a green triangle painted in
    an <svg>, moved by listeners a script attached. The synthetic reader draws a painted shape as
    what it looks like ("blue circle"); the hit test leaves it to its point (nothing in the DOM
    says it takes a drag). Only vision can see the shapes: 0/3 without it, and 0/3 on c80b8c7."""
    result = run_experiment(tmp_path, [
        f"sites.dirs=[{HERE / 'sites'}]", f"tasks.dirs=[{HERE / 'tasks'}]", "suite=fixtures",
        "suite.ids=[sketch-circle-right]", "seeds=[0,1,2]" if perception == "synthetic" else "seeds=[0]",
        "trace.playwright=false", f"perception={perception}"])
    assert result.episodes.success.all() == (perception == "synthetic"), result.episodes.failure_detail.tolist()
    assert perception == "synthetic" or not result.episodes.success.any()
