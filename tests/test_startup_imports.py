"""What a run imports before its browser starts: numpy, pyarrow and pandas (about 0.3 s together)
are imported on a thread while the browser launches (harness/runner.py), or only by the code that
needs them (pictures, OCR, a BrowserGym agent's observation), never by the modules the command
and the agent load at start."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("numpy", "pyarrow", "pandas", "cv2")
STARTUP = ("harness.cli", "harness.runner", "harness.config", "harness.policies", "agents.agent",
           "agents.factory", "agents.perception.registry", "agents.worker.registry")


def test_the_command_starts_without_numpy_pyarrow_or_pandas() -> None:
    code = (f"import importlib, sys\nfor m in {STARTUP!r}: importlib.import_module(m)\n"
            f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert loaded.stdout.strip() == "", f"imported at start: {loaded.stdout.strip()}"
