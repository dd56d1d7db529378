"""`make` helper: make sure a Chromium exists for Playwright to drive.

Playwright's own browser if installed; else a system Chromium; else, as root on Debian, install
Debian's `chromium`; else say exactly what to install. Exit code 0 only when a browser is there."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from playwright.sync_api import sync_playwright

from harness.browser import SYSTEM_CHROMIUMS


def found() -> str | None:
    with sync_playwright() as pw:
        bundled = pw.chromium.executable_path
    if bundled and os.path.isfile(bundled):
        return bundled
    return next((p for p in SYSTEM_CHROMIUMS if os.path.isfile(p)), None)


def main() -> int:
    path = found()
    if path:
        print(f"browser: {path}")
        return 0
    if os.geteuid() == 0 and shutil.which("apt-get"):
        print("browser: none found; installing Debian's chromium with apt-get", flush=True)
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
        subprocess.run(["apt-get", "install", "-y", "-qq", "chromium"], check=True, env=env)
        path = found()
        if path:
            print(f"browser: {path}")
            return 0
    print("groundbench needs Chromium. Install one of:\n"
          "  .venv/bin/playwright install chromium     (Playwright's own build)\n"
          "  sudo apt-get install chromium             (Debian/Ubuntu)\n"
          "or run with browser.executable=/path/to/chrome.", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
