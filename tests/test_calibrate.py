"""groundbench-calibrate: the matching rule and each estimator on hand-made detections whose rates
are known, the prediction table on hand-made runs, and the command end to end against the
synthetic backend with known parameters, which it must recover (and whose profile must load as
`perception=synthetic_<name>`)."""

from __future__ import annotations

import json
import math
import tomllib
from pathlib import Path

import pytest
import yaml
from synthetic_runs import episode, write_run

from agents.perception.base import Candidate, NormBox
from agents.perception.synthetic import SyntheticConfig
from agents.perception.visible_geometry import Region
from harness import calibrate
from harness.calibrate import prediction_table, write_profile
from harness.config import compose_run_config
from harness.error_rates import (
    Estimate,
    TierCounts,
    count_call,
    estimate,
    match,
    miss_loglik,
    profile_config,
)

VIEW = (1000.0, 500.0)
REPO = Path(__file__).resolve().parent.parent


def cand(x: float, y: float, w: float, h: float, label: str = "", kind: str = "text") -> Candidate:
    """A candidate over the pixel box (x, y, w, h) of the 1000x500 test viewport."""
    return Candidate(box=NormBox(x0=x / VIEW[0], y0=y / VIEW[1], x1=(x + w) / VIEW[0],
                                 y1=(y + h) / VIEW[1]), label=label, kind=kind)


def region(x: float, y: float, w: float, h: float, text: str = "", kind: str = "control",
           row: int = -1, small: bool = False, state: str = "") -> Region:
    return Region(box=(x, y, w, h), text=text, kind=kind, row=row, small=small, state=state)


# --------------------------------------------------------------------------- matching


def test_match_pairs_by_centre_then_kind_then_iou() -> None:
    regions = [
        region(0, 0, 200, 40, "Notifications", kind="control"),  # 0
        region(0, 0, 200, 40, "Notifications", kind="row"),  # 1, drawn exactly where 0 is
        region(500, 100, 100, 40, "Search"),  # 2
        region(800, 400, 20, 20, kind="icon", small=True),  # 3: nothing near it
    ]
    cands = [
        cand(2, 1, 196, 38, "Notifications", kind="row"),  # 0: the row's box, kind row
        cand(5, 2, 190, 36, "Notifications", kind="control"),  # 1: better IoU with 1 than 0? equal
        cand(520, 110, 50, 20, "Search"),  # 2: text line inside the button
        cand(300, 300, 30, 30, "Price"),  # 3: plain text near nothing
    ]
    pairs = match(regions, cands, VIEW)
    # Same boxes for 0 and 1: the candidate that says "row" goes to the row, the other to the
    # control, whatever their IoU.
    assert pairs == {1: 0, 0: 1, 2: 2}
    # Without kinds that agree, the larger IoU wins, and a row wins a tie.
    plain = [c.model_copy(update={"kind": "text"}) for c in cands]
    pairs = match(regions, plain, VIEW)
    assert pairs[2] == 2 and 3 not in pairs
    assert {pairs[0], pairs[1]} == {0, 1}
    tie = match(regions[:2], [cand(0, 0, 200, 40, "Notifications")], VIEW)
    assert tie == {1: 0}


# --------------------------------------------------------------------------- counting


def page() -> list[Region]:
    """A hand-made page: two buttons, an icon and a checkbox alone, a row with a text member and
    a chevron (identifiable), a checkbox row (members all missable: ambiguous), a checked box."""
    return [
        region(10, 10, 100, 30, "Save"),  # 0
        region(10, 60, 100, 30, "Cancel"),  # 1
        region(200, 10, 20, 20, kind="icon", small=True),  # 2 missable
        region(200, 60, 16, 16, kind="checkbox", small=True),  # 3 missable
        region(300, 100, 400, 30, "Region: Any", kind="row"),  # 4 identifiable row
        region(310, 105, 100, 20, "Region", row=4),  # 5 its text member
        region(680, 106, 18, 18, "", kind="icon", row=4, small=True),  # 6 its chevron
        region(300, 200, 400, 30, "Silver", kind="row"),  # 7 ambiguous row
        region(305, 207, 16, 16, kind="checkbox", row=7, small=True),  # 8 its box
        region(10, 300, 16, 16, kind="checkbox", small=True, state="checked"),  # 9 missable
        region(10, 400, 200, 30, "Long label here"),  # 10 never missed, unseen below
    ]


