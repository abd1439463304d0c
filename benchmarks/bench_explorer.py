"""Part `explorer`: the web explorer's lineage page in Chromium beside the GraphQL answer.

Two cases, chosen by the size of the GraphQL `lineage` answer (root included): the one closest
to ~200 nodes and the one closest to ~1,000 nodes among the workload's start nodes (query_roots:
shipped model versions upstream, raw dataset versions downstream) and the raw version of a wide
project written beside the workload (benchmarks/explorer_story.py: the workload's own answers
stop near 200 nodes at every scale, its projects being self-contained) at depths 1..20, with the
arguments the page sends (no `types`, no `asOf`, the service's default limit). When no answer
comes within half of a target (small workloads), the largest answer is drawn instead and the
row says so. Per sample, a fresh page of one browser context loads
`#/lineage/<id>?direction=..&depth=..` and reports, in the page's own clock (ms since
navigation start): the `lineage-drawn` mark, the moment the last `[data-node-id]` element
appeared; then a click on a node whose one-hop expand adds nodes (the root, adding none, when
the answer is already the whole reachable graph), and the time from that click to the
`expand-painted` mark.

Before any time counts, the drawn `data-node-id` set must equal the GraphQL answer's node set
(and after the expand, the union with the one-hop answer): a page that draws the wrong thing
fails the benchmark. The layer below is the same GraphQL document the page sent (captured from
the browser's request), executed in-process: the ratios are browser / GraphQL p50.
No wall-clock limit is asserted.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from playwright.sync_api import Browser, BrowserContext, Page, Request, sync_playwright

from benchmarks.explorer_build import BENCH_UI_DIR, build_explorer
from benchmarks.explorer_story import raw_version, wide_events
from benchmarks.gql import GraphQL
from benchmarks.pipeline import BenchmarkError
from benchmarks.report import Table, percentile, ratio
from benchmarks.servers import PrivateInfra, free_port
from provgraph.cli.services import provgraph_apps
from provgraph.infra.process import answers_ok, wait_until
from provgraph.ingest.projection import project_event
from provgraph.ingest.projector.writer import GraphWriter

# The benchmark's own build of the explorer, the one with its performance marks (built by each
# run), or a build named by PROVGRAPH_BENCH_UI_DIR (used as it is: it must have the marks).
UI_DIR = Path(os.environ.get("PROVGRAPH_BENCH_UI_DIR") or BENCH_UI_DIR)
TARGETS = (200, 1000)  # answer sizes (nodes, root included) the two cases aim at
WIDE_FAN = 500  # shards of the wide project (benchmarks/explorer_story.py): 1,001 nodes at d=2
DEPTHS = range(1, 21)
WAIT_MS = 60_000
_TOKEN_KEY = "provgraph.token"  # the service runs with auth disabled: any token is accepted
_DIRECTIONS = {"up": "UPSTREAM", "down": "DOWNSTREAM"}
_PICK = """
query($id: ID!, $direction: Direction!, $depth: Int) {
  lineage(id: $id, direction: $direction, depth: $depth) { root { id } nodes { id } truncated }
}"""

# Installed before the page's scripts: the token, the click time, and the moment the number
# of `[data-node-id]` elements first reaches the expected count (checked on DOM additions).
_INIT = """
sessionStorage.setItem(%(key)s, "bench");
window.__bench = { expect: %(expect)d, allNodesAt: null, clickAt: null };
document.addEventListener("click", () => {
  if (window.__bench.clickAt === null) window.__bench.clickAt = performance.now();
}, true);
new MutationObserver((records) => {
  const b = window.__bench;
  if (b.allNodesAt !== null || !records.some((r) => r.addedNodes.length)) return;
  const drawn = document.querySelectorAll("[data-node-id]").length;
  if (drawn >= b.expect) b.allNodesAt = performance.now();
}).observe(document, { childList: true, subtree: true });
"""
_MARK = "name => (performance.getEntriesByName(name)[0] || {}).startTime ?? null"
_DRAWN_IDS = "els => els.map(e => e.getAttribute('data-node-id'))"


@dataclass
class Case:
    """A lineage question of the page: its arguments and the GraphQL answer's node set."""

    label: str
    root: str
    direction: str  # "up" | "down"
    depth: int
    nodes: set[str]
    truncated: bool
    expand: str = ""  # the node clicked
    expanded: set[str] = field(default_factory=set)  # nodes after the expand
    lineage_doc: dict[str, Any] = field(default_factory=dict)  # the page's request bodies
    expand_doc: dict[str, Any] = field(default_factory=dict)

    def route(self) -> str:
        return f"/lineage/{quote(self.root, safe='')}?direction={self.direction}&depth={self.depth}"

    def what(self) -> str:
        way = "downstream" if self.direction == "down" else "upstream"
        cut = ", truncated" if self.truncated else ""
        return f"{way} of {self.root} d={self.depth}{cut}"


