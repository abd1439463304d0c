r"""Screenshots of the web explorer's pages on the demo story, for docs/explorer.md.

To regenerate the committed pictures, start the stack with the demo (`make up`), then:

    .venv/bin/python tests/e2e/explorer/doc_screenshots.py --url http://127.0.0.1:8081 \
        --token-file .provgraph/admin-token --out docs/images/explorer

Each page is opened in Debian's Chromium (headless, driven by Playwright, a 1400x900
viewport) on the demo story (project `demo-llm`); the script waits for what the page renders
(its `data-node-id`, `data-field` and `data-testid` elements, every node the lineage page
counts), never for a fixed time, and writes one PNG per page. The token is typed
into the sign-in form, so it lives in the tab's sessionStorage: never in a URL. A page that
shows an error or the not-found page, or that does not render in time, stops the script with
a non-zero exit and says which.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote, urlencode

from explorer_helpers import NODES_SETTLED
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import FloatRect, Page, ViewportSize, sync_playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from provgraph.cli.demo_ids import DEPLOYED_MODEL, PROJECT, SWEEP_RUNS, ds
from provgraph.cli.demo_story import demo_events

VIEWPORT: ViewportSize = {"width": 1400, "height": 900}
WAIT_MS = 30_000

WEB_V1 = ds("web-corpus", "v1")
SWEEP = f"experiment:{PROJECT}/exp-002"  # the fine-tuning sweep (experiment #2)
CHAT = f"model:{PROJECT}/chat-1b"
CHAT_NEXT = f"{CHAT}@1.1.0"  # the sweep's model version
RESUMED_RUN = f"run:{SWEEP_RUNS[1]}"  # the sweep's #2: failed, resumed, completed, registered

# What a page shows when it did not render its answer.
FAILED = '.error[role="alert"], [data-testid="not-found"], [data-testid="sign-in-message"]'
# The page has all of its content and nothing is still loading, or it shows a failure.
_SETTLED = """([ready, failed]) =>
  !!document.querySelector(failed)
  || (ready.every(s => !!document.querySelector(s)) && !document.querySelector('.loading'))"""
HISTORY = '[data-field="history.eventType"]'  # a node card's event history has loaded
# recharts draws a line's dots once the line's animation has finished.
CHART_DRAWN = ".chart .recharts-line-dots"
# Every node of the graph is inside the graph's frame: the view has been fitted to the answer.
_FITTED = """() => {
  const frame = document.querySelector('.graph');
  const nodes = [...document.querySelectorAll('[data-node-id]')];
  if (!frame || !nodes.length) return false;
  const f = frame.getBoundingClientRect();
  return nodes.every(n => { const r = n.getBoundingClientRect();
    return r.width > 0 && r.left >= f.left && r.right <= f.right
      && r.top >= f.top && r.bottom <= f.bottom; });
}"""
_TOP = "sel => document.querySelector(sel).getBoundingClientRect().top + window.scrollY"

_SET_QUERY = (
    "q => document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.setValue(q)"
)
_ANSWER = "() => document.querySelector('.graphiql-response .CodeMirror').CodeMirror.getValue()"
_ANSWERED = """() => { const r = document.querySelector('.graphiql-response .CodeMirror');
  try { return !!r && typeof JSON.parse(r.CodeMirror.getValue()) === 'object'; }
  catch { return false; } }"""


class PageNotRendered(Exception):
    """A page showed an error or not-found, or did not render in time."""


def seg(node: str) -> str:
    """A node id as one segment of a hash route."""
    return quote(node, safe="")


def route(path: str, **params: str) -> str:
    query = urlencode(params, quote_via=quote)
    return f"{path}?{query}" if query else path


def digest_window(now: datetime) -> str:
    """A `since` window reaching back from `now` to the demo's first event (the demo's events
    are dated January 2026; the digest page counts back from now)."""
    first = min(event.occurred_at for event in demo_events())
    return f"{max(7, (now - first).days + 1)}d"


@dataclass(frozen=True)
class Shot:
    """One picture: the page's route, what shows it has rendered, and what to do before it."""

    name: str
    route: str
    ready: tuple[str, ...]  # CSS selectors of the page's content: all must be shown
    then: Callable[[Page], None] | None = None
    full_page: bool = False  # the whole page, not only the viewport
    end: str | None = None  # a full-page picture stops where this element starts


def _lineage_drawn(page: Page) -> None:
    """Every node of the answer is drawn (as many as the page counts) and the view is fitted."""
    page.wait_for_function(NODES_SETTLED, timeout=WAIT_MS)
    page.wait_for_function(_FITTED, timeout=WAIT_MS)