def test_count_call_counts_each_process_on_a_hand_made_page() -> None:
    regions = page()
    cands = [
        cand(10, 10, 100, 30, "Save"),  # exact
        cand(15, 63, 100, 30, "Cancl"),  # label noise; left +0.05 w, top +0.1 h, right +0.05 w
        cand(200, 60, 16, 16, "(checked)", kind="checkbox"),  # 3 found but says a state it lacks
        cand(300, 100, 400, 30, "Region: Any", kind="row"),  # 4 merged: 5 and 6 not seen
        cand(300, 200, 400, 30, "Silver"),  # 7 seen, its box not: ambiguous, 1 of 1 unseen
        cand(10, 300, 16, 16, "checked", kind="checkbox"),  # 9 with its state named
        cand(900, 450, 50, 20, "Help"),  # matches nothing
    ]
    counts = TierCounts()
    count_call(regions, cands, VIEW, counts)
    assert (counts.calls, counts.regions, counts.candidates) == (1, 11, 7)
    assert (counts.rows_identifiable, counts.rows_merged) == (1, 1)
    assert counts.ambiguous_rows == [[1, 1]]
    # missable outside merged/ambiguous rows: 2 (missed), 3 (found), 9 (found)
    assert (counts.missable, counts.missed) == (3, 1)
    # labelled matches: Save, Cancel (noisy), Region: Any, Silver
    assert (counts.labelled, counts.noisy) == (4, 1)
    assert (counts.stateful, counts.state_seen) == (1, 1)
    assert counts.unseen_never_missed == 1 and counts.unmatched_candidates == 1
    # offsets: 0 exact, 1 (0.05, 0.1, 0.05, 0.1), 3 exact, 7 exact, 9 exact (4 merged: left out)
    assert len(counts.offsets) == 20
    assert sorted(round(o, 6) for o in counts.offsets)[-4:] == [0.05, 0.05, 0.1, 0.1]
    assert sum(o == 0 for o in counts.offsets) == 16


def test_a_row_whose_members_are_seen_is_not_merged() -> None:
    regions = [r.model_copy(update={"row": 0}) if r.row == 4 else r for r in page()[4:7]]
    cands = [cand(300, 100, 400, 30, "Region: Any"), cand(310, 105, 100, 20, "Region")]
    counts = TierCounts()
    count_call(regions, cands, VIEW, counts)
    assert (counts.rows_identifiable, counts.rows_merged) == (1, 0)
    # the chevron of an unmerged row is a missable region, missed here
    assert (counts.missable, counts.missed) == (1, 1)


# --------------------------------------------------------------------------- estimating


def test_estimates_follow_their_definitions_on_known_counts() -> None:
    small = TierCounts(rows_identifiable=40, rows_merged=10, missable=200, missed=50,
                       labelled=300, noisy=30, stateful=10, state_seen=4,
                       offsets=[0.01 * k for k in range(1, 102)])
    large = TierCounts(rows_identifiable=40, rows_merged=5, missable=200, missed=25,
                       labelled=100, noisy=10)
    est = estimate(small, large)
    assert est["merge_row_p"].value == pytest.approx(0.25)
    assert est["miss_small_p"].value == pytest.approx(0.25)  # no ambiguous rows: k / n
    assert est["label_noise_p"].value == pytest.approx(40 / 400, abs=1e-3)  # both tiers pooled
    assert est["state_seen_p"].value == pytest.approx(0.4)
    # twice the median |offset| (0.51) is over the config's limit: capped, and said so
    assert est["jitter"].value == 0.5 and "capped" in est["jitter"].basis
    # the large tier erred at half the small tier's rates
    assert est["large_tier_error_scale"].value == pytest.approx(0.5, abs=0.002)
    assert all(e.measured for e in est.values())
    small_offsets = TierCounts(offsets=[0.02, 0.04, 0.06])
    assert estimate(small_offsets, TierCounts())["jitter"].value == pytest.approx(0.08)


