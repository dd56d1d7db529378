"""The README is a short guide and everything else lives in the mkdocs site under docs/: the README
stays short and undated, names the two commands, and links only to pages and headings that exist;
every page under docs/ is in mkdocs.yml's nav."""

from __future__ import annotations

import re
from pathlib import Path

import markdown
import yaml

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
DOCS = REPO / "docs"
MAX_README_LINES = 250

# [text](target) with a relative target: no scheme, not a bare in-page anchor.
LINK = re.compile(r"\[[^\]]*\]\((?![a-z][a-z0-9+.-]*:|#)([^)\s]+)\)")
DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
TIME = re.compile(r"(?<![\d.:])\d{1,2}:\d{2}(?![\d:])")


def anchors(page: Path) -> set[str]:
    """The anchors of a page's headings, as mkdocs makes them (Python-Markdown's toc extension)."""
    md = markdown.Markdown(extensions=["toc", "tables", "fenced_code"])
    md.convert(page.read_text())

    def ids(tokens: list[dict]) -> set[str]:
        found: set[str] = set()
        for token in tokens:
            found |= {token["id"]} | ids(token["children"])
        return found

    return ids(md.toc_tokens)


def nav_pages(nav: object) -> set[str]:
    """Every page path named anywhere in a mkdocs nav (lists, sections, titled entries)."""
    if isinstance(nav, str):
        return {nav}
    if isinstance(nav, list):
        return set().union(*(nav_pages(item) for item in nav))
    if isinstance(nav, dict):
        return set().union(*(nav_pages(value) for value in nav.values()))
    return set()


def readme_lines() -> list[str]:
    return README.read_text().splitlines()


def test_readme_is_short() -> None:
    assert len(readme_lines()) <= MAX_README_LINES, (
        f"README.md has {len(readme_lines())} lines; the guide is at most {MAX_README_LINES}, "
        "the rest belongs in docs/")


def test_readme_names_the_two_commands() -> None:
    text = README.read_text()
    assert "make run" in text, "README.md must show `make run` (set up and run the main job)"
    assert "make test" in text, "README.md must show `make test` (run the tests)"


def test_readme_links_point_to_existing_pages_and_headings() -> None:
    links = [target for line in readme_lines() for target in LINK.findall(line)]
    assert any(t.startswith("docs/") for t in links), "README.md links to no page under docs/"
    broken = []
    for target in links:
        path, _, anchor = target.partition("#")
        page = (REPO / path).resolve()
        if not page.exists():
            broken.append(f"{target}: no file {path}")
        elif anchor and anchor not in anchors(page):
            broken.append(f"{target}: {path} has no heading with anchor #{anchor}")
    assert not broken, "README.md has broken links:\n" + "\n".join(broken)


def test_readme_holds_no_dates_or_times() -> None:
    dated = [f"{n}: {line}" for n, line in enumerate(readme_lines(), 1)
             if DATE.search(line) or TIME.search(line)]
    assert not dated, ("README.md holds dated material (measurement logs belong in "
                       "docs/history.md):\n" + "\n".join(dated))


def test_every_docs_page_is_in_the_nav() -> None:
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text())
    listed = nav_pages(config.get("nav", []))
    pages = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    assert pages, "docs/ holds no page"
    assert not pages - listed, f"pages missing from mkdocs.yml's nav: {sorted(pages - listed)}"
    assert not listed - pages, f"nav names pages that do not exist: {sorted(listed - pages)}"
