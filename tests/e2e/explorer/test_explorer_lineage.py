"""The lineage page draws exactly the `lineage` answer for its route's arguments, in Chromium.

Each route is loaded afresh; the drawn `data-node-id` and `data-edge` sets are compared with
the GraphQL answer for the same id, direction, depth, types and as-of, asked with the same
token. The chain story also has an expectation of its own (which versions are within reach).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

import pytest
from explorer_helpers import (
    CHAIN,
    WAIT_MS,
    Api,
    Explorer,
    Stories,
    chain_id,
    demo_deployment,
    demo_web_v1,
    failed_run_id,
    lineage_route,
)

from provgraph.cli.demo_story import demo_events


def _before_the_deployment(project: str) -> str:
    """One minute before the deployment was created (ISO, UTC)."""
    created = next(e for e in demo_events(project) if e.event_type == "deployment.created")
    when: datetime = created.occurred_at - timedelta(minutes=1)
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def _model(project: str) -> str:
    return f"model:{project}/chat-1b@1.0.0"


@dataclass(frozen=True)
class Case:
    """A lineage question on the demo story: its root, and the route's other arguments."""

    root: Callable[[str], str]
    direction: str
    depth: int
    types: tuple[str, ...] = ()
    before_deployment: bool = False


CASES = {
    "deployment-up-1": Case(demo_deployment, "up", 1),
    "deployment-up-3": Case(demo_deployment, "up", 3),
    "deployment-up-10": Case(demo_deployment, "up", 10),
    "corpus-down-1": Case(demo_web_v1, "down", 1),
    "corpus-down-3": Case(demo_web_v1, "down", 3),
    "corpus-down-10": Case(demo_web_v1, "down", 10),
    "model-both-3": Case(_model, "both", 3),
    "deployment-up-10-runs-and-data": Case(demo_deployment, "up", 10, ("RUN", "DATASET_VERSION")),
    "corpus-down-10-before-the-deployment": Case(demo_web_v1, "down", 10, before_deployment=True),
}


def _check_drawn(
    explorer: Explorer, api: Api, token: str, **question: object
) -> tuple[set[str], set[str]]:
    """Open the route of `question`; assert that it draws exactly the API's answer."""
    explorer.open(lineage_route(**question))  # type: ignore[arg-type]
    nodes, edges = explorer.drawn()
    explorer.shot("-".join(str(v) for v in question.values() if v)[-80:].replace("/", "_"))
    want_nodes, want_edges = api.lineage(token, **question)  # type: ignore[arg-type]
    assert nodes == want_nodes, (sorted(nodes - want_nodes), sorted(want_nodes - nodes))
    assert edges == want_edges, (sorted(edges - want_edges), sorted(want_edges - edges))
    assert not explorer.errors
    return nodes, edges


@pytest.mark.parametrize("name", list(CASES))
def test_a_lineage_route_draws_exactly_the_answer(
    explorer: Explorer, api: Api, stories: Stories, name: str
) -> None:
    case = CASES[name]
    project = stories.demo
    as_of = _before_the_deployment(project) if case.before_deployment else None
    question = {
        "node": case.root(project),
        "direction": case.direction,
        "depth": case.depth,
        "types": case.types,
        "as_of": as_of,
    }
    explorer.signed_in(stories.reader, "/search")
    nodes, _ = _check_drawn(explorer, api, stories.reader, **question)
    assert case.root(project) in nodes
    deployment = demo_deployment(project)
    if case.before_deployment:
        # The same question without the as-of reaches the deployment: the as-of removed it.
        assert deployment not in nodes
        now, _ = api.lineage(stories.reader, **{**question, "as_of": None})  # type: ignore[arg-type]
        assert deployment in now
    if case.types:
        drawn_types = explorer.page.eval_on_selector_all(
            "[data-node-id]", "els => [...new Set(els.map(e => e.getAttribute('data-node-type')))]"
        )
        # The root is drawn whatever its type; every other node is of a type asked for.
        assert set(drawn_types) - {"Deployment"} == {"Run", "DatasetVersion"}


@pytest.mark.parametrize("depth", [1, 3, 10])
def test_depth_reaches_exactly_that_many_versions_up_the_chain(
    explorer: Explorer, api: Api, stories: Stories, depth: int
) -> None:
    run = failed_run_id(stories.chain)
    explorer.signed_in(stories.chain_reader, "/search")
    nodes, _ = _check_drawn(
        explorer, api, stories.chain_reader, node=run, direction="up", depth=depth
    )
    versions = {n for n in nodes if n.startswith(f"dataset:{stories.chain}/chain@")}
    assert versions == {chain_id(stories.chain, CHAIN - k) for k in range(depth)}
    # The failed run says so in text, not by colour only.
    assert "FAILED" in explorer.page.locator(f'[data-node-id="{run}"]').inner_text()


def test_the_chain_downstream_from_its_first_version(
    explorer: Explorer, api: Api, stories: Stories
) -> None:
    explorer.signed_in(stories.chain_reader, "/search")
    first = chain_id(stories.chain, 0)
    nodes, _ = _check_drawn(
        explorer, api, stories.chain_reader, node=first, direction="down", depth=20
    )
    assert failed_run_id(stories.chain) in nodes
    assert {chain_id(stories.chain, n) for n in range(CHAIN + 1)} <= nodes


def test_a_link_typed_with_an_unencoded_slash_draws_the_same(
    explorer: Explorer, api: Api, stories: Stories
) -> None:
    explorer.signed_in(stories.chain_reader, "/search")
    first = chain_id(stories.chain, 0)
    assert "/" in first
    explorer.open(f"/lineage/{first}?direction=down&depth=2")  # the id's "/" left as it is
    nodes, edges = explorer.drawn()
    assert (nodes, edges) == api.lineage(stories.chain_reader, first, "down", 2)
    assert not explorer.errors