def test_ambiguous_rows_enter_the_miss_likelihood_through_the_merge_rate() -> None:
    # 10 missed of 40 plain; 20 one-member rows all unseen, 20 one-member rows seen.
    counts = TierCounts(missable=40, missed=10, ambiguous_rows=[[1, 1]] * 20 + [[1, 0]] * 20)
    best = lambda g: max((k / 1000 for k in range(1001)),
                         key=lambda p: miss_loglik(p, g, counts))
    # g = 0: an unseen member was missed: 30 of 80
    assert best(0.0) == pytest.approx(30 / 80, abs=1e-3)
    # g = 1/3: P(unseen) = g + (1 - g) p; seen rows 20 of 40, so 1/2 = 1/3 + 2/3 p, p = 1/4 from
    # them, and 1/4 from the plain ones: the joint maximum is 1/4
    assert best(1 / 3) == pytest.approx(0.25, abs=2e-3)
    est = estimate(TierCounts(rows_identifiable=30, rows_merged=10, missable=40, missed=10,
                              ambiguous_rows=counts.ambiguous_rows), TierCounts())
    assert est["miss_small_p"].value == pytest.approx(0.25, abs=2e-3)


def test_an_unobserved_parameter_keeps_the_default_and_says_so() -> None:
    est = estimate(TierCounts(missable=10, missed=2), TierCounts())
    default = SyntheticConfig()
    assert not est["merge_row_p"].measured and est["merge_row_p"].value == default.merge_row_p
    assert not est["state_seen_p"].measured
    assert not est["large_tier_error_scale"].measured
    assert est["miss_small_p"].measured


def test_a_written_profile_loads_as_a_perception_config(tmp_path: Path) -> None:
    est = {"miss_small_p": Estimate(0.6, True, "6 missed of 10"),
           "merge_row_p": Estimate(0.2, True, "1 merged of 5"),
           "jitter": Estimate(0.5, True, "2 x median"),
           "label_noise_p": Estimate(0.25, True, "1 differ of 4"),
           "state_seen_p": Estimate(0.0, False, "no matched state: default"),
           "large_tier_error_scale": Estimate(0.4, True, "large tier")}
    config = profile_config("unit", est, {"small": 24, "large": 80},
                            {"small": 1200.0, "large": 3000.0})
    meta = {"backend": "ocr", "command": "groundbench-calibrate perception=ocr --name unit",
            "seeds": [0], "pages": 1, "observations": 1}
    path = write_profile("unit", config, est, {"small": TierCounts(), "large": TierCounts()}, [],
                         meta, tmp_path / "perception")
    assert path.name == "synthetic_unit.yaml"
    text = path.read_text()
    assert "NOT MEASURED, no matched state" in text and "6 missed of 10" in text
    assert json.loads(path.with_suffix(".json").read_text())["estimates"]["jitter"]["value"] == 0.5
    cfg, _ = compose_run_config(["perception=synthetic_unit", f"hydra.searchpath=[file://{tmp_path}]"])
    assert isinstance(cfg.perception, SyntheticConfig)
    assert cfg.perception == config
    assert cfg.config_name == "full/synthetic_unit/scripted"
    # The hand-set profile keeps its name and its hash (no `profile` key in it).
    plain, _ = compose_run_config(["perception=synthetic"])
    assert plain.config_name == "full/synthetic/scripted"
    assert "profile" not in yaml.safe_load((REPO / "conf/perception/synthetic.yaml").read_text())


def test_the_command_is_a_console_script() -> None:
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["groundbench-calibrate"] == "harness.calibrate:main"


def test_bad_input_is_exit_2_with_one_line(capsys: pytest.CaptureFixture) -> None:
    assert calibrate.main(["perception=none", "--name", "x"]) == 2
    assert "nothing to calibrate" in capsys.readouterr().err
    assert calibrate.main(["perception=synthetic", "perception.nope=1", "--name", "x"]) == 2
    assert "perception.nope" in capsys.readouterr().err
    assert calibrate.main(["perception=synthetic", "suite.ids=[no-such-task]", "--name", "x"]) == 2
    assert "no-such-task" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        calibrate.main(["perception=synthetic"])  # no --name
    assert exc.value.code == 2


