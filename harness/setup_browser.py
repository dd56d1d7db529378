"""`make` helper: make sure a Chromium exists for Playwright to drive.

Playwright's own browser if installed; else a system Chromium, with its headless shell for
headless runs; as root on Debian, what is missing of `chromium` and `chromium-headless-shell` is
installed with apt-get; else say exactly what to install. Exit code 0 only when a browser is there."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from playwright.sync_api import sync_playwright

from harness.browser import (
    SYSTEM_CHROMIUMS,
    SYSTEM_HEADLESS_SHELLS,
    BrowserNotFoundError,
    find_chromium,
    playwright_bundled_chromium,
)

DEBIAN_PACKAGES = {"chromium": SYSTEM_CHROMIUMS, "chromium-headless-shell": SYSTEM_HEADLESS_SHELLS}


def missing_packages() -> list[str]:
    return [pkg for pkg, paths in DEBIAN_PACKAGES.items() if not any(os.path.isfile(p) for p in paths)]


def found() -> tuple[str | None, list[str], str]:
    """The browser a headless run will use, chosen as runs choose it (None: none), the Debian
    packages still worth installing (none when Playwright's own browser is there), and why there
    is no browser ("" when there is one)."""
    with sync_playwright() as pw:
        try:
            chosen = find_chromium(pw)
        except BrowserNotFoundError as exc:
            return None, missing_packages(), str(exc)
        if chosen is None:  # Playwright's own browser
            return playwright_bundled_chromium(pw), [], ""
    return chosen, missing_packages(), ""


def apt_install(packages: list[str]) -> bool:
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    return subprocess.run(["apt-get", "install", "-y", "-qq", *packages], env=env, check=False).returncode == 0


def main() -> int:
    path, missing, problem = found()
    if missing and os.geteuid() == 0 and shutil.which("apt-get"):
        print(f"browser: installing Debian's {' '.join(missing)} with apt-get", flush=True)
        if not apt_install(missing) and len(missing) > 1:
            apt_install(["chromium"])  # an older Debian without the headless shell package
        path, missing, problem = found()
    if path is None:
        print(f"groundbench needs Chromium. {problem}", file=sys.stderr)
        return 1
    print(f"browser: {path}")
    if "chromium-headless-shell" in missing:
        print("browser: no headless shell (`apt-get install chromium-headless-shell`); headless "
              "runs use full Chromium, which is slower (README, Performance)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
