"""groundbench-report on small synthetic run folders: every artefact is written, the tables hold
the expected numbers, the Pareto frontier is right, edge cases do not crash."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from PIL import Image
from synthetic_runs import episode, step_colour, write_run

from reports.frontier import indistinct, pareto_frontier
from reports.gallery import playwright_command
from reports.report import default_baseline, default_out, main, short_labels

FULL = "full/synthetic/scripted"
NOGATE = "full[gating=false]/synthetic/scripted"
NAIVE = "naive/synthetic/scripted"
TASKS = {"filters-region": ["smoke", "ci", "compound-row"], "iframes-delivery": ["iframe-same"]}


def _config(config: str, fails: set[tuple[str, int]], calls: int, wall_s: float) -> list[dict]:
    return [episode(config, task, seed, (task, seed) not in fails, calls, tags, wall_s=wall_s)
            for task, tags in TASKS.items() for seed in range(4)]


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A sweep folder: full 7/8 at 2 calls, no gating 7/8 at 4 calls (dominated), naive 4/8 at
    1 call (cheaper: on the frontier)."""
    root = tmp_path_factory.mktemp("sweep")
    write_run(root / "0", _config(FULL, {("iframes-delivery", 3)}, calls=2, wall_s=1.0))
    write_run(root / "1", _config(NOGATE, {("iframes-delivery", 3)}, calls=4, wall_s=2.0))
    write_run(root / "1" / ".." / "2",
              _config(NAIVE, {("filters-region", s) for s in range(4)}, calls=1, wall_s=1.5))
    (root / "multirun.yaml").write_text("hydra: {}\n")
    return root


@pytest.fixture(scope="module")
def report(sweep: Path) -> Path:
    assert main([str(sweep)]) == 0
    return sweep / "report"


def test_every_artefact_is_written(report: Path) -> None:
    for name in ("pareto.png", "ablation.png", "tasks.png", "stages.png", "report.md",
                 "report.html", "summary.csv", "ablation.csv", "tasks.csv", "failures.csv"):
        assert (report / name).is_file() and (report / name).stat().st_size > 0, name
    html = (report / "report.html").read_text()
    assert '<img src="pareto.png"' in html and "<table>" in html


def test_summary_numbers(report: Path) -> None:
    summary = pd.read_csv(report / "summary.csv").set_index("config_name")
    assert summary.loc[FULL, "success_rate"] == pytest.approx(7 / 8)
    assert summary.loc[NAIVE, "success_rate"] == pytest.approx(4 / 8)
    assert summary.loc[NOGATE, "vision_calls"] == pytest.approx(4.0)
    assert summary.loc[FULL, "success_low"] == pytest.approx(0.5291, abs=1e-3)
    # naive uses fewer calls beyond any interval, and 7/8 against 4/8 is within the intervals:
    # on 8 episodes the data cannot say full succeeds more, so only naive is on the frontier.
    assert summary["pareto"].to_dict() == {FULL: False, NOGATE: False, NAIVE: True}
    md = (report / "report.md").read_text()
    assert "| full | 8 | 7/8 | 88% [53%, 98%] | 2.00 |" in md
    assert "perception/worker `synthetic/scripted`" in md