# --------------------------------------------------------------------------- prediction


def runs(tmp_path: Path) -> tuple[Path, Path, Path]:
    real, good, bad = [], [], []
    for s in range(10):
        real += [episode("full/ocr/scripted", "a", s, s < 8, 2, ["x"]),
                 episode("full/ocr/scripted", "b", s, s < 2, 2, ["x"])]
        good += [episode("full/synthetic_ocr/scripted", "a", s, s < 7, 2, ["x"]),
                 episode("full/synthetic_ocr/scripted", "b", s, s < 4, 2, ["x"])]
        bad += [episode("full/synthetic/scripted", "a", s, True, 2, ["x"]),
                episode("full/synthetic/scripted", "b", s, True, 2, ["x"])]
    bad.append(episode("full/synthetic/scripted", "c", 0, True, 2, ["x"]))  # not in the others
    return (write_run(tmp_path / "real", real), write_run(tmp_path / "good", good),
            write_run(tmp_path / "bad", bad))


def test_prediction_error_per_task_and_overall(tmp_path: Path) -> None:
    real, good, bad = runs(tmp_path)
    from harness.metrics import load_episodes

    table, overall = prediction_table(load_episodes([real]), {
        "synthetic_ocr": load_episodes([good]), "synthetic": load_episodes([bad])})
    table = table.set_index("task")
    assert list(table.index) == ["a", "b"]  # task c is in one run only
    assert table.loc["a", "measured"] == pytest.approx(0.8)
    assert table.loc["b", "synthetic_ocr error"] == pytest.approx(0.2)
    assert table.loc["a", "synthetic error"] == pytest.approx(0.2)
    assert table.loc["b", "synthetic error"] == pytest.approx(0.8)
    assert list(table["seeds"]) == [10, 10]
    row = overall.set_index("profile")
    assert row.loc["synthetic_ocr", "mean absolute error"] == pytest.approx(0.15)
    assert row.loc["synthetic_ocr", "difference"] == pytest.approx(0.55 - 0.5)
    assert row.loc["synthetic", "mean absolute error"] == pytest.approx(0.5)
    assert row.loc["synthetic", "largest error"] == pytest.approx(0.8)
    assert row.loc["(measured)", "success"] == pytest.approx(0.5)