def _answer(gql: GraphQL, root: str, direction: str, depth: int) -> tuple[set[str], bool]:
    data = gql.execute(_PICK, id=root, direction=_DIRECTIONS[direction], depth=depth)["lineage"]
    if data is None:
        raise BenchmarkError(f"explorer: no lineage for {root}")
    return {data["root"]["id"], *(n["id"] for n in data["nodes"])}, bool(data["truncated"])


def pick_cases(gql: GraphQL, tops: list[str], bottoms: list[str]) -> list[Case]:
    """The answers closest to each of TARGETS in size (one case per target, no repeats);
    among equals, one a depth deeper reaches more (so a node of it has more to expand)."""
    seen: list[tuple[Case, bool]] = []  # (case, one more depth reaches more nodes)
    for direction, roots in (("up", tops), ("down", bottoms)):
        for root in roots:
            last: Case | None = None
            for depth in DEPTHS:
                nodes, truncated = _answer(gql, root, direction, depth)
                if last is not None:
                    seen.append((last, len(nodes) > len(last.nodes)))
                    if len(nodes) == len(last.nodes):  # the whole reachable graph
                        last = None
                        break
                last = Case("", root, direction, depth, nodes, truncated)
            if last is not None:
                seen.append((last, False))
    sizes = sorted({len(c.nodes) for c, _ in seen})
    print(f"    lineage answer sizes seen: {sizes}", flush=True)
    cases: list[Case] = []
    for target in TARGETS:
        left = [(c, grows) for c, grows in seen if c not in cases]
        best, _ = min(
            left,
            # An answer that is the whole reachable graph counts as 25 % further off.
            key=lambda x: (
                abs(len(x[0].nodes) - target) + (0 if x[1] else target / 4),
                x[0].truncated,
                x[0].depth,
            ),
        )
        best.label = f"~{target}"
        if abs(len(best.nodes) - target) > target / 2:  # out of the workload's reach
            best, _ = max(left, key=lambda x: (len(x[0].nodes), x[1], -x[0].depth))
            best.label = f"largest (~{target} not reached)"
        cases.append(best)
    return cases


def _frontier(gql: GraphQL, case: Case) -> None:
    """Choose the node to click: one whose one-hop expand (same direction) adds nodes, or,
    when the answer is the whole reachable graph, the root (its expand then adds none)."""
    for node in sorted(case.nodes - {case.root}):
        hop, _ = _answer(gql, node, case.direction, 1)
        if hop - case.nodes:
            case.expand, case.expanded = node, case.nodes | hop
            return
    case.expand, case.expanded = case.root, set(case.nodes)


@contextmanager
def _served(infra: PrivateInfra) -> Iterator[str]:
    """The query service (with the built explorer at /ui) in a process of its own, started
    as `provgraph services up` starts it (`Apps`: its command line, pid and log files under
    the benchmark's state folder), on a free loopback port over the benchmark's Neo4j: the
    browser driver's Python does not share its interpreter. No principals exist, so
    authentication is off (the page still keeps a token; the service ignores it)."""
    apps = provgraph_apps(infra.settings.model_copy(update={"query_port": free_port()}))
    spec = next(s for s in apps.specs if s.name == "query")
    process = apps.process(spec)
    env = {
        **os.environ,
        "PROVGRAPH_UI_DIR": str(UI_DIR),
        "PROVGRAPH_AUTH_DISABLED": "true",
        "PROVGRAPH_NEO4J_URI": apps.settings.neo4j_uri,
        "PROVGRAPH_NEO4J_USER": apps.settings.neo4j_user,
        "PROVGRAPH_NEO4J_PASSWORD": infra.neo4j.password(),
    }
    base = apps.settings.query_url
    health = f"{base}{spec.health_path}"
    process.start(spec.argv, env=env)
    try:
        up = wait_until(lambda: process.pid() is None or answers_ok(health), 60)
        if not up or process.pid() is None:
            why = process.log_tail()
            raise BenchmarkError(f"explorer: the query service did not start:\n{why}")
        yield base
    finally:
        process.stop(15)


@contextmanager
def _chromium() -> Iterator[Browser]:
    """Debian's Chromium, headless (never a downloaded browser)."""
    path = shutil.which("chromium")
    if not path:
        raise BenchmarkError("explorer: Chromium is missing (`make system-deps` installs it)")
    args = ["--disable-dev-shm-usage", *(["--no-sandbox"] if os.geteuid() == 0 else [])]
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, headless=True, args=args)
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class Sample:
    drawn_ms: float  # navigation start -> `lineage-drawn`
    all_nodes_ms: float  # navigation start -> the last `[data-node-id]` element present
    expand_ms: float  # click -> `expand-painted`
    answered_ms: float  # the page's own fetch of the answer (window.__provgraphPerf)
    layout_ms: float  # the page's dagre layout (in its worker) of the last graph