def _select_a_path(page: Page) -> None:
    """Shift-click the root and the deployment: the path between them is highlighted."""
    _lineage_drawn(page)
    page.locator(f'[data-node-id="{WEB_V1}"]').click(modifiers=["Shift"])
    page.locator('[data-node-type="Deployment"]').first.click(modifiers=["Shift"])
    page.get_by_test_id("selection").filter(has_text="highlighted").wait_for(timeout=WAIT_MS)
    page.locator("[data-edge].on-path").first.wait_for(timeout=WAIT_MS)


_DOSSIER_LOADED = """() => { const f = document.querySelector('iframe.dossier-frame');
  const d = f && f.contentDocument;
  return !!d && d.readyState === 'complete' && !!d.body && d.body.innerText.trim().length > 0; }"""


def _dossier_loaded(page: Page) -> None:
    """The dossier's document is laid out in its frame (the frame is as tall as it)."""
    page.wait_for_function(_DOSSIER_LOADED, timeout=WAIT_MS)


def shots(now: datetime) -> list[Shot]:
    down = {"direction": "down", "depth": "10"}
    return [
        Shot(
            "search",
            route("/search", q="chat", project=PROJECT),
            ('[data-testid="search-results"] [data-result-id]',),
        ),
        Shot(
            "node-dataset-version",
            f"/node/{seg(ds('web-corpus', 'v2'))}",
            ('[data-node-card] [data-field="qualityGates"]', HISTORY),
            full_page=True,
        ),
        Shot(
            "node-run",
            f"/node/{seg(RESUMED_RUN)}",
            ('[data-node-card] [data-field="checkpoints"]', HISTORY),
            full_page=True,
            end=".history",  # the longest card: its event history is left out
        ),
        Shot(
            "node-model-version",
            f"/node/{seg(DEPLOYED_MODEL)}",
            ('[data-node-card] [data-field="deployments"]', HISTORY),
            full_page=True,
        ),
        Shot(
            "lineage",
            route(f"/lineage/{seg(WEB_V1)}", **down),
            ("[data-node-id]",),
            _lineage_drawn,
            full_page=True,  # the controls and the whole graph
        ),
        Shot(
            "lineage-path",
            route(f"/lineage/{seg(WEB_V1)}", **down),
            ("[data-node-id]",),
            _select_a_path,
            full_page=True,
        ),
        Shot("impact", f"/impact/{seg(WEB_V1)}", ('[data-testid="impact-deployments"] li',)),
        Shot(
            "diff",
            f"/diff/{seg(DEPLOYED_MODEL)}/{seg(CHAT_NEXT)}",
            ('[data-testid="diff-table"] tbody tr',),
        ),
        Shot(
            "reproduce",
            f"/reproduce/{seg(DEPLOYED_MODEL)}",
            ('[data-testid="recipe"] li',),
            full_page=True,
        ),
        Shot(
            "dossier",
            f"/dossier/{seg(DEPLOYED_MODEL)}",
            ('[data-dossier] [data-testid="dossier-document"]',),
            _dossier_loaded,
            full_page=True,
        ),
        Shot(
            "compare",
            f"/compare/{seg(SWEEP)}",
            ('[data-testid="compare-table"] [data-field]', CHART_DRAWN),
            full_page=True,  # the table and the chart below it
        ),
        Shot(
            "best",
            route(f"/best/{seg(CHAT)}", metric="acc", dataset=ds("eval-suite", "v1"), higher="1"),
            ('[data-testid="ranking"] [data-field="ranking"]',),
        ),
        Shot(
            "digest",
            route(f"/digest/{PROJECT}", since=digest_window(now)),
            ("main.page table",),
        ),
    ]


