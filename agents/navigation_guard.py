"""Navigation guard: scope survives shortcuts. Every request of the episode's browser context —
links, redirects hop by hop, frames, direct URLs — is pinned to the allowed origins and their
subdomains; challenge pages are not retried blindly; revisits of earlier states are detected.

Two layers: the context's route sees each request and aborts one for another origin, and fetches
each document itself to check its redirect hops (the browser does not route a hop). Subresource
hops (an image or script answered with a redirect to another origin) are checked by the browser:
every document the guard lets through carries a Content-Security-Policy naming only the allowed
origins, which the browser enforces on each hop, and a request it refuses is counted as blocked."""

from __future__ import annotations

import contextlib
import ipaddress
import re
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

from playwright.async_api import BrowserContext, Page, Request, Route
from playwright.async_api import Error as PlaywrightError
from pydantic import BaseModel

from agents.fingerprint import Fingerprint
from agents.pipeline import Episode, Mechanism, Step

REDIRECTS = frozenset({301, 302, 303, 307, 308})
MAX_HOPS = 10
CHALLENGE = re.compile(r"verify you are (a )?human|are you a robot|captcha|access denied|"
                       r"unusual traffic|security check|challenge|just a moment|"
                       r"checking your browser|attention required", re.IGNORECASE)

_TITLE_AND_HEADING_JS = "() => `${document.title} ${document.querySelector('h1')?.innerText ?? ''}`"