class PageRun:
    """One load of a case's route in a fresh page, with every GraphQL request it sent."""

    def __init__(self, context: BrowserContext, base: str, case: Case, expect: int) -> None:
        self.case = case
        self.bodies: list[dict[str, Any]] = []
        self.page: Page = context.new_page()
        self.page.add_init_script(_INIT % {"key": json.dumps(_TOKEN_KEY), "expect": expect})
        self.errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", self._request)
        self.page.goto(f"{base}/ui/#{case.route()}")

    def _request(self, request: Request) -> None:
        if request.url.endswith("/graphql") and request.method == "POST" and request.post_data:
            self.bodies.append(json.loads(request.post_data))

    def _wait_mark(self, name: str) -> float:
        try:
            self.page.wait_for_function(
                f"() => ({_MARK})({json.dumps(name)}) !== null", timeout=WAIT_MS
            )
        except Exception as e:
            raise BenchmarkError(
                f"explorer {self.case.label}: no `{name}` mark within {WAIT_MS} ms"
                f" (page errors: {self.errors or 'none'})"
            ) from e
        return float(self.page.evaluate(_MARK, name))

    def drawn_ids(self) -> set[str]:
        return set(self.page.eval_on_selector_all("[data-node-id]", _DRAWN_IDS))

    def lineage(self) -> tuple[float, float]:
        """(ms to `lineage-drawn`, ms to the last node element), both from navigation start."""
        drawn = self._wait_mark("lineage-drawn")
        self.page.wait_for_function("() => window.__bench.allNodesAt !== null", timeout=WAIT_MS)
        return drawn, float(self.page.evaluate("() => window.__bench.allNodesAt"))

    def expand(self) -> float:
        """Click the case's expand node; ms from the click to `expand-painted`."""
        self.page.evaluate(
            "n => { window.__bench.expect = n; window.__bench.allNodesAt = null; }",
            len(self.case.expanded),
        )
        node = self.page.locator(f'[data-node-id="{self.case.expand}"]')
        try:
            node.click(timeout=5_000)
        except Exception:  # covered or off-screen in a large layout: the same DOM click event
            node.dispatch_event("click")
        painted = self._wait_mark("expand-painted")
        clicked = self.page.evaluate("() => window.__bench.clickAt")
        if clicked is None:
            raise BenchmarkError(f"explorer {self.case.label}: the click was not seen")
        return painted - float(clicked)

    def perf(self, name: str) -> float:
        value = self.page.evaluate(f"() => (window.__provgraphPerf || {{}})[{json.dumps(name)}]")
        return float(value) if value is not None else float("nan")

    def close(self) -> None:
        self.page.close()


def _check(case: Case, drawn: set[str], expected: set[str], when: str) -> None:
    if drawn != expected:
        missing, extra = sorted(expected - drawn)[:5], sorted(drawn - expected)[:5]
        raise BenchmarkError(
            f"explorer {case.label} ({case.what()}) {when}: drew {len(drawn)} nodes, the GraphQL"
            f" answer has {len(expected)}; missing {missing}, not in the answer {extra}"
        )


def _checked_load(context: BrowserContext, base: str, case: Case) -> None:
    """The untimed first load: the drawn sets before and after the expand must be the answers;
    keeps the GraphQL documents the page sent (lineage, then the one-hop expand)."""
    run = PageRun(context, base, case, len(case.nodes))
    try:
        run.lineage()
        _check(case, run.drawn_ids(), case.nodes, "on load")
        run.expand()
        run.page.wait_for_function("() => window.__bench.allNodesAt !== null", timeout=WAIT_MS)
        _check(case, run.drawn_ids(), case.expanded, f"after expanding {case.expand}")
        lineages = [b for b in run.bodies if "lineage(" in b.get("query", "")]
        ours = [b for b in lineages if b.get("variables", {}).get("id") == case.root]
        hops = [b for b in lineages if b.get("variables", {}).get("id") == case.expand]
        if not ours or not hops:
            raise BenchmarkError(f"explorer {case.label}: the page's lineage requests not seen")
        case.lineage_doc, case.expand_doc = ours[0], hops[-1]
    finally:
        run.close()


