"""Part 3: lineage, impact, diff, reproduce, dossier, ... through GraphQL beside the driver.

Two raw baselines: the read model's own Cypher text sent straight through the driver (the
ratio is then the whole API layer: GraphQL, conversion, DataLoaders), and a minimal
hand-written BFS that returns only the reached nodes (no scope filter, no edges).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial
from typing import Any

from neo4j import Driver

from benchmarks.gql import GraphQL
from benchmarks.pipeline import BenchmarkError
from benchmarks.report import Table, line_plot, percentile, ratio
from provgraph.query.read import graph_cypher as cypher
from provgraph.query.read.convert import node_view
from provgraph.query.read.graph_cypher import LINEAGE_RELS
from provgraph.query.read.model import Direction, NodeWhere, Scope
from provgraph.query.recipes.dossier import Dossiers
from provgraph.query.recipes.dossier_render import render_markdown

DEPTHS = (1, 3, 5, 10, 20)
_SCOPE = {"all": True, "projects": [], "as_of": None}
_GQL_LINEAGE = """
query($id: ID!, $depth: Int!) {
  lineage(id: $id, direction: %s, depth: $depth) {
    root { id } nodes { id } edges { from to type } truncated depths
  }
}"""
_GQL_IMPACT = "query($id: ID!) { impact(id: $id) { node { id } path { nodes { id } } } }"
_GQL_DIFF = "query($a: ID!, $b: ID!) { diff(a: $a, b: $b) }"
_GQL_REPRODUCE = "query($id: ID!) { reproduce(id: $id) }"
_GQL_COMPARE = "query($e: ID!) { compare(experiment: $e) { runs { id check { flagged } } } }"
_GQL_EFFECTS = (
    'query($p: String!) { effects(project: $p, metric: "final:loss") '
    "{ pairs effects { label pairs meanDelta failed } } }"
)
_GQL_LESSONS = (
    'query($p: String!) { lessons(text: "converged", project: $p, kinds: [RUN], '
    'metric: "final:loss<10") { hits { id matches { text } } truncated } }'
)
_GQL_COST = (
    "query($id: ID!) { cost(id: $id, includeBase: true) "
    "{ runs { id acceleratorHours } totals { acceleratorHours } withBase { hours } } }"
)
_GQL_LINT_METRICS = (
    "query($p: String!) { lintMetrics(project: $p) { metrics groups { key canonical } } }"
)
_GQL_LINT_NAMES = (
    "query($p: String!) { lintNames(project: $p) { rules kinds { kind checked "
    "breaks { id suggestion } } } }"
)
_GQL_SCALE_UP = (
    "query($r: ID!) { scaleUp(run: $r) { pilot { id } scaleUp { id } flagged "
    "otherChanges { name } } }"
)
_GQL_STAGES = (
    "query($r: ID!) { checkpointStages(run: $r) { total "
    "checkpoints { id step metrics { name value } } } }"
)
_METRIC = "final:loss<2.5"
_GQL_NODES_METRIC = (
    "query($p: String!) { nodes(type: RUN, first: 50, "
    f'filter: {{ project: $p, metric: "{_METRIC}" }}) {{ items {{ id }} nextCursor }} }}'
)
_GQL_COLLISIONS = (
    "query($p: String!) { collisions(project: $p) { checked outOfPlace { id problem } "
    "shared { uri writers { id } } } }"
)
_GUARDS = {
    "lint-metrics": _GQL_LINT_METRICS,
    "lint-names": _GQL_LINT_NAMES,
    "collisions": _GQL_COLLISIONS,
}
_GQL_BEST = (
    'query($m: String!) { bestModelVersion(model: $m, metric: "mmlu", higherIsBetter: true) '
    "{ evaluationSets { versions } } }"
)
_GQL_DIGEST = 'query($p: String!) { digest(projects: [$p], since: "3650d") { people { person } } }'
_GQL_ADVICE = "query($e: ID!) { checkpointAdvice(id: $e) { runs saveCostSeconds } }"
_GQL_DOSSIER = "query($id: ID!) { dossier(id: $id) { gaps markdown } }"


def _hand_written(direction: Direction, depth: int) -> str:
    left, right = ("-", "->") if direction is Direction.UPSTREAM else ("<-", "-")
    return f"""