def test_expanding_a_node_adds_exactly_its_next_hop(
    explorer: Explorer, api: Api, stories: Stories
) -> None:
    token, root = stories.reader, demo_deployment(stories.demo)
    explorer.signed_in(token, "/search")
    base, base_edges = _check_drawn(explorer, api, token, node=root, direction="up", depth=2)
    hops = {node: api.lineage(token, node, "up", 1) for node in sorted(base - {root})}
    growing = [node for node, (ids, _) in hops.items() if ids - base]
    assert growing, "no drawn node has an upstream neighbour left to expand"
    node = growing[0]
    hop_nodes, hop_edges = hops[node]

    drawn_node = explorer.page.locator(f'[data-node-id="{node}"]')
    # Its accessible name says whether it is expanded (", expanded" / ", not expanded").
    expanded = explorer.page.locator(f'[data-node-id="{node}"][aria-label*=", expanded"]')
    assert expanded.count() == 0
    before = explorer.boxes()
    drawn_node.click()
    expanded.wait_for(timeout=WAIT_MS)
    nodes, edges = explorer.drawn()
    explorer.shot("expanded")
    assert nodes - base == hop_nodes - base
    assert nodes == base | hop_nodes
    assert edges == base_edges | hop_edges
    # What was drawn stays where it was; what the expand added overlaps nothing, and (the
    # direction is up) lies left of the expanded node, as sources do.
    after = explorer.boxes()
    assert {node: after[node] for node in before} == before
    added = nodes - base
    for new in added:
        x, y, w, h = after[new]
        assert x < after[node][0], (new, after[new], node, after[node])
        clashes = [
            other
            for other, (ox, oy, ow, oh) in after.items()
            if other != new and x < ox + ow and ox < x + w and y < oy + oh and oy < y + h
        ]
        assert not clashes, (new, clashes)

    drawn_node.click()  # again: collapsed, the route's answer alone, where it was
    expanded.wait_for(state="detached", timeout=WAIT_MS)
    nodes, edges = explorer.drawn()
    explorer.shot("collapsed")
    assert (nodes, edges) == (base, base_edges)
    assert explorer.boxes() == before


def _hops(edges: set[str], a: str, b: str) -> int | None:
    """Edges on a shortest path from a to b, edge direction ignored (from `data-edge` keys)."""
    near: dict[str, set[str]] = {}
    for key in edges:
        src, dst, _ = key.split("|")
        near.setdefault(src, set()).add(dst)
        near.setdefault(dst, set()).add(src)
    seen, frontier, hops = {a}, {a}, 0
    while frontier:
        if b in frontier:
            return hops
        frontier = {n for f in frontier for n in near.get(f, ()) if n not in seen}
        seen |= frontier
        hops += 1
    return None


_VIEWPORT = "() => getComputedStyle(document.querySelector('.react-flow__viewport')).transform"


def test_nodes_answer_the_mouse_and_the_keyboard(
    explorer: Explorer, api: Api, stories: Stories
) -> None:
    """Shift-click selects: two selected nodes light up a shortest path between them. Arrow
    keys move the focus to a neighbour, Enter expands it. The fit-view button brings back the
    first view after zooming."""
    token, root = stories.reader, demo_deployment(stories.demo)
    explorer.signed_in(token, "/search")
    nodes, edges = _check_drawn(explorer, api, token, node=root, direction="up", depth=10)
    page = explorer.page

    fitted_view = page.evaluate(_VIEWPORT)
    page.get_by_role("button", name="zoom in").click()
    page.get_by_role("button", name="zoom in").click()
    assert page.evaluate(_VIEWPORT) != fitted_view
    page.get_by_role("button", name="fit view").click()
    page.wait_for_function(f"v => ({_VIEWPORT})() === v", arg=fitted_view, timeout=WAIT_MS)

    far = demo_web_v1(stories.demo)
    assert far in nodes
    page.locator(f'[data-node-id="{root}"]').click(modifiers=["Shift"])
    page.locator(f'[data-node-id="{far}"]').click(modifiers=["Shift"])
    page.locator("[data-edge].on-path").first.wait_for(timeout=WAIT_MS)
    explorer.shot("path")
    lit_edges = {e for e in explorer.attrs("[data-edge].on-path", "data-edge") if e}
    lit_nodes = set(explorer.attrs("[data-node-id].on-path", "data-node-id"))
    assert len(lit_edges) == _hops(edges, root, far)
    assert {root, far} <= lit_nodes
    ends = [e.split("|")[:2] for e in lit_edges]  # every lit edge joins two lit nodes
    assert all(a in lit_nodes and b in lit_nodes for a, b in ends)
    assert len(lit_nodes) == len(lit_edges) + 1  # a path: one node more than its edges
    assert _hops(lit_edges, root, far) == len(lit_edges)

    # The start is the deployment, rightmost (upstream flows in from the left).
    page.locator(f'[data-node-id="{root}"]').focus()
    page.keyboard.press("ArrowLeft")
    focused = page.evaluate("() => document.activeElement.getAttribute('data-node-id')")
    linked = {k.split("|")[1] for k in edges if k.startswith(f"{root}|")}
    assert focused in linked, (focused, linked)
    page.keyboard.press("Enter")
    page.locator(f'[data-node-id="{focused}"][aria-label*=", expanded"]').wait_for(timeout=WAIT_MS)
    assert not explorer.errors
