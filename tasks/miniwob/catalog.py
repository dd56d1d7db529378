"""The MiniWoB++ task catalogue, generated from the installed `miniwob` package: one task per HTML
page, tagged with what MiniWoB itself says about it (nondeterministic) and with what its page code
does (time-dependent), and whether a plan builder exists for the scripted worker."""

from __future__ import annotations

import ast
import importlib.util
import re
from functools import cache
from importlib import metadata as importlib_metadata
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from tasks.miniwob.plans import PLAN_BUILDERS

# The package version whose utterances the plan builders were written against.
SUPPORTED_VERSION = "1.1.0"
# Where the fixture server mounts the package's html folder; pages live under MOUNT/miniwob/.
MOUNT = "miniwob"
# A task's own script that reads the wall clock or runs timers makes its episode depend on time.
_TIME_CALLS = re.compile(r"setInterval\(|setTimeout\(|new Date\(\)|Date\.now\(")


class MiniwobNotInstalledError(LookupError):
    """suite=miniwob without the `miniwob` package (or with a version the plans do not know)."""


class MiniwobTask(BaseModel):
    """One MiniWoB++ task type. Its plan is built per episode from the utterance the page shows."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str = Field(pattern=r"^miniwob\.[a-z0-9][a-z0-9_.-]*$")
    task_type: str
    version: int = 1
    tags: list[str]
    # Success: MiniWoB's raw reward (WOB_RAW_REWARD_GLOBAL) reaches this; a partial reward is not.
    threshold: float = 1.0
    nondeterministic: str = Field("", description="MiniWoB's own reason, from its registration")
    time_dependent: str = Field("", description="the timer or clock call in the task's page")
    allowed_domains: list[str] = Field(default_factory=lambda: ["main"])

    @property
    def start(self) -> str:
        return f"/{MOUNT}/miniwob/{self.task_type}.html"

    @property
    def planned(self) -> bool:
        return self.task_type in PLAN_BUILDERS


def html_root() -> Path:
    """The installed package's html folder (found without importing the package, which would
    pull in gymnasium)."""
    spec = importlib.util.find_spec("miniwob")
    if spec is None or not spec.submodule_search_locations:
        raise MiniwobNotInstalledError(
            "suite=miniwob needs the miniwob package: pip install 'groundbench[miniwob]'")
    version = importlib_metadata.version("miniwob")
    if version != SUPPORTED_VERSION:
        raise MiniwobNotInstalledError(
            f"miniwob {version} is installed; the MiniWoB plan builders are written for "
            f"{SUPPORTED_VERSION}: pip install 'miniwob=={SUPPORTED_VERSION}'")
    root = Path(next(iter(spec.submodule_search_locations))) / "html"
    if not (root / "miniwob").is_dir() or not (root / "core" / "core.js").is_file():
        raise MiniwobNotInstalledError(f"{root} does not hold MiniWoB's miniwob/ and core/ folders")
    return root


def nondeterministic_marks(package_dir: Path) -> dict[str, str]:
    """Task types MiniWoB's gymnasium registration marks `nondeterministic=True`, each with the
    comment MiniWoB wrote next to the mark (the reason)."""
    source = (package_dir / "registration.py").read_text()
    lines = source.splitlines()
    marks: dict[str, str] = {}
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "register"):
            continue
        kw = {k.arg: k.value for k in node.keywords}
        flag = kw.get("nondeterministic")
        env_id = kw.get("id")
        if not (isinstance(flag, ast.Constant) and flag.value is True and isinstance(env_id, ast.Constant)):
            continue
        name = str(env_id.value).removeprefix("miniwob/").removesuffix("-v1")
        line = lines[flag.lineno - 1]
        marks[name] = line.split("#", 1)[1].strip() if "#" in line else "marked nondeterministic"
    return marks


def time_dependence(page: Path) -> str:
    """The first clock or timer call in a task page's own script ('' when there is none)."""
    hit = _TIME_CALLS.search(page.read_text(errors="replace"))
    return f"its page calls {hit.group(0).rstrip('(')}" if hit else ""


@cache
def _catalogue(root: Path) -> dict[str, MiniwobTask]:
    nondeterministic = nondeterministic_marks(root.parent)
    registry: dict[str, MiniwobTask] = {}
    for page in sorted((root / "miniwob").glob("*.html")):
        name = page.stem
        reason_nd = nondeterministic.get(name, "")
        reason_time = time_dependence(page)
        tags = ["miniwob", "planned" if name in PLAN_BUILDERS else "unplanned"]
        tags += ["nondeterministic"] if reason_nd else []
        tags += ["time-dependent"] if reason_time else []
        task = MiniwobTask(id=f"miniwob.{name}", task_type=name, tags=tags,
                           nondeterministic=reason_nd, time_dependent=reason_time)
        registry[task.id] = task
    return registry


def load_miniwob_tasks() -> dict[str, MiniwobTask]:
    """Every task type in the installed package, by id (`miniwob.<task type>`)."""
    return dict(_catalogue(html_root()))