class Camera:
    """One browser tab on the explorer, signed in once, writing pictures into `out`."""

    def __init__(self, page: Page, base_url: str, out: Path) -> None:
        self.page = page
        self.base_url = base_url
        self.out = out
        self.errors: list[str] = []
        page.on("pageerror", lambda error: self.errors.append(str(error)))

    def open(self, hash_route: str) -> None:
        """Load the explorer afresh on `hash_route` (nothing of the last page stays)."""
        self.page.goto("about:blank")
        self.page.goto(f"{self.base_url}/ui/#{hash_route}")

    @contextmanager
    def step(self, name: str) -> Iterator[None]:
        """A browser failure while picturing `name` (a timeout, a refused connection) is
        reported as that page not rendering."""
        try:
            yield
        except PlaywrightError as error:
            raise PageNotRendered(f"{name}: {error.message.splitlines()[0]}") from error

    def settle(self, name: str, ready: tuple[str, ...]) -> None:
        """Wait until every `ready` is shown and nothing loads, or fail with what the page
        shows instead."""
        try:
            self.page.wait_for_function(_SETTLED, arg=[ready, FAILED], timeout=WAIT_MS)
        except PlaywrightTimeout as error:
            wanted = " and ".join(ready)
            raise PageNotRendered(f"{name}: no {wanted} within {WAIT_MS / 1000:.0f} s") from error
        self.check(name)

    def check(self, name: str) -> None:
        """Fail if the page shows an error, not-found or sign-in message, or raised one."""
        failed = self.page.locator(FAILED)
        if failed.count():
            text = " ".join(failed.first.inner_text().split())
            raise PageNotRendered(f"{name}: the page shows {text!r}")
        if self.errors:
            raise PageNotRendered(f"{name}: the page raised {self.errors[0]}")

    def write(self, name: str, full_page: bool = False, end: str | None = None) -> Path:
        path = self.out / f"{name}.png"
        clip: FloatRect | None = None
        if end:
            top = float(self.page.evaluate(_TOP, end))
            clip = {"x": 0, "y": 0, "width": VIEWPORT["width"], "height": top}
        self.page.screenshot(path=path, full_page=full_page, clip=clip)
        print(f"wrote {path} ({path.stat().st_size // 1024} KB)", flush=True)
        return path

    def sign_in(self, token: str) -> None:
        """The sign-in page, pictured empty, then filled in: the token goes to sessionStorage."""
        with self.step("sign-in"):
            self.open("/search")
            self.settle("sign-in", ("input#token",))
            self.write("sign-in")
            self.page.locator("input#token").fill(token)
            self.page.get_by_role("button", name="Sign in").click()
            self.settle("sign-in", ("header.top",))  # the signed-in frame, or the refusal

    def take(self, shot: Shot) -> None:
        with self.step(shot.name):
            self.open(shot.route)
            self.settle(shot.name, shot.ready)
            if shot.then:
                shot.then(self.page)
                self.check(shot.name)
            self.write(shot.name, shot.full_page, shot.end)

    def graphiql(self) -> None:
        """GraphiQL at /graphql (it finds the tab's token), having run a question on the demo."""
        with self.step("graphiql"):
            self.page.goto(f"{self.base_url}/graphql")
            self.page.locator(".graphiql-query-editor .CodeMirror").wait_for(timeout=WAIT_MS)
            query = f'{{\n  impact(id: "{WEB_V1}") {{\n    node {{ id type }}\n  }}\n}}\n'
            self.page.evaluate(_SET_QUERY, query)
            self.page.locator(".graphiql-execute-button").click()
            self.page.wait_for_function(_ANSWERED, timeout=WAIT_MS)
            answer = json.loads(self.page.evaluate(_ANSWER))
            if "errors" in answer or not answer.get("data", {}).get("impact"):
                raise PageNotRendered(f"graphiql: the query was answered {answer}")
            self.check("graphiql")
            self.write("graphiql")


def chromium_path() -> str:
    path = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).is_file():
        raise PageNotRendered("Chromium is missing: `make system-deps` installs it")
    return path


def run(url: str, token: str, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    args = ["--disable-dev-shm-usage", *(["--no-sandbox"] if os.geteuid() == 0 else [])]
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium_path(), headless=True, args=args
        )
        try:
            context = browser.new_context(viewport=VIEWPORT)
            camera = Camera(context.new_page(), url.rstrip("/"), out)
            camera.sign_in(token)
            for shot in shots(datetime.now(UTC)):
                camera.take(shot)
            camera.graphiql()
        finally:
            browser.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--url", required=True, help="the query service, e.g. http://127.0.0.1:8081"
    )
    parser.add_argument("--token-file", required=True, type=Path, help="a token reading demo-llm")
    parser.add_argument("--out", required=True, type=Path, help="where the PNGs are written")
    options = parser.parse_args(argv)
    try:
        token = options.token_file.read_text().strip()
    except OSError as error:
        print(f"error: cannot read the token: {error}", file=sys.stderr)
        return 2
    if not token:
        print(f"error: {options.token_file} is empty", file=sys.stderr)
        return 2
    try:
        run(options.url, token, options.out)
    except PageNotRendered as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