def test_ablation_against_the_plain_full_agent(report: Path) -> None:
    ablation = pd.read_csv(report / "ablation.csv")
    overall = ablation[ablation["scope"] == "overall"].set_index("config_name")
    assert set(overall.index) == {NOGATE, NAIVE}
    assert overall.loc[NAIVE, "delta_success"] == pytest.approx(-3 / 8)
    assert overall.loc[NOGATE, "delta_success"] == pytest.approx(0.0)
    assert overall.loc[NOGATE, "delta_vision_calls"] == pytest.approx(2.0)
    assert overall.loc[NOGATE, "delta_wall_s"] == pytest.approx(1.0)
    # Same tasks and seeds on both sides: the interval is over paired differences (all +2 here).
    assert overall.loc[NOGATE, "paired"]
    assert overall.loc[NOGATE, ["delta_vision_calls_low", "delta_vision_calls_high"]].tolist() == [2, 2]
    naive_tags = ablation[ablation["config_name"] == NAIVE].set_index("scope")
    # Suite tags (smoke, ci) are not fixture tags; compound-row fails every naive episode.
    assert set(naive_tags.index) == {"overall", "compound-row", "iframe-same"}
    assert naive_tags.loc["compound-row", "delta_success"] == pytest.approx(-1.0)
    assert naive_tags.loc["compound-row", "significant"]
    md = (report / "report.md").read_text()
    assert "### naive by tag" in md and "| compound-row | 4/4 | 100% → 0% | -100" in md


def test_failure_gallery(report: Path) -> None:
    md = (report / "report.md").read_text()
    failures = pd.read_csv(report / "failures.csv")
    assert len(failures) == 6
    assert len(list((report / "failures").glob("*.png"))) == 6
    assert "### filters-region · seed 0 · naive" in md
    assert f"{playwright_command()} show-trace " in md and md.count("![filters-region") == 4
    assert Path(playwright_command()).is_file()  # the venv's own binary, runnable as shown
    assert "- failure: **wrong_target** — filters.region != Canada" in md


def test_task_table(report: Path) -> None:
    tasks = pd.read_csv(report / "tasks.csv")
    row = tasks[(tasks["task_id"] == "filters-region") & (tasks["config_name"] == NAIVE)]
    assert row["successes"].item() == 0 and row["episodes"].item() == 4


def test_frontier_on_a_constructed_example() -> None:
    points = pd.DataFrame({"vision_calls": [0.0, 1.0, 2.0, 2.0, 3.0, 5.0],
                           "success_rate": [0.2, 0.6, 0.6, 0.9, 0.8, 0.9]})
    # (2, .6) loses to (1, .6); (3, .8) and (5, .9) lose to (2, .9).
    assert pareto_frontier(points).tolist() == [True, True, False, True, False, False]


def test_default_baseline_is_the_unablated_full_agent() -> None:
    assert default_baseline([NAIVE, NOGATE, FULL]) == FULL
    # A sweep over agent.snapping=true,false names its "on" side full[snapping=True].
    on, off = "full[snapping=True]/synthetic/scripted", "full[snapping=False]/synthetic/scripted"
    assert default_baseline([off, on]) == on
    assert default_baseline([NAIVE, NOGATE]) is None


def test_labels_drop_the_shared_tail_only_when_unambiguous() -> None:
    assert short_labels([FULL, NOGATE]) == {FULL: "full", NOGATE: "full[gating=false]"}
    assert short_labels([FULL, "full/ocr/scripted"])[FULL] == FULL
    assert short_labels([FULL, "oracle"])["oracle"] == "oracle"


def test_single_run_folder_edge_cases(tmp_path: Path) -> None:
    """One config, one episode with zero vision calls, one failure without screenshot or trace."""
    run = write_run(tmp_path / "runs" / "ci",
                    [episode(FULL, "canvas-seat", 0, True, 0, ["canvas", "ci"]),
                     episode(FULL, "dense-colours", 0, False, 3, ["dense"])], artefacts=False)
    assert default_out([run]) == run / "report"
    other = write_run(tmp_path / "runs" / "ci2", [episode(FULL, "dense-colours", 1, True, 2, ["dense"])],
                      artefacts=False)
    assert default_out([other]) != default_out([run])  # two runs of a day never share a report
    assert default_out([run, other]) == tmp_path / "runs" / "report-ci+ci2"
    assert main([str(run)]) == 0
    out = run / "report"
    for name in ("pareto.png", "tasks.png", "stages.png", "report.md", "summary.csv"):
        assert (out / name).is_file(), name
    assert not (out / "ablation.png").exists()
    md = (out / "report.md").read_text()
    assert "nothing to compare" in md
    assert "no Set-of-Mark image recorded" in md and "no Playwright trace recorded" in md


