"""Helpers of the explorer's browser tests: the stories, the GraphQL oracle, the page driver.

Every expectation of a page is the GraphQL answer for the same arguments, asked with the same
token over HTTP: the page must draw exactly that.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import httpx
from playwright.sync_api import Page, Request
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from provgraph.cli.demo_story import demo_events
from provgraph.schemas import REGISTRY, Event, parse_event

ROOT = Path(__file__).resolve().parents[3]
# The build under test: the checkout's (`make ui`), or another one named by PROVGRAPH_UI_DIR.
UI_DIR = Path(os.environ.get("PROVGRAPH_UI_DIR") or ROOT / "web" / "dist")
TOKEN_KEY = "provgraph.token"  # where the explorer keeps the token (sessionStorage)
WAIT_MS = 30_000
AUTH_CACHE_S = 0.5  # how long the served app may reuse an answer about a token

# The small story: a chain of CHAIN + 1 dataset versions, each derived from the one before,
# read by one run that failed.
CHAIN = 12
_NAMESPACE = uuid.UUID("0c5e1a52-6d0b-4f7e-8a43-3d2f4d1e9b70")
_T0 = datetime(2026, 2, 2, 8, 0, tzinfo=UTC)


@dataclass(frozen=True)
class Stories:
    """A module's projects and the tokens that read them."""

    demo: str  # the demo story
    chain: str  # the small chain story
    reader: str  # reads `demo` only
    chain_reader: str  # reads `chain` only
    trainer: str  # the principal the demo's sweep came through ingest as, named as issued


def demo_deployment(project: str) -> str:
    """The demo story's deployment: its longest chain upstream ends there."""
    return next(e.subject for e in demo_events(project) if e.event_type == "deployment.created")


def demo_web_v1(project: str) -> str:
    """The demo story's first raw corpus version: its longest chain downstream starts there."""
    return f"dataset:{project}/web-corpus@v1"


def chain_id(project: str, n: int) -> str:
    return f"dataset:{project}/chain@v{n}"


def failed_run_id(project: str) -> str:
    return f"run:{project}-tokenizer-sweep"


def _event(project: str, i: int, event_type: str, payload: dict[str, Any]) -> Event:
    version = REGISTRY.current_version(event_type)
    payload_type = REGISTRY.resolve(event_type, version).model_fields["payload"].annotation
    assert payload_type is not None
    raw = {
        "event_id": str(uuid.uuid5(_NAMESPACE, f"{project}-{i}")),
        "event_type": event_type,
        "schema_version": version,
        "occurred_at": (_T0 + timedelta(minutes=i)).isoformat(),
        "project": project,
        "producer": "https://provgraph.dev/tests/explorer",
        "actor": "user:explorer-test",
        "subject": payload_type.model_validate(payload).subject(project),
        "payload": payload,
    }
    return parse_event(raw)


def chain_story(project: str) -> list[Event]:
    """`chain@v0` <- `chain@v1` <- ... <- `chain@v12` <- a failed run (tokenizer-sweep)."""
    steps: list[tuple[str, dict[str, Any]]] = [("dataset.registered", {"name": "chain"})]
    for n in range(CHAIN + 1):
        version: dict[str, Any] = {
            "name": "chain",
            "version": f"v{n}",
            "storage_uri": f"s3://explorer-tests/chain/v{n}/",
        }
        if n:
            version["derived_from"] = [
                {"dataset_version": chain_id(project, n - 1), "transform": f"step-{n}"}
            ]
        steps.append(("dataset.version.created", version))
    run = failed_run_id(project).removeprefix("run:")
    steps += [
        (
            "run.started",
            {
                "run_id": run,
                "name": "tokenizer-sweep",
                "params": {"vocab": 32000},
                "inputs": [{"dataset_version": chain_id(project, CHAIN), "role": "train"}],
            },
        ),
        (
            "run.failed",
            {"run_id": run, "error": {"type": "MemoryError", "message": "out of memory"}},
        ),
    ]
    return [_event(project, i, kind, payload) for i, (kind, payload) in enumerate(steps)]


def lineage_route(
    node: str,
    direction: str = "up",
    depth: int | None = None,
    types: tuple[str, ...] = (),
    as_of: str | None = None,
) -> str:
    """The explorer's hash route (without `#`) of a lineage question."""
    params: dict[str, str] = {"direction": direction}
    if depth is not None:
        params["depth"] = str(depth)
    if types:
        params["types"] = ",".join(types)
    if as_of:
        params["asOf"] = as_of
    return f"/lineage/{quote(node, safe='')}?{urlencode(params, quote_via=quote)}"


def node_route(node: str) -> str:
    return f"/node/{quote(node, safe='')}"


