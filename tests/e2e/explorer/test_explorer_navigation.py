"""Moving between routes, in Chromium: what the lineage page asks for, and what it keeps.

Each arrival at a lineage route (a deep link signed out then signed in, a reload, an in-page
link, the query form, Back) sends that route's `lineage` request exactly once: the request is
started where the route is arrived at, never while rendering, so a render that React repeats
or drops asks nothing, and the page takes the request already under way instead of sending
its own. And an expand still unanswered when the user leaves the route is dropped when its
answer comes: the next route's graph is exactly its own answer.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace

from explorer_helpers import (
    WAIT_MS,
    Api,
    Explorer,
    Stories,
    demo_deployment,
    demo_web_v1,
    lineage_route,
)
from playwright.sync_api import Route

_DIRECTIONS = {"up": "UPSTREAM", "down": "DOWNSTREAM", "both": "BOTH"}
SETTLE_MS = 750  # after the graph is drawn: time for a second request or a late merge to show


@dataclass(frozen=True)
class Question:
    """A lineage route's root, direction and depth."""

    node: str
    direction: str
    depth: int

    def route(self) -> str:
        return lineage_route(self.node, self.direction, self.depth)

    def answer(self, api: Api, token: str) -> tuple[set[str], set[str]]:
        return api.lineage(token, self.node, self.direction, self.depth)

    def asked(self, explorer: Explorer, since: int) -> int:
        """How many `lineage` requests for it the page sent, from its `since`-th request on."""
        wanted = (self.node, _DIRECTIONS[self.direction], self.depth)
        asks = explorer.lineage_asks(since)
        return sum((v.get("id"), v.get("direction"), v.get("depth")) == wanted for v in asks)


def _arrive(
    explorer: Explorer, api: Api, token: str, how: Callable[[], object], question: Question
) -> None:
    """Arrive at `question`'s route by `how`: the page draws its answer, asked for once."""
    since = len(explorer.requests)
    how()
    want = question.answer(api, token)
    assert explorer.drawn_as(want) == want
    explorer.page.wait_for_timeout(SETTLE_MS)
    assert question.asked(explorer, since) == 1, explorer.lineage_asks(since)
    assert explorer.drawn() == want


def test_each_arrival_at_a_lineage_route_asks_for_its_answer_once(
    explorer: Explorer, api: Api, stories: Stories
) -> None:
    token, page = stories.reader, explorer.page
    a = Question(demo_deployment(stories.demo), "up", 2)
    b = replace(a, depth=3)
    c = Question(demo_web_v1(stories.demo), "down", 1)
    d = replace(c, depth=2)

    explorer.open(a.route())  # signed out: the sign-in form, nothing asked yet
    assert explorer.lineage_asks() == []
    _arrive(explorer, api, token, lambda: explorer.sign_in(token), a)
    _arrive(explorer, api, token, lambda: explorer.open(a.route()), a)  # a reload
    _arrive(explorer, api, token, lambda: explorer.go(b.route()), b)  # page stays
    explorer.go("/search?q=chat")
    page.get_by_role("heading", name="Search").wait_for(timeout=WAIT_MS)
    _arrive(explorer, api, token, lambda: explorer.go(c.route()), c)  # page anew

    def apply_depth() -> None:
        page.locator("input#depth").fill(str(d.depth))
        page.get_by_role("button", name="Apply").click()

    _arrive(explorer, api, token, apply_depth, d)
    _arrive(explorer, api, token, page.go_back, c)
    explorer.shot("back")
    assert not explorer.errors


def test_an_expand_answered_after_leaving_the_route_is_not_merged(
    explorer: Explorer, api: Api, stories: Stories
) -> None:
    """Expand a node on route A; hold its answer in the browser until route B is drawn; then
    let it through: B's graph stays exactly B's answer (A's next hop is not added to it)."""
    token, page = stories.reader, explorer.page
    root = demo_deployment(stories.demo)
    a = Question(root, "up", 2)
    b = Question(demo_web_v1(stories.demo), "down", 1)
    explorer.signed_in(token, a.route())
    base = a.answer(api, token)
    assert explorer.drawn_as(base) == base
    want_b = b.answer(api, token)
    growing = [n for n in sorted(base[0] - {root}) if api.lineage(token, n, "up", 1)[0] - want_b[0]]
    assert growing, "no drawn node has an upstream neighbour outside route B's answer"
    node = growing[0]

    held: list[Route] = []

    def hold_the_expand(route: Route) -> None:
        variables = json.loads(route.request.post_data or "{}").get("variables") or {}
        if variables.get("id") == node and variables.get("depth") == 1:
            held.append(route)  # answered below, once route B is drawn
        else:
            route.continue_()

    page.route("**/graphql", hold_the_expand)
    page.locator(f'[data-node-id="{node}"]').click()
    for _ in range(WAIT_MS // 50):
        if held:
            break
        page.wait_for_timeout(50)
    assert held, f"the expand of {node} was not requested"

    explorer.go(b.route())
    assert explorer.drawn_as(want_b) == want_b
    body = held[0].request.post_data
    with page.expect_response(lambda r: r.request.post_data == body) as answered:
        held[0].continue_()
    answered.value.finished()
    page.wait_for_timeout(SETTLE_MS)  # a merged answer would be laid out and drawn by now
    explorer.shot("after-the-late-expand")
    assert explorer.drawn() == want_b
    assert page.locator('[aria-label*=", expanded"]').count() == 0
    assert page.locator('[data-testid="expand-notice"]').count() == 0
    assert not explorer.errors