MATCH (root:Entity {{id: $id}})
MATCH p = SHORTEST 1 (root){left}[:{LINEAGE_RELS}]{right}{{1,{depth}}}(n:Entity)
RETURN n {{.*}} AS node, length(p) AS depth
"""


def _dossier_markdown(dossiers: Dossiers, version: str, scope: Scope) -> str:
    """The dossier of `version` assembled and rendered, as GraphQL's `markdown` answers it."""
    found = dossiers.dossier(version, scope)
    if found is None:
        raise BenchmarkError(f"dossier: {version} not found")
    return render_markdown(found)


def _timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


class Sides:
    """The callables of one operation: GraphQL, same Cypher raw, hand-written raw."""

    def __init__(self, driver: Driver, gql: GraphQL) -> None:
        self.driver, self.gql = driver, gql

    def cypher(self, text: str, **params: Any) -> Callable[[], Any]:
        return lambda: self.driver.execute_query(text, {**_SCOPE, **params})

    def lineage(self, direction: Direction, depth: int, root: str) -> dict[str, Callable[[], Any]]:
        limits = {"types": [], "limit": 1000, "fetch": 1001}
        query = _GQL_LINEAGE % direction.name
        return {
            "graphql": lambda: self.gql.execute(query, id=root, depth=depth),
            "raw (same Cypher)": self.cypher(cypher.lineage(direction, depth), id=root, **limits),
            "raw (hand-written)": self.cypher(_hand_written(direction, depth), id=root),
        }

    @staticmethod
    def lineage_answer(sides: dict[str, Callable[[], Any]], what: str) -> int:
        """The three sides must reach the same nodes before any time counts; returns how many."""
        graphql = {n["id"] for n in sides["graphql"]()["lineage"]["nodes"]}
        records = sides["raw (same Cypher)"]().records
        same = {node_view(x["node"]).id for x in records[0]["kept"]} if records else set()
        hand = {r["node"]["id"] for r in sides["raw (hand-written)"]().records}
        if not graphql or graphql != same or graphql != hand:
            raise BenchmarkError(
                f"{what}: GraphQL reached"
                f" {len(graphql)} nodes, the same Cypher {len(same)}, hand-written {len(hand)}"
            )
        return len(graphql)

    def impact(self, root: str) -> dict[str, Callable[[], Any]]:
        text = cypher.impact(20)
        dead = {"dead_model": ["retired", "rejected"], "dead_deployment": "retired"}
        return {
            "graphql": lambda: self.gql.execute(_GQL_IMPACT, id=root),
            "raw (same Cypher)": self.cypher(text, id=root, **dead),
        }

    def recipes(self, kind: str, a: str, b: str) -> dict[str, Callable[[], Any]]:
        # Each recipe's service made as its resolver makes it (`RecipeServices`: the same
        # readers, so the same reads, and the service's settings).
        everything, services = Scope.everything(), self.gql.services
        if kind == "compare":  # a: an experiment id
            compare = services.comparisons().compare
            return {
                "graphql": lambda: self.gql.execute(_GQL_COMPARE, e=a),
                "raw (recipes via driver)": lambda: compare(everything, experiment=a),
            }
        if kind == "effects":  # a: a project
            effects = services.comparisons().effects
            return {
                "graphql": lambda: self.gql.execute(_GQL_EFFECTS, p=a),
                "raw (recipes via driver)": lambda: effects(
                    everything, project=a, metric="final:loss"
                ),
            }
        if kind == "lessons":  # a: a project
            lessons = services.lessons().search
            return {
                "graphql": lambda: self.gql.execute(_GQL_LESSONS, p=a),
                "raw (recipes via driver)": lambda: lessons(
                    "converged", everything, project=a, kinds=["run"], metric="final:loss<10"
                ),
            }
        if kind == "cost":  # a: a model version
            costs = services.costs().cost
            return {
                "graphql": lambda: self.gql.execute(_GQL_COST, id=a),
                "raw (recipes via driver)": lambda: costs(a, everything, include_base=True),
            }
        if kind in _GUARDS:  # a: a project
            guards = services.guards()
            report = getattr(guards, kind.replace("-", "_"))
            text = _GUARDS[kind]
            return {
                "graphql": lambda: self.gql.execute(text, p=a),
                "raw (recipes via driver)": lambda: report(a, everything),
            }
        if kind == "scale-up":  # a: a run that names its pilot
            scale_up = services.scale_ups().scale_up
            return {
                "graphql": lambda: self.gql.execute(_GQL_SCALE_UP, r=a),
                "raw (recipes via driver)": lambda: scale_up(a, everything),
            }
        if kind == "checkpoints":  # a: a run
            stages = services.checkpoint_stages().stages
            return {
                "graphql": lambda: self.gql.execute(_GQL_STAGES, r=a),
                "raw (recipes via driver)": lambda: stages(a, everything, None),
            }
        if kind == "nodes metric":  # a: a project
            listing = services.listing()
            where = NodeWhere(project=a)
            return {
                "graphql": lambda: self.gql.execute(_GQL_NODES_METRIC, p=a),
                "raw (recipes via driver)": lambda: listing.nodes(
                    "Run", everything, where, metric=_METRIC, first=50
                ),
            }
        if kind == "best":  # a: a model id
            best = services.best_and_environments().best
            return {
                "graphql": lambda: self.gql.execute(_GQL_BEST, m=a),
                "raw (recipes via driver)": lambda: best(
                    a, "mmlu", everything, higher_is_better=True
                ),
            }
        if kind in ("digest", "advise-checkpoints"):  # a: a project, an experiment id
            team = services.team()
            if kind == "digest":
                return {
                    "graphql": lambda: self.gql.execute(_GQL_DIGEST, p=a),
                    "raw (recipes via driver)": lambda: team.digest(
                        [a], everything, since_s=3650 * 86400.0
                    ),
                }
            return {
                "graphql": lambda: self.gql.execute(_GQL_ADVICE, e=a),
                "raw (recipes via driver)": lambda: team.advise_checkpoints(everything, target=a),
            }
        if kind == "dossier":  # a: a model version, the deepest of the workload
            dossiers = services.dossiers()
            return {
                "graphql": lambda: self.gql.execute(_GQL_DOSSIER, id=a),
                "raw (recipes via driver)": lambda: _dossier_markdown(dossiers, a, everything),
            }
        if kind == "diff":
            return {
                "graphql": lambda: self.gql.execute(_GQL_DIFF, a=a, b=b),
                "raw (recipes via driver)": lambda: self.gql.services.recipes.diff(
                    a, b, everything
                ),
            }
        return {
            "graphql": lambda: self.gql.execute(_GQL_REPRODUCE, id=a),
            "raw (recipes via driver)": lambda: self.gql.services.recipes.reproduce(a, everything),
        }