def test_compare_prints_the_table(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    real, good, bad = runs(tmp_path)
    assert calibrate.main(["--compare", str(real), str(good), str(bad)]) == 0
    out = capsys.readouterr().out
    assert "| a | 10 | 0.80 | 0.70 | 0.10 | 1.00 | 0.20 |" in out
    assert "| task | seeds | measured | synthetic_ocr | synthetic_ocr error | synthetic |" in out
    assert "| synthetic_ocr | 0.550 | +0.050 | 0.150 | 0.200 |" in out
    assert calibrate.main(["--compare", str(real), str(tmp_path / "missing")]) == 2


# --------------------------------------------------------------------------- end to end


KNOWN = {"miss_small_p": 0.55, "merge_row_p": 0.35, "jitter": 0.12, "label_noise_p": 0.15,
         "state_seen_p": 0.5, "large_tier_error_scale": 0.8}


def binomial_ok(k: int, n: int, p: float, sigmas: float = 3.0) -> bool:
    return n > 0 and abs(k / n - p) <= sigmas * math.sqrt(p * (1 - p) / n) + 1e-9


@pytest.mark.browser
def test_calibrating_the_synthetic_backend_recovers_its_parameters(tmp_path: Path) -> None:
    """The synthetic backend with known parameters (each away from its default) on one start
    page, the settings page (rows with a text member and a toggle, radio rows, expanded
    sections), 6 seeds: every estimate lies near the value set, and the profile loads. The
    synthetic backend is deterministic for (seed, page), so the test is repeatable; tolerances are
    3 binomial standard errors of the counts the estimate came from (jitter 10%, scale 0.2)."""
    out = tmp_path / "conf" / "perception"
    overrides = [f"perception.{k}={v}" for k, v in KNOWN.items()]
    code = calibrate.main(["perception=synthetic", "perception.occlusion=true", *overrides,
                           "suite=fixtures", "suite.ids=[settings-email-on]",
                           "seeds=[0,1,2,3,4,5]", "--name", "selftest", "--out-dir", str(out)])
    assert code == 0
    detail = json.loads((out / "synthetic_selftest.json").read_text())
    assert detail["page_errors"] == 0 and detail["observations"] == 6
    assert {p["path"] for p in detail["pages"]} == {"/settings/index.html"}
    small, large = detail["counts"]["small"], detail["counts"]["large"]
    est = {k: v["value"] for k, v in detail["estimates"].items()}
    assert all(v["measured"] for v in detail["estimates"].values())
    assert small["rows_identifiable"] >= 15 and small["missable"] >= 10
    assert binomial_ok(small["rows_merged"], small["rows_identifiable"], KNOWN["merge_row_p"])
    n_miss = small["missable"] + sum(small["ambiguous_rows"].values())
    assert abs(est["miss_small_p"] - KNOWN["miss_small_p"]) <= 3 * math.sqrt(0.25 / n_miss)
    labelled = small["labelled"] + large["labelled"]
    assert binomial_ok(small["noisy"] + large["noisy"], labelled, KNOWN["label_noise_p"])
    assert binomial_ok(small["state_seen"] + large["state_seen"],
                       small["stateful"] + large["stateful"], KNOWN["state_seen_p"])
    assert est["jitter"] == pytest.approx(KNOWN["jitter"], rel=0.1)
    assert est["large_tier_error_scale"] == pytest.approx(KNOWN["large_tier_error_scale"], abs=0.2)
    # the synthetic backend has nothing the model does not: no unseen text control, no stray box
    assert small["unseen_never_missed"] == 0 and small["unmatched_candidates"] == 0
    cfg, _ = compose_run_config(["perception=synthetic_selftest",
                                 f"hydra.searchpath=[file://{out.parent}]"])
    assert isinstance(cfg.perception, SyntheticConfig)
    assert cfg.perception.profile == "selftest" and cfg.perception.occlusion
    assert cfg.perception.miss_small_p == est["miss_small_p"]
    assert cfg.perception.cap == SyntheticConfig().cap  # the calibrated backend's own caps


def _tier_from_json(c: dict) -> TierCounts:
    ambiguous = []
    for key, n in c["ambiguous_rows"].items():
        j, k = (int(part.split()[0]) for part in key.split(", "))
        ambiguous += [[j, k]] * n
    fields = ("rows_identifiable", "rows_merged", "missable", "missed", "labelled", "noisy",
              "stateful", "state_seen")
    return TierCounts(**{f: c[f] for f in fields}, ambiguous_rows=ambiguous)


def test_the_shipped_ocr_profile_loads_and_follows_from_its_counts() -> None:
    """conf/perception/synthetic_ocr.yaml is what the estimators make of the counts written
    beside it (the jitter's edge offsets are kept only as a count), and it loads."""
    detail = json.loads((REPO / "conf/perception/synthetic_ocr.json").read_text())
    assert detail["backend"] == "ocr" and detail["page_errors"] == 0
    small, large = (_tier_from_json(detail["counts"][t]) for t in ("small", "large"))
    again = estimate(small, large)
    cfg, resolved = compose_run_config(["perception=synthetic_ocr"])
    assert isinstance(cfg.perception, SyntheticConfig) and cfg.perception.profile == "ocr"
    for key, e in again.items():
        if key != "jitter":
            assert getattr(cfg.perception, key) == e.value, key
    edges = sum(detail["counts"][t]["edge_offsets"] for t in ("small", "large"))
    assert f"of {edges} edge offsets" in detail["estimates"]["jitter"]["basis"]
    assert cfg.perception.cap == {"small": 24, "large": 80}  # conf/perception/ocr.yaml's caps
    assert cfg.perception.capture and cfg.perception.occlusion
    from harness.cli import derived_name

    assert derived_name(resolved, [], None) == "full/synthetic_ocr/scripted"
