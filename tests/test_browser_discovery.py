"""Which browser `browser.executable=auto` picks: Playwright's own when installed, else the
system's headless shell for headless runs and full Chromium for headed ones."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from harness import browser


def fake_playwright(bundled: Path | None) -> SimpleNamespace:
    return SimpleNamespace(chromium=SimpleNamespace(executable_path=str(bundled) if bundled else ""))


@pytest.fixture
def system(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    paths = {name: tmp_path / name for name in ("chromium", "chromium-headless-shell")}
    for path in paths.values():
        path.write_text("#!/bin/sh\n")
    monkeypatch.setattr(browser, "SYSTEM_CHROMIUMS", (str(paths["chromium"]),))
    monkeypatch.setattr(browser, "SYSTEM_HEADLESS_SHELLS", (str(paths["chromium-headless-shell"]),))
    monkeypatch.setattr(browser.shutil, "which", lambda name: None)
    monkeypatch.delenv(browser.CHROMIUM_ENV, raising=False)
    return paths


def test_headless_runs_take_the_headless_shell_and_headed_runs_full_chromium(system: dict[str, Path]) -> None:
    pw = fake_playwright(None)
    assert browser.find_chromium(pw) == str(system["chromium-headless-shell"])
    assert browser.find_chromium(pw, headless=False) == str(system["chromium"])
    system["chromium-headless-shell"].unlink()
    assert browser.find_chromium(pw) == str(system["chromium"])


def test_playwrights_own_browser_wins_and_a_given_path_wins_over_all(
        system: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bundled = tmp_path / "ms-playwright-chrome"
    bundled.write_text("")
    assert browser.find_chromium(fake_playwright(bundled)) is None  # Playwright launches its own
    assert browser.find_chromium(fake_playwright(bundled), str(system["chromium"])) == str(system["chromium"])
    monkeypatch.setenv(browser.CHROMIUM_ENV, str(system["chromium"]))
    assert browser.find_chromium(fake_playwright(bundled)) == str(system["chromium"])


def test_no_browser_names_what_to_install(system: dict[str, Path]) -> None:
    for path in system.values():
        path.unlink()
    with pytest.raises(browser.BrowserNotFoundError, match="chromium-headless-shell"):
        browser.find_chromium(fake_playwright(None))


def test_setup_reports_the_browser_runs_use_and_the_debian_packages_missing(
        system: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    from harness import setup_browser

    monkeypatch.setattr(browser, "playwright_bundled_chromium", lambda pw: None)
    monkeypatch.setattr(setup_browser, "DEBIAN_PACKAGES", {
        "chromium": browser.SYSTEM_CHROMIUMS, "chromium-headless-shell": browser.SYSTEM_HEADLESS_SHELLS})
    assert setup_browser.found() == (str(system["chromium-headless-shell"]), [], "")
    system["chromium-headless-shell"].unlink()
    assert setup_browser.found() == (str(system["chromium"]), ["chromium-headless-shell"], "")
    system["chromium"].unlink()
    path, missing, problem = setup_browser.found()
    assert path is None and missing == ["chromium", "chromium-headless-shell"]
    assert "chromium-headless-shell" in problem