def _host_port(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    return parts.scheme, (parts.hostname or "").lower(), parts.port


def allowed(url: str, allowed_origins: list[str]) -> bool:
    """True for a URL on an allowed origin (exact scheme/host/port when given) or a subdomain of an
    allowed host. about:, data: and blob: URLs stay inside the page and are allowed."""
    scheme, host, port = _host_port(url)
    if scheme in ("about", "data", "blob"):
        return True
    for entry in allowed_origins:
        a_scheme, a_host, a_port = _host_port(entry if "://" in entry else f"//{entry}")
        if a_scheme and a_scheme != scheme:
            continue
        if a_port is not None and a_port != port:
            continue
        if host == a_host or host.endswith("." + a_host):
            return True
    return False


def content_policy(allowed_origins: list[str]) -> str:
    """A Content-Security-Policy that lets a page load, frame, connect to and post forms only to
    the allowed origins and their subdomains (inline and eval'd scripts stay allowed: the guard
    pins where requests go, not what the page runs)."""
    sources = []
    for entry in allowed_origins:
        scheme, host, port = _host_port(entry if "://" in entry else f"//{entry}")
        suffix = f":{port}" if port is not None else ""
        try:
            ip = ipaddress.ip_address(host)
        except ValueError:
            hosts = [host, f"*.{host}"]
        else:
            hosts = [f"[{host}]" if ip.version == 6 else host]
        # An http(s) source does not cover the same server's WebSocket (ws/wss) in CSP.
        schemes = {"http": ("http", "ws"), "https": ("https", "wss")}.get(scheme, (scheme,))
        sources += [f"{sch}://{h}{suffix}" if sch else f"{h}{suffix}" for sch in schemes for h in hosts]
    origins = " ".join(sources)
    return (f"default-src {origins} 'unsafe-inline' 'unsafe-eval' data: blob:; "
            f"form-action {origins} data: blob:")


@dataclass
class NavigationGuard:
    allowed_origins: list[str]
    blocked: list[str] = field(default_factory=list)
    challenged: set[str] = field(default_factory=set)
    _states: list[tuple[str, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.policy = content_policy(self.allowed_origins)

    async def install(self, context: BrowserContext) -> None:
        await context.route("**/*", self._on_request)
        context.on("requestfailed", self._on_failed)

    def _on_failed(self, request: Request) -> None:
        if request.failure == "csp":  # refused by the browser under the guard's policy
            self.blocked.append(f"{request.url} (a hop outside the allowed domains, content policy)")

    async def _on_request(self, route: Route) -> None:
        request = route.request
        if not allowed(request.url, self.allowed_origins):
            self.blocked.append(request.url)
            await route.abort("blockedbyclient")
            return
        if request.resource_type != "document":
            await route.continue_()
            return
        try:
            await self._follow_redirects(route)
        except PlaywrightError:
            # The fetch failed (refused, timed out, its context closed): the navigation fails, as
            # it would in the browser. Raised from a route handler, Playwright would re-raise the
            # error at the next call on the connection, in whichever episode makes it.
            with contextlib.suppress(PlaywrightError):
                await route.abort("failed")

    async def _follow_redirects(self, route: Route) -> None:
        """Redirect hops are not routed by the browser: follow them here and check every hop."""
        url, response, hops = route.request.url, await route.fetch(max_redirects=0), 0
        while response.status in REDIRECTS and hops < MAX_HOPS:
            target = urljoin(url, response.headers.get("location", ""))
            if not allowed(target, self.allowed_origins):
                self.blocked.append(target)
                await route.abort("blockedbyclient")
                return
            url, hops = target, hops + 1
            response = await route.fetch(url=url, max_redirects=0)
        if hops:
            await route.fulfill(status=302, headers={"location": url})
        else:
            headers = dict(response.headers)
            own = headers.pop("content-security-policy", "")
            # A second policy narrows the page's own: both are enforced.
            headers["content-security-policy"] = f"{own}, {self.policy}" if own else self.policy
            await route.fulfill(response=response, headers=headers)

    def drain_blocked(self) -> list[str]:
        out, self.blocked = self.blocked, []
        return out

    def check_url(self, url: str) -> bool:
        """May the agent navigate here directly? (Refused: off-scope or a known challenge page.)"""
        return allowed(url, self.allowed_origins) and url not in self.challenged

    async def is_challenge(self, page: Page) -> bool:
        """A blocked/challenge landing page; remembered so it is not retried blindly."""
        try:  # one round trip: the title and the first heading's rendered text
            text = await page.evaluate(_TITLE_AND_HEADING_JS)
        except PlaywrightError:
            return False
        if CHALLENGE.search(text):
            self.challenged.add(page.url)
            return True
        return False

    def revisit(self, url: str, dom_hash: str) -> bool:
        """Record a page state; True when it repeats an earlier, non-adjacent state."""
        state = (url, dom_hash)
        seen_before = state in self._states[:-1]
        if not self._states or self._states[-1] != state:
            self._states.append(state)
        return seen_before


class NavigationGuardConfig(BaseModel):
    navigation_guard: bool = True


class NavigationGuarding(Mechanism):
    """The guard in the pipeline: installed on the episode's context, asked before every direct
    navigation, and after every action for what it blocked, revisits and challenge landings."""

    name = "navigation_guard"

    def __init__(self) -> None:
        self.guard: NavigationGuard | None = None
        self.episode: Episode | None = None

    async def start(self, episode: Episode) -> None:
        self.episode = episode
        self.guard = NavigationGuard(list(episode.brief.allowed_origins))
        await self.guard.install(episode.page.context)

    def allows(self, url: str) -> bool:
        assert self.guard is not None
        return self.guard.check_url(url)

    async def validated(self, step: Step, before: Fingerprint | None, after: Fingerprint | None) -> None:
        assert self.guard is not None
        rec, page = step.rec, step.page
        blocked = self.guard.drain_blocked()
        rec.blocked_navigation += len(blocked)
        if blocked and not rec.error_type:
            rec.error_type, rec.error = "blocked_navigation", blocked[0][:300]
        if after is not None:
            rec.revisit = self.guard.revisit(after.url, after.dom)
        if before is not None and after is not None and before.url != after.url \
                and await self.guard.is_challenge(page):
            rec.challenge = True
            rec.error_type, rec.error = "challenge", f"{page.url} is a challenge page; going back"
            await step.episode.quiesce()  # background work was looking at the challenge page
            await page.go_back()
            await step.episode.settle()
