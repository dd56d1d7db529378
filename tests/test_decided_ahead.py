"""Prefetch's decision made ahead (agents/prefetch.py): while a step waits for vision, the worker
decides on the DOM's listing; the decision is kept only when it holds for vision's listing (the
same element, and exactly the same marks competing with it), so the worker's time overlaps
vision's and what a worker would choose from vision's listing is not changed."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from agents.marks import Mark
from agents.observation import Box
from agents.prefetch import holds
from agents.worker.base import Choice, WorkerReply
from tests.conftest import run_experiment

HERE = Path(__file__).parent / "language"


def _mark(number: int, label: str, ref: str | None, role: str = "button", x: float = 0) -> Mark:
    return Mark(number=number, box=Box(x=x, y=10 * number, width=40, height=10), label=label, role=role,
                ref=ref, source="dom" if ref else "vision")


def _chose(mark: Mark) -> Choice:
    return Choice(reply=WorkerReply(action="click", mark=mark.number), mark=mark, score=1.0)


def test_a_decision_holds_when_vision_lists_the_same_competing_marks() -> None:
    dom = [_mark(1, "Save draft", "e1"), _mark(2, "Discard", "e2"), _mark(3, "Draft settings", "e3")]
    # vision: other numbers, missed a worse-fitting mark, saw one the DOM lacks that fits worse
    seen = [_mark(1, "Discard", "e2"), _mark(2, "Save draft", "e1"), _mark(3, "Help", None)]
    kept = holds(_chose(dom[0]), dom, seen, "Save draft")
    assert kept is not None and kept.mark is seen[1] and kept.reply is not None and kept.reply.mark == 2


def test_a_decision_is_dropped_when_the_listings_disagree_on_a_competitor() -> None:
    dom = [_mark(1, "Remove", "e1"), _mark(2, "Remove", "e2"), _mark(3, "Remove", "e3")]
    # the DOM lists a "Remove" vision does not see (a row faded to nothing): "the second" differs
    assert holds(_chose(dom[1]), dom, [_mark(1, "Remove", "e2"), _mark(2, "Remove", "e3")], "Remove") is None
    # vision sees a "Remove" the DOM's listing lacks (painted, or a caption read as a control)
    seen = [_mark(1, "Remove", "e1"), _mark(2, "Remove", "e2"), _mark(3, "Remove", "e3"), _mark(4, "Remove", None)]
    assert holds(_chose(dom[1]), dom, seen, "Remove") is None
    # the chosen element itself unseen
    assert holds(_chose(dom[0]), dom, [_mark(1, "Remove", "e2"), _mark(2, "Remove", "e3")], "Remove") is None
    # the same three: kept
    assert holds(_chose(dom[1]), dom, list(reversed(dom)), "Remove") is not None


def test_a_decision_made_before_an_action_is_dropped_when_its_element_changed() -> None:
    # made on the listing before "Add to cart": the cart link's name has changed since
    before = [_mark(1, "Cart (5)", "e6", role="link"), _mark(2, "Add to cart", "e24")]
    after = [_mark(1, "Cart (6)", "e6", role="link"), _mark(2, "Add to cart", "e24")]
    assert holds(_chose(before[0]), before, after, "Cart") is None
    ticked = _mark(1, "Gift wrap", "e3", role="checkbox").model_copy(update={"states": {"checked": "true"}})
    plain = _mark(1, "Gift wrap", "e3", role="checkbox")
    assert holds(_chose(plain), [plain], [ticked], "Gift wrap") is None
    assert holds(_chose(plain), [plain], [plain], "Gift wrap") is not None


def test_what_is_not_a_targeted_choice_is_never_kept() -> None:
    dom = [_mark(1, "Save", "e1")]
    nothing = Choice(reply=None)
    scroll = Choice(reply=WorkerReply(action="scroll"), mark=dom[0])
    satisfied = Choice(reply=None, mark=dom[0], satisfied=True)
    assert holds(nothing, dom, dom, "Save") is None and holds(scroll, dom, dom, "Save") is None
    assert holds(satisfied, dom, dom, "Save") is not None  # the state already holds: no action


def test_a_nameless_choice_needs_every_mark_of_its_role_alike() -> None:
    stars = [_mark(i, "", f"e{i}", role="radio", x=20 * i) for i in range(1, 6)]
    assert holds(_chose(stars[2]), stars, stars, "third star") is not None
    assert holds(_chose(stars[2]), stars, stars[1:], "third star") is None


def _run(tmp_path: Path, task: str, site_dirs: str, *extra: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    run = run_experiment(tmp_path, [*site_dirs.split(), "suite=fixtures", f"suite.ids=[{task}]",
                                    "seeds=[0,1]", "perception=synthetic", "trace.playwright=false",
                                    "perception.latency_ms={small:400,large:400}", "worker.latency_ms=400",
                                    *extra])
    return run.episodes, pd.read_parquet(run.run_dir / "steps.parquet")


def test_the_worker_decides_while_vision_looks(tmp_path: Path) -> None:
    dirs = f"sites.dirs=[{HERE / 'sites'}] tasks.dirs=[{HERE / 'tasks'}]"
    episodes, steps = _run(tmp_path / "on", "newsletter-subscribe", dirs)
    assert episodes.success.all()
    looked = steps[steps.vision_call & (steps.action != "")]
    assert len(looked) and (looked.decided_ahead == "kept").all()
    # the decision's time was spent while vision looked: the step hardly waited for it
    assert (looked.worker_ms >= 400).all() and (looked.choose_ms < 200).all()
    assert steps.decisions.sum() >= len(steps[steps.action != ""])
    # the second subgoal reuses vision's epoch: decided on the first step's listing while the
    # first was acted on and validated (the settle alone waits 20 ms quiet)
    reused = steps[~steps.vision_call & (steps.action != "")]
    assert len(reused) and (reused.decided_ahead == "kept").all()
    assert (reused.worker_ms >= 400).all() and (reused.choose_ms < reused.worker_ms - 20).all()
    # deciding later subgoals ahead switched off: the step that reuses vision asks the worker then
    _, now = _run(tmp_path / "now", "newsletter-subscribe", dirs, "agent.prefetch_decisions_ahead=0")
    reused_now = now[~now.vision_call & (now.action != "")]
    assert len(reused_now) and (reused_now.decided_ahead == "").all() and (reused_now.decisions == 1).all()
    assert (reused_now.choose_ms >= 400).all()
    off_episodes, off = _run(tmp_path / "off", "newsletter-subscribe", dirs, "ablate=prefetch")
    assert off_episodes.success.all() and (off.decided_ahead == "").all()
    assert (off[off.action != ""].decisions == 1).all()
    assert (off[off.vision_call & (off.action != "")].choose_ms >= 400).all()


def test_a_decision_made_on_a_faded_row_is_dropped(tmp_path: Path) -> None:
    # sites/addresses: the DOM lists one "Remove" more than is drawn; the second drawn one is
    # asked for. The decision made on the DOM's listing counts the faded row and is dropped.
    episodes, steps = _run(tmp_path, "addresses-remove-second", "")
    clicked = steps[steps.action == "click"]
    assert (clicked.decided_ahead == "dropped").all()
    assert (clicked.worker_ms >= 800).all() and (clicked.decisions == 2).all()  # both are charged
    assert set(clicked[clicked.seed.isin(episodes[episodes.success].seed)].target_context.str[:10]) \
        == {"Mara Quist"}
    assert episodes.success.any()
