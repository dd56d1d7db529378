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

from harness.browser import SYSTEM_CHROMIUMS, SYSTEM_HEADLESS_SHELLS, playwright_bundled_chromium

DEBIAN_PACKAGES = {"chromium": SYSTEM_CHROMIUMS, "chromium-headless-shell": SYSTEM_HEADLESS_SHELLS}


def _first(paths: tuple[str, ...]) -> str | None:
    return next((p for p in paths if os.path.isfile(p)), None)


def found() -> tuple[str | None, list[str]]:
    """The browser runs will use (None: none), and the Debian packages still worth installing."""
    with sync_playwright() as pw:
        bundled = playwright_bundled_chromium(pw)
    if bundled:
        return bundled, []
    missing = [pkg for pkg, paths in DEBIAN_PACKAGES.items() if _first(paths) is None]
    return _first(SYSTEM_HEADLESS_SHELLS) or _first(SYSTEM_CHROMIUMS), missing


def apt_install(packages: list[str]) -> bool:
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    return subprocess.run(["apt-get", "install", "-y", "-qq", *packages], env=env, check=False).returncode == 0


def main() -> int:
    path, missing = found()
    if missing and os.geteuid() == 0 and shutil.which("apt-get"):
        print(f"browser: installing Debian's {' '.join(missing)} with apt-get", flush=True)
        if not apt_install(missing) and len(missing) > 1:
            apt_install(["chromium"])  # an older Debian without the headless shell package
        path, missing = found()
    if path:
        print(f"browser: {path}")
        if "chromium-headless-shell" in missing:
            print("browser: no headless shell (`apt-get install chromium-headless-shell`); headless "
                  "runs use full Chromium, about 2x slower per episode", file=sys.stderr)
        return 0
    print("groundbench needs Chromium. Install one of:\n"
          "  .venv/bin/playwright install chromium     (Playwright's own build)\n"
          "  sudo apt-get install chromium chromium-headless-shell   (Debian/Ubuntu)\n"
          "or run with browser.executable=/path/to/chrome.", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