def _timed_load(context: BrowserContext, base: str, case: Case) -> Sample:
    run = PageRun(context, base, case, len(case.nodes))
    try:
        drawn, all_nodes = run.lineage()
        if len(run.drawn_ids()) != len(case.nodes):
            raise BenchmarkError(f"explorer {case.label}: the drawn node count changed")
        answered, layout = run.perf("lineageAnsweredMs"), run.perf("layoutMs")
        return Sample(drawn, all_nodes, run.expand(), answered, layout)
    finally:
        run.close()


def _in_process(gql: GraphQL, doc: dict[str, Any], n: int) -> list[float]:
    """The page's own GraphQL document, executed in-process n times (after one warm-up)."""
    query, variables = doc["query"], doc.get("variables") or {}
    gql.execute(query, **variables)
    times = []
    for _ in range(n):
        start = time.perf_counter()
        gql.execute(query, **variables)
        times.append((time.perf_counter() - start) * 1000)
    return times


def run(infra: PrivateInfra, tops: list[str], bottoms: list[str], samples: int) -> Table:
    """The two cases, `samples` page loads each (and as many in-process GraphQL calls, at
    least 20)."""
    if not os.environ.get("PROVGRAPH_BENCH_UI_DIR"):
        build_explorer(UI_DIR)
    if not (UI_DIR / "index.html").is_file():
        raise BenchmarkError(f"explorer: the explorer is not built in {UI_DIR}")
    # The workload's answers stop near 200 nodes: a wide project beside it has ~1,000-node ones.
    GraphWriter(infra.driver).write([project_event(e) for e in wide_events(WIDE_FAN)])
    gql = GraphQL(infra.driver)
    cases = pick_cases(gql, tops, [*bottoms, raw_version()])
    for case in cases:
        _frontier(gql, case)
        print(f"    {case.label}: {len(case.nodes)} nodes, {case.what()}", flush=True)
    results: dict[str, list[Sample]] = {}
    with _served(infra) as base, _chromium() as browser:
        context = browser.new_context(viewport={"width": 1600, "height": 1000})
        try:
            for case in cases:
                _checked_load(context, base, case)
                print(f"    {case.label}: drawn sets checked; {samples} timed loads", flush=True)
                results[case.label] = []
                for n in range(samples):
                    sample = _timed_load(context, base, case)
                    results[case.label].append(sample)
                    print(
                        f"      load {n + 1}/{samples}: drawn {sample.drawn_ms:,.0f} ms,"
                        f" expand {sample.expand_ms:,.0f} ms",
                        flush=True,
                    )
        finally:
            context.close()
    calls = max(samples, 20)
    graphql = {c.label: _in_process(gql, c.lineage_doc, calls) for c in cases}
    hops = {c.label: _in_process(gql, c.expand_doc, calls) for c in cases}
    return _table(cases, results, graphql, hops, samples, calls)


def _table(
    cases: list[Case],
    results: dict[str, list[Sample]],
    graphql: dict[str, list[float]],
    hops: dict[str, list[float]],
    samples: int,
    calls: int,
) -> Table:
    table = Table(
        "explorer",
        f"Explorer in Chromium: p50/p99 ms, {samples} page loads per case;"
        f" GraphQL in-process, {calls} calls of the page's own document",
        [
            "case",
            "drawn",
            "nodes",
            "to lineage-drawn p50",
            "p99",
            "to last node p50",
            "p99",
            "GraphQL lineage p50",
            "p99",
            "drawn/GraphQL p50",
            "expanded node (+nodes)",
            "click to expand-painted p50",
            "p99",
            "GraphQL one-hop p50",
            "expand/GraphQL p50",
            "page fetch p50",
            "page layout p50",
        ],
    )
    for c in cases:
        s = results[c.label]
        drawn = [x.drawn_ms for x in s]
        last = [x.all_nodes_ms for x in s]
        expand = [x.expand_ms for x in s]
        g50, h50 = percentile(graphql[c.label], 50), percentile(hops[c.label], 50)
        table.add(
            c.label,
            c.what(),
            len(c.nodes),
            percentile(drawn, 50),
            percentile(drawn, 99),
            percentile(last, 50),
            percentile(last, 99),
            g50,
            percentile(graphql[c.label], 99),
            ratio(percentile(drawn, 50), g50),
            f"{c.expand} (+{len(c.expanded) - len(c.nodes)})",
            percentile(expand, 50),
            percentile(expand, 99),
            h50,
            ratio(percentile(expand, 50), h50),
            percentile([x.answered_ms for x in s], 50),
            percentile([x.layout_ms for x in s], 50),
        )
    table.extra = {
        "samples": {c.label: [vars(x) for x in results[c.label]] for c in cases},
        "graphql_ms": graphql,
        "graphql_one_hop_ms": hops,
        "ui_dir": str(UI_DIR),
    }
    return table
