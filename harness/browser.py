"""Finds and launches the Chromium every worker process shares, and opens one fresh context per
episode with the episode's cookies set, so server-side state is isolated per episode."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from urllib.parse import urlsplit

from playwright.async_api import Browser, BrowserContext, Playwright
from pydantic import BaseModel, ConfigDict

from sites.server import EPISODE_COOKIE, SEED_COOKIE

SYSTEM_CHROMIUMS = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
# Chromium's headless shell (Debian's `chromium-headless-shell`): the same Blink without the full
# browser around it, what Playwright itself runs for headless launches. A fresh context with one
# page costs it about a third of the wall time and a quarter of the CPU of full Chromium's new
# headless mode on the machines this project measures on (one renderer process instead of about
# three: full Chromium swaps processes on the first navigation and keeps a spare renderer warm).
SYSTEM_HEADLESS_SHELLS = ("/usr/bin/chromium-headless-shell", "/usr/lib/chromium/chromium-headless-shell")
CHROMIUM_ARGS = (
    "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run", "--disable-quic", "--disable-dev-shm-usage",
)


class BrowserNotFoundError(RuntimeError):
    pass


class BrowserSettings(BaseModel):
    """The browser every episode runs in: Hydra's `browser` group (conf/browser/), validated once
    as part of the run config, and what `launch` and `new_episode_context` take."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    executable: str = "auto"
    headless: bool = True
    width: int = 1280
    height: int = 720
    device_scale_factor: float = 1.0
    extra_args: tuple[str, ...] = ()


def playwright_bundled_chromium(pw: Playwright) -> str | None:
    path = pw.chromium.executable_path
    return path if path and Path(path).is_file() else None


INSTALL = ("Install one of: Playwright's browser (`.venv/bin/playwright install chromium`), or "
           "Debian's (`apt-get install -y chromium chromium-headless-shell`), or set "
           "browser.executable=/path/to/chrome.")
CHROMIUM_ENV = "GROUNDBENCH_CHROMIUM"


def find_chromium(pw: Playwright, configured: str = "auto", headless: bool = True) -> str | None:
    """The configured path, else $GROUNDBENCH_CHROMIUM, else Playwright's own browser if
    installed, else a system one: for headless runs the headless shell if there is one, else
    Chromium. A path that is given (config or variable) must exist.

    Returns None for Playwright's bundled browser (Playwright then launches it itself, its
    headless shell for headless runs)."""
    if configured != "auto":
        if not Path(configured).is_file():
            raise BrowserNotFoundError(f"browser.executable={configured} does not exist. Set "
                                       f"browser.executable=auto to find a browser. {INSTALL}")
        return configured
    from_env = os.environ.get(CHROMIUM_ENV)
    if from_env:
        if not Path(from_env).is_file():
            raise BrowserNotFoundError(f"{CHROMIUM_ENV}={from_env} does not exist. Unset it to find "
                                       f"a browser. {INSTALL}")
        return from_env
    if playwright_bundled_chromium(pw):
        return None
    shells = SYSTEM_HEADLESS_SHELLS if headless else ()
    for candidate in (*shells, *SYSTEM_CHROMIUMS, shutil.which("chromium")):
        if candidate and Path(candidate).is_file():
            return candidate
    raise BrowserNotFoundError(f"No Chromium found. {INSTALL}")


async def launch(pw: Playwright, settings: BrowserSettings) -> Browser:
    args = [*CHROMIUM_ARGS, *settings.extra_args]
    if os.geteuid() == 0:
        args.append("--no-sandbox")
    return await pw.chromium.launch(
        executable_path=find_chromium(pw, settings.executable, settings.headless),
        headless=settings.headless,
        args=args,
    )


async def new_episode_context(browser: Browser, settings: BrowserSettings, origins: dict[str, str],
                              episode_id: str, seed: int) -> BrowserContext:
    context = await browser.new_context(
        viewport={"width": settings.width, "height": settings.height},
        device_scale_factor=settings.device_scale_factor,
    )
    hosts = {urlsplit(o).hostname for o in origins.values()}
    await context.add_cookies([
        {"name": name, "value": value, "domain": host, "path": "/"}
        for host in hosts
        for name, value in ((EPISODE_COOKIE, episode_id), (SEED_COOKIE, str(seed)))
    ])
    return context