WARM_UP_S = 2.0
"""Seconds of untimed calls of a row before its timed ones (at least one round of every case
and side): on a server that has just started, the JVM is still compiling the paths of the
row's reads, on the same two cores as the client's Python, and one round per case left that
inside the timed calls."""


def _measure(
    cases: list[dict[str, Callable[[], Any]]], n: int, warm_up_s: float = WARM_UP_S
) -> dict[str, list[float]]:
    """Every side of every case, interleaved call by call (so drift hits all sides alike)."""
    samples: dict[str, list[float]] = {side: [] for side in cases[0]}
    warm_until = time.perf_counter() + warm_up_s
    while True:  # warm-up: plans cached, pages in memory, the server's code compiled
        for case in cases:
            for fn in case.values():
                fn()
        if time.perf_counter() >= warm_until:
            break
    for i in range(n):
        for side, fn in cases[i % len(cases)].items():
            samples[side].append(_timed(fn))
    return samples


def run(
    driver: Driver,
    tops: list[str],
    bottoms: list[str],
    samples: int,
    warm_up_s: float = WARM_UP_S,
) -> Table:
    """`tops`: model versions to trace upstream; `bottoms`: dataset versions with a downstream;
    each row warmed up for `warm_up_s` seconds first."""
    gql, table = GraphQL(driver), None
    sides = Sides(driver, gql)
    measure = partial(_measure, n=samples, warm_up_s=warm_up_s)
    projects = [t.removeprefix("model:").split("/")[0] for t in tops]
    rows: list[tuple[str, dict[str, list[float]]]] = []
    sizes: dict[str, float] = {}  # mean nodes reached per start node, checked on every side
    for direction, roots in ((Direction.UPSTREAM, tops), (Direction.DOWNSTREAM, bottoms)):
        for depth in DEPTHS:
            name = f"lineage {direction.name.lower()} d={depth}"
            cases = [sides.lineage(direction, depth, r) for r in roots]
            reached = [
                Sides.lineage_answer(c, f"{name} from {r}")
                for c, r in zip(cases, roots, strict=True)
            ]
            sizes[name] = sum(reached) / len(reached)
            rows.append((name, measure(cases)))
    rows.append(("impact", measure([sides.impact(r) for r in bottoms])))
    runs = [(f"run:{p}-e3-r0", f"run:{p}-e3-r1") for p in projects]
    rows.append(("diff", measure([sides.recipes("diff", a, b) for a, b in runs])))
    rows.append(("reproduce", measure([sides.recipes("reproduce", t, "") for t in tops])))
    # The dossier of each shipped model: the workload's longest base-model chain.
    rows.append(("dossier", measure([sides.recipes("dossier", t, "") for t in tops])))
    experiments = [sides.recipes("compare", f"experiment:{p}/exp-3", "") for p in projects]
    rows.append(("compare", measure(experiments)))
    # Every one-change pair of a project: its latest 5,000 runs read and checked.
    rows.append(("effects", measure([sides.recipes("effects", p, "") for p in projects])))
    # The full-text index, then a metric condition checked on each of its best 1,000 matches.
    rows.append(("lessons", measure([sides.recipes("lessons", p, "") for p in projects])))
    # The shipped model's producing run, its experiment's failed attempts and its base's share.
    rows.append(("cost", measure([sides.recipes("cost", t, "") for t in tops])))
    # The guards over a whole project: every metric name of its runs and evaluations, every
    # run and model version against the project's naming rules, and every output with its
    # run's experiment.
    for guard in _GUARDS:
        rows.append((guard, measure([sides.recipes(guard, p, "") for p in projects])))
    # A scale-up beside its pilot (the second run of the last experiment scales up the first).
    scale_ups = [sides.recipes("scale-up", f"run:{p}-e3-r1", "") for p in projects]
    rows.append(("scale-up", measure(scale_ups)))
    stages = [sides.recipes("checkpoints", f"run:{p}-e3-r0", "") for p in projects]
    rows.append(("checkpoints", measure(stages)))
    # A page of a project's runs that meet a final metric's condition.
    listed = [sides.recipes("nodes metric", p, "") for p in projects]
    rows.append(("nodes metric", measure(listed)))
    models = [sides.recipes("best", f"model:{p}/chat-7b", "") for p in projects]
    rows.append(("best", measure(models)))
    rows.append(("digest", measure([sides.recipes("digest", p, "") for p in projects])))
    advice = [sides.recipes("advise-checkpoints", f"experiment:{p}/exp-3", "") for p in projects]
    rows.append(("advise-checkpoints", measure(advice)))
    table = Table(
        "queries",
        f"Queries: p50/p99 ms, {samples} calls per row over {len(projects)} start nodes",
        [
            "query",
            "nodes reached",
            "graphql p50",
            "graphql p99",
            "raw p50",
            "raw p99",
            "GraphQL/raw p50",
            "hand-written p50",
            "GraphQL/hand-written p50",
        ],
    )
    for name, s in rows:
        raw = next(v for k, v in s.items() if k.startswith("raw (same") or k.startswith("raw (rec"))
        hand = s.get("raw (hand-written)")
        g50, r50 = percentile(s["graphql"], 50), percentile(raw, 50)
        h50 = percentile(hand, 50) if hand else float("nan")
        table.add(
            name,
            round(sizes[name], 1) if name in sizes else "-",
            g50,
            percentile(s["graphql"], 99),
            r50,
            percentile(raw, 99),
            ratio(g50, r50),
            h50,
            ratio(g50, h50) if hand else "-",
        )
    lineage = [r for r in table.rows if str(r[0]).startswith("lineage")]
    table.ratios = {
        "GraphQL/raw lineage p50 (worst)": max(float(r[6]) for r in lineage),
        "GraphQL/raw lineage p50 (median)": sorted(float(r[6]) for r in lineage)[len(lineage) // 2],
    }
    table.extra = {"calls_per_row": samples, "start_nodes": tops + bottoms}
    series = {}
    for way in ("upstream", "downstream"):
        picked = [r for r in lineage if way in str(r[0])]
        series[f"graphql {way}"] = ([float(d) for d in DEPTHS], [float(r[2]) for r in picked])
        series[f"raw {way}"] = ([float(d) for d in DEPTHS], [float(r[4]) for r in picked])
    line_plot("queries", "Lineage p50 by depth", series, "depth", "ms")
    return table