def test_configs_without_steps_one_episode_and_gallery_cap(tmp_path: Path) -> None:
    write_run(tmp_path / "a", _config(FULL, {("iframes-delivery", 3)}, calls=2, wall_s=1.0))
    write_run(tmp_path / "b", _config("oracle", {("filters-region", 0), ("filters-region", 1)},
                                      calls=0, wall_s=0.5), with_steps=False)
    write_run(tmp_path / "c", [episode("naive_text", "filters-region", 0, True, 0, ["ci"])],
              with_steps=False)
    out = tmp_path / "out"
    assert main([str(tmp_path / "a"), str(tmp_path / "b"), str(tmp_path / "c"), "--out", str(out),
                 "--max-failures", "2"]) == 0
    summary = pd.read_csv(out / "summary.csv").set_index("config_name")
    assert summary.loc["naive_text", "episodes"] == 1
    assert summary.loc["naive_text", "success_low"] == pytest.approx(0.2065, abs=1e-3)
    md = (out / "report.md").read_text()
    assert "Showing 2 of 3 failed episodes" in md
    # The cap takes failures round-robin over configs, so both configs are shown.
    assert "· full/synthetic/scripted" in md and "· oracle" in md
    assert "No step traces for: naive_text, oracle" in md
    assert (out / "ablation.png").is_file()