def page_route(page: str, *ids: str, **params: str) -> str:
    """The hash route (without `#`) of a page on ids: `/diff/<a>/<b>`, `/best/<model>?...`."""
    path = "".join(f"/{quote(i, safe='')}" for i in ids)
    query = urlencode(params, quote_via=quote)
    return f"/{page}{path}{'?' + query if query else ''}"


def js_text(value: Any) -> str:
    """A value as the explorer's `text()` shows it (JavaScript's number formatting)."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value.is_integer():
            return str(int(value))
        rounded = float(f"{value:.6g}")
        if 1e-6 <= abs(rounded) < 1e21:
            return format(Decimal(repr(rounded)), "f")
        return repr(rounded).replace("e-0", "e-").replace("e+0", "e+")
    return str(value)


_DIRECTIONS = {"up": "UPSTREAM", "down": "DOWNSTREAM", "both": "BOTH"}

_LINEAGE = """
query ($id: ID!, $direction: Direction!, $depth: Int, $types: [NodeType!], $asOf: String) {
  lineage(id: $id, direction: $direction, depth: $depth, types: $types, asOf: $asOf) {
    root { id } nodes { id } edges { from to type } truncated
  }
}"""


@dataclass(frozen=True)
class Api:
    """The query service under test, asked directly: the oracle of every page."""

    url: str

    def graphql(
        self, token: str, query: str, variables: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        answer = httpx.post(
            f"{self.url}/graphql",
            json={"query": query, "variables": variables or {}},
            headers={"Authorization": f"Bearer {token}"},
            timeout=30,
        )
        assert answer.status_code == 200, answer.text
        body: dict[str, Any] = answer.json()
        return body

    def data(
        self, token: str, query: str, variables: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """The `data` of an answer that must have no errors."""
        body = self.graphql(token, query, variables)
        assert "errors" not in body, body
        data: dict[str, Any] = body["data"]
        return data

    def lineage(
        self,
        token: str,
        node: str,
        direction: str = "up",
        depth: int | None = None,
        types: tuple[str, ...] = (),
        as_of: str | None = None,
    ) -> tuple[set[str], set[str]]:
        """(node ids, `from|to|TYPE` of the edges between them) of the `lineage` answer: its
        `root` and its `nodes` (the answer lists the root apart), and the edges among them."""
        variables = {
            "id": node,
            "direction": _DIRECTIONS[direction],
            "depth": depth,
            "types": list(types) or None,
            "asOf": as_of,
        }
        body = self.graphql(token, _LINEAGE, variables)
        assert "errors" not in body, body
        answer = body["data"]["lineage"]
        nodes = {answer["root"]["id"], *(n["id"] for n in answer["nodes"])}
        edges = {
            f"{e['from']}|{e['to']}|{e['type']}"
            for e in answer["edges"]
            if e["from"] in nodes and e["to"] in nodes
        }
        return nodes, edges


# The graph is settled when every node and edge the page counts is in the DOM.
NODES_SETTLED = """() => {
  const counts = document.querySelector('[data-testid="graph-counts"]');
  const m = counts && /^(\\d+) nodes, (\\d+) edges$/.exec(counts.textContent.trim());
  return !!m && document.querySelectorAll('[data-node-id]').length === Number(m[1]);
}"""
_EDGES_SETTLED = """() => {
  const counts = document.querySelector('[data-testid="graph-counts"]');
  const m = counts && /^(\\d+) nodes, (\\d+) edges$/.exec(counts.textContent.trim());
  return !!m && document.querySelectorAll('[data-edge]').length === Number(m[2]);
}"""


_BOXES = """els => Object.fromEntries(els.map(e => {
  const m = new DOMMatrixReadOnly(getComputedStyle(e).transform);
  return [e.getAttribute('data-node-id'), [m.m41, m.m42, e.offsetWidth, e.offsetHeight]];
}))"""


_ROWS = """(els, cell) => els.map(e => ({
  attrs: Object.fromEntries([...e.attributes].filter(a => a.name.startsWith('data-'))
    .map(a => [a.name, a.value])),
  cells: Object.fromEntries([...e.querySelectorAll(`[${cell}]`)]
    .map(c => [c.getAttribute(cell), c.textContent.trim()])),
  links: [...e.querySelectorAll('a[href]')].map(a => a.getAttribute('href')),
  text: e.textContent.trim(),
}))"""


@dataclass
class Explorer:
    """One browser page on the explorer: every request it sent, a screenshot per step."""

    page: Page
    base_url: str
    shots: Path
    requests: list[Request] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    _shot: int = 0

    def __post_init__(self) -> None:
        self.page.on("request", lambda request: self.requests.append(request))
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))

    def shot(self, name: str) -> Path:
        """A screenshot of the page now, numbered in the order taken."""
        self._shot += 1
        path = self.shots / f"{self._shot:02d}-{name}.png"
        self.page.screenshot(path=path, full_page=True)
        return path

    def url(self, route: str) -> str:
        return f"{self.base_url}/ui/#{route}"

    def open(self, route: str) -> None:
        """Load the explorer afresh on `route` (a full load: nothing of the last page stays)."""
        self.page.goto("about:blank")
        self.page.goto(self.url(route))

    def go(self, route: str) -> None:
        """Follow an in-page link to `route` (the same page, a new hash)."""
        self.page.evaluate("route => { window.location.hash = route; }", route)

    def sign_in(self, token: str) -> None:
        """Fill in the sign-in form (the page must show it)."""
        self.page.locator("input#token").fill(token)
        self.page.get_by_role("button", name="Sign in").click()

    def signed_in(self, token: str, route: str = "/search") -> None:
        """Open `route` and sign in with `token`; the signed-in frame is shown."""
        self.open(route)
        self.sign_in(token)
        self.page.get_by_role("button", name="Sign out").wait_for(timeout=WAIT_MS)

    def stored_token(self) -> str | None:
        value = self.page.evaluate("key => sessionStorage.getItem(key)", TOKEN_KEY)
        return None if value is None else str(value)

    def drawn(self) -> tuple[set[str], set[str]]:
        """(`data-node-id`, `data-edge`) of the lineage graph once it is drawn."""
        self.page.wait_for_function(NODES_SETTLED, timeout=WAIT_MS)
        with suppress(PlaywrightTimeout):  # the comparison of the edge sets says what is missing
            self.page.wait_for_function(_EDGES_SETTLED, timeout=10_000)
        nodes = self.page.eval_on_selector_all(
            "[data-node-id]", "els => els.map(e => e.getAttribute('data-node-id'))"
        )
        edges = self.page.eval_on_selector_all(
            "[data-edge]", "els => els.map(e => e.getAttribute('data-edge'))"
        )
        return set(nodes), set(edges)

    def drawn_as(self, want: tuple[set[str], set[str]]) -> tuple[set[str], set[str]]:
        """`drawn()` once it is `want` (within WAIT_MS), or as it is then: after an in-page
        navigation the last route's graph stays drawn until the new answer replaces it."""
        deadline = time.monotonic() + WAIT_MS / 1000
        while (got := self.drawn()) != want and time.monotonic() < deadline:
            self.page.wait_for_timeout(100)
        return got

    def lineage_asks(self, since: int = 0) -> list[dict[str, Any]]:
        """The variables of every `Lineage` request sent, from the `since`-th request on."""
        asks = []
        for request in self.requests[since:]:
            if request.method != "POST" or not request.url.endswith("/graphql"):
                continue
            body = json.loads(request.post_data or "{}")
            if "query Lineage" in body.get("query", ""):
                asks.append(body.get("variables") or {})
        return asks

    def boxes(self) -> dict[str, tuple[float, float, float, float]]:
        """Each drawn node's box in the graph's own coordinates (x, y, width, height): the
        place the layout gives it, which zooming and panning do not change."""
        found: dict[str, list[float]] = self.page.eval_on_selector_all("[data-node-id]", _BOXES)
        return {node: (x, y, w, h) for node, (x, y, w, h) in found.items()}

    def attrs(self, selector: str, name: str) -> list[str | None]:
        """The attribute `name` of every element matching `selector`, in document order."""
        values: list[str | None] = self.page.eval_on_selector_all(
            selector, "(els, name) => els.map(e => e.getAttribute(name))", name
        )
        return values

    def texts(self, selector: str) -> list[str]:
        """The text (trimmed `textContent`) of every element matching `selector`."""
        values: list[str] = self.page.eval_on_selector_all(
            selector, "els => els.map(e => e.textContent.trim())"
        )
        return values

    def rows(self, selector: str, cell: str = "data-field") -> list[dict[str, Any]]:
        """Every element matching `selector` (a table row, a list item), in one round trip:
        `attrs` its `data-*` attributes, `cells` the text of each element inside it that
        carries the attribute `cell` (by that attribute's value), `links` every link's href
        inside it, `text` its whole text."""
        found: list[dict[str, Any]] = self.page.eval_on_selector_all(selector, _ROWS, cell)
        return found

    def allow_clipboard(self) -> None:
        """Let the page write (and the test read) the clipboard, for the copy buttons."""
        self.page.context.grant_permissions(
            ["clipboard-read", "clipboard-write"], origin=self.base_url
        )

    def clipboard(self) -> str:
        """What the clipboard holds (after `allow_clipboard`)."""
        return str(self.page.evaluate("() => navigator.clipboard.readText()"))

    def fields(self) -> dict[str, str]:
        """Every `data-field` of the page and its text (the first one of a name)."""
        pairs = self.page.eval_on_selector_all(
            "[data-field]",
            "els => els.map(e => [e.getAttribute('data-field'), e.textContent.trim()])",
        )
        found: dict[str, str] = {}
        for name, text in pairs:
            found.setdefault(name, text)
        return found
