"""Bad input found before any browser starts: the command line ends with exit code 2 and one
paragraph that names the file or key and the fix, with a traceback only under --verbose."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

GROUNDBENCH = str(Path(sys.executable).parent / "groundbench")
BAD_TASK = "id: no-goal\nsite: shop\nstart: /shop/index.html\nplan: []\nsuccess: []\n"


def bad_task_dir(tmp_path: Path) -> str:
    folder = tmp_path / "tasks"
    folder.mkdir()
    (folder / "no-goal.yaml").write_text(BAD_TASK)
    return str(folder)


CASES = {
    "invalid task file": (lambda t: [f"tasks.dirs=[{bad_task_dir(t)}]"], {},
                          ["no-goal.yaml", "field 'goal'", "Fix that field", "tasks.dirs"]),
    "unknown config key": (lambda t: ["agent.gatting=false"], {},
                           ["unknown config key 'agent.gatting'", "conf/", "Did you mean 'agent.gating'?"]),
    "unknown config option": (lambda t: ["perception=gpt"], {},
                              ["perception/gpt", "Available options", "synthetic", "conf/"]),
    "unknown task id": (lambda t: ["suite.ids=[shop-cuopon]"], {},
                        ["'shop-cuopon'", "shop-coupon", "suite.ids", "groundbench tasks"]),
    "missing browser (config)": (lambda t: ["browser.executable=/nonexistent/chrome"], {},
                                 ["browser.executable=/nonexistent/chrome does not exist",
                                  "playwright install chromium", "apt-get install -y chromium"]),
    "missing browser (variable)": (lambda t: [], {"GROUNDBENCH_CHROMIUM": "/nonexistent/chromium"},
                                   ["GROUNDBENCH_CHROMIUM=/nonexistent/chromium does not exist",
                                    "playwright install chromium", "apt-get install -y chromium"]),
}
VERBOSE = ("unknown config key", "unknown task id")


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, bool], tuple[int, str, str]]:
    """Every case (and the --verbose ones again) run at once: (case, verbose) -> (code, out, err)."""
    procs = {}
    for case, verbose in [*((c, False) for c in CASES), *((c, True) for c in VERBOSE)]:
        tmp = tmp_path_factory.mktemp("bad")
        args, env, _ = CASES[case]
        procs[case, verbose] = subprocess.Popen(
            [GROUNDBENCH, *(["--verbose"] if verbose else []), *args(tmp), f"hydra.run.dir={tmp / 'run'}"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, **env})
    done = {key: proc.communicate(timeout=120) for key, proc in procs.items()}
    return {key: (procs[key].returncode, *done[key]) for key in procs}


@pytest.mark.parametrize("case", CASES)
def test_bad_input_is_one_paragraph_and_exit_2(ran: dict, case: str) -> None:
    code, out, err = ran[case, False]
    assert code == 2, err[-2000:]
    message = err.strip()
    assert message.startswith("groundbench: ") and "\n" not in message, message
    assert "Traceback" not in err and out == ""
    for needle in CASES[case][2]:
        assert needle in message, (needle, message)


@pytest.mark.parametrize("case", VERBOSE)
def test_verbose_shows_the_traceback(ran: dict, case: str) -> None:
    code, _, err = ran[case, True]
    assert code != 0 and "Traceback" in err