def test_baseline_option_and_bad_input(sweep: Path, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "naive-base"
    assert main([str(sweep), "--out", str(out), "--baseline", "naive"]) == 0
    ablation = pd.read_csv(out / "ablation.csv")
    assert set(ablation["config_name"]) == {FULL, NOGATE}
    assert main([str(sweep), "--out", str(out), "--baseline", "nope"]) == 2
    assert main([str(tmp_path / "missing")]) == 2
    err = capsys.readouterr().err
    assert "is none of the configs" in err and "is not a folder" in err


def test_the_frontier_reads_the_intervals() -> None:
    # full[snapping=false] used 2.97 calls against full's 3.00, inside each other's intervals, and
    # succeeded clearly less: full beats it, whatever the point estimates of the calls say.
    points = pd.DataFrame({
        "config_name": ["full", "snapping-off", "twin"],
        "vision_calls": [3.00, 2.97, 3.02], "vision_calls_low": [2.8, 2.8, 2.85],
        "vision_calls_high": [3.2, 3.15, 3.2],
        "success_rate": [1.0, 0.78, 0.98], "success_low": [0.96, 0.70, 0.93],
        "success_high": [1.0, 0.85, 1.0]})
    assert pareto_frontier(points).tolist() == [True, False, True]
    # full and twin cannot be told apart on either axis: each is marked as overlapping the other.
    assert indistinct(points).tolist() == ["twin", "", "full"]


def _clicks(*steps: dict) -> list[dict]:
    """Step columns of a click plan: each step chose the mark showing the plan's label, with an
    effect, unless the step's dict says otherwise."""
    plan = [("Silver", "Silver checkbox in the Colour filter"),
            ("16 GB", "16 GB checkbox in the Memory (RAM) filter"),
            ("Apply filters", "Apply filters button"), ("Close", "Close button")]
    return [{"subgoal_label": label, "subgoal_target": target, "action": "click",
             "target_role": "checkbox", "target_name": label, "target_context": f"{label} | Filters",
             "effective": True, "effect": "dom", **fields}
            for (label, target), fields in zip(plan, steps, strict=True)]


def test_the_gallery_shows_the_first_wrong_step_with_its_image(tmp_path: Path) -> None:
    no_effect = {"effective": False, "error_type": "no_effect",
                 "error": "the action changed nothing on the page"}
    rows = {
        # step 2 of 4 had no effect (and so did step 3): step 2 is shown
        "dense-colour-memory": _clicks({}, {}, no_effect, no_effect),
        # step 1 chose a mark that does not show the plan's label
        "dense-colours": _clicks({}, {"target_name": "8 GB",
                                      "target_context": "8 GB | Graphics memory | Filters"}, {}, {}),
        # nothing in the record says which step was wrong: the last one
        "filters-region": _clicks({}, {}, {}, {}),
    }
    eps = [{**episode(FULL, task, 0, False, 2, ["dense"], steps=4), "step_fields": fields}
           for task, fields in rows.items()]
    write_run(tmp_path / "run", eps, all_shots=True)
    out = tmp_path / "out"
    assert main([str(tmp_path / "run"), "--out", str(out)]) == 0
    md = (out / "report.md").read_text()
    sections = {s.split(" ·")[0]: s for s in md.split("### ")[1:]}
    assert ("- first wrong step 2: click “Apply filters button”; chose checkbox “Apply filters” in "
            "“Filters”; error no_effect: the action changed nothing on the page\n"
            ) in sections["dense-colour-memory"]
    assert "- last step 3:" in sections["dense-colour-memory"]
    assert ("- first wrong step 1: click “16 GB checkbox in the Memory (RAM) filter”; chose checkbox "
            "“8 GB” in “Graphics memory” — chose “8 GB”, but the plan's target shows “16 GB”"
            ) in sections["dense-colours"]
    assert "first wrong" not in sections["filters-region"]
    assert "- last step 3:" in sections["filters-region"]
    for task, step in (("dense-colour-memory", 2), ("dense-colours", 1), ("filters-region", 3)):
        assert f"Set-of-Mark image of step {step} (the chosen mark" in sections[task]
        episode_id = next(e["episode_id"] for e in eps if e["task_id"] == task)
        with Image.open(out / "failures" / f"{episode_id}.png") as thumb:
            assert thumb.convert("RGB").getpixel((5, 5)) == step_colour(step), task


def test_the_gallery_falls_back_to_an_image_it_has(tmp_path: Path) -> None:
    # The wrong step (2) has no image, as a step that chose no mark has none: the last image.
    row = {**episode(FULL, "dense-colour-memory", 0, False, 2, ["dense"], steps=4),
           "step_fields": _clicks({}, {}, {"effective": False, "error_type": "no_target",
                                           "action": "", "target_name": ""}, {})}
    write_run(tmp_path / "run", [row])  # the last step's image only
    out = tmp_path / "out"
    assert main([str(tmp_path / "run"), "--out", str(out)]) == 0
    md = (out / "report.md").read_text()
    assert "- first wrong step 2: click “Apply filters button”; error no_target" in md
    assert "Set-of-Mark image of step 3 (the chosen mark" in md


def _stage_warning(md: str) -> str:
    stage = md.split("## Stage timing")[1].split("## ")[0]
    return next((line for line in stage.splitlines() if line.startswith("> Warning")), "")


def test_stage_timing_warns_when_configs_ran_apart_or_under_different_loads(
        tmp_path: Path, report: Path) -> None:
    assert _stage_warning((report / "report.md").read_text()) == ""  # side by side, load unknown
    day = 1_780_000_000.0  # 2026-05-28 20:26:40 UTC

    def config(name: str, start: float) -> list[dict]:
        return [{**e, "started_at": start + 10 * i}
                for i, e in enumerate(_config(name, set(), calls=2, wall_s=1.0))]

    write_run(tmp_path / "a", config(FULL, day), load_average=[0.5, 0.5, 0.5])
    write_run(tmp_path / "b", config(NAIVE, day + 3600), load_average=[0.7, 0.5, 0.5])
    write_run(tmp_path / "c", config(NOGATE, day + 3600 + 20), load_average=[3.9, 2.0, 1.0])
    out = tmp_path / "apart"
    assert main([str(tmp_path / "a"), str(tmp_path / "b"), "--out", str(out)]) == 0
    md = (out / "report.md").read_text()
    assert _stage_warning(md) == (
        "> Warning: These configs ran at different times (full: 2026-05-28 20:26–20:27 UTC; "
        "naive: 2026-05-28 21:26–21:27 UTC): times depend on machine load, so compare them only "
        "between configs run side by side.")
    assert "> Warning: These configs ran at different times" in md.split("## Ablation")[1]
    out = tmp_path / "loaded"
    assert main([str(tmp_path / "b"), str(tmp_path / "c"), "--out", str(out)]) == 0
    assert _stage_warning((out / "report.md").read_text()) == (
        "> Warning: These configs ran under different loads (1-minute load average as each "
        "started: full[gating=false] 3.9; naive 0.7): times depend on machine load, so compare "
        "them only between configs run side by side.")
    out = tmp_path / "together"  # overlapping, loads within the margin: no warning
    write_run(tmp_path / "d", config(NOGATE, day + 3600 + 20), load_average=[1.0, 1.0, 1.0])
    assert main([str(tmp_path / "b"), str(tmp_path / "d"), "--out", str(out)]) == 0
    assert _stage_warning((out / "report.md").read_text()) == ""


def test_the_recorder_keeps_the_first_wrong_step_and_the_last() -> None:
    """trace.screenshots=failed: of four steps, the images of step 1 (the first that had no
    effect) and step 3 (the last) are drawn, the chosen mark in a yellow halo."""
    import asyncio
    import io
    from types import SimpleNamespace

    from agents.marks import Mark
    from agents.observation import Box
    from agents.som import HALO, Recorder
    from tasks.trace import StepRecord

    buf = io.BytesIO()
    Image.new("RGB", (200, 100), "white").save(buf, format="PNG")
    mark = Mark(number=1, box=Box(x=50, y=30, width=60, height=30), label="Go")
    recorder = Recorder("last")
    recs = [StepRecord(step=i, subgoal_index=0, subgoal_action="click", action="click",
                       target_name="Go", effective=i not in (1, 2),
                       error_type="no_effect" if i in (1, 2) else "")
            for i in range(4)]  # steps 1 and 2 had no effect
    page = SimpleNamespace(viewport_size={"width": 200, "height": 100})
    for rec in recs:
        step = SimpleNamespace(page=page, png=buf.getvalue(), marks=[mark], number=rec.step, rec=rec)
        asyncio.run(recorder.keep(step, mark))  # type: ignore[arg-type]
    images = recorder.images()
    assert sorted(images) == [1, 3]
    with Image.open(io.BytesIO(images[1])) as drawn:
        halo = tuple(int(HALO[i:i + 2], 16) for i in (1, 3, 5))
        assert drawn.convert("RGB").getpixel((50 - 5, 45)) == halo  # left edge of the halo


def test_the_task_table_names_each_tasks_class_and_rate(tmp_path: Path) -> None:
    from reports.task_table import main as task_table_main
    from tests.synthetic_runs import episode, write_run

    write_run(tmp_path / "run", [
        episode("full/synthetic/scripted", "rating-four-stars", s, s == 0, 3, ["painted", "ci"])
        for s in range(4)] + [
        episode("full/synthetic/scripted", "refunds-refund-order", s, True, 2, ["rowkey", "ci"])
        for s in range(4)], artefacts=False)
    import contextlib
    import io
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert task_table_main([str(tmp_path / "run")]) == 0
    lines = out.getvalue().splitlines()
    assert lines[2].startswith("| painted | rating-four-stars | 25% (1/4), 3 calls")
    assert "wrong_target 3" in lines[2]
    assert lines[3].startswith("| rowkey | refunds-refund-order | 100% (4/4)")
    assert task_table_main([str(tmp_path / "nothing")]) == 2
