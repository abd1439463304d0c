"""The `BestEnvReads` contract: the reads of `best` (a model's evaluation rows), `env-diff`
(two snapshots and the BASED_ON path between them) and `runs-with` (the runs whose environment
records a package), every adapter held to the same answers.

`BestEnvReadsContract` runs against `FakeBestEnvReads`
(tests/unit/query/test_best_env_reads_contract_fake.py) and `BestEnvReader` over the real Neo4j
(tests/integration/query/test_best_env_reads_contract_neo4j.py), each over `best_env_graph`:
two projects with edges between them. What the caller may not read does not exist: it is
neither answered nor walked through. Project names are parameters; expected orders are computed
(rows by version then evaluation, runs by start, else first seen, then id), never written out.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import Any

import pytest
from support.contract_graphs_recipes import KeyedGraph, at

from provgraph.query.read.best_env_reads import ENV_CHAIN_DEPTH, BestEnvReads
from provgraph.query.read.model import Scope
from provgraph.schemas.graph import Label, Rel
from provgraph.schemas.storage import FIRST_SEEN_AT, dotted, with_json

ACC, LOSS = "acc", "val/loss"
FETCH = 3  # the model has several times more evaluation rows, the package more runs
CHAIN = 3 * ENV_CHAIN_DEPTH  # BASED_ON steps of a chain three times longer than the bound
TORCH = [dotted("package", "torch"), dotted("framework", "torch")]
_RUN_FIELDS = ("id", "project", "name", "run_number", "status", "started_at", "ended_at")


def _versions(g: KeyedGraph) -> None:
    g.add("m", Label.MODEL, "model:{a}/chat", name="chat")
    g.add("mb", Label.MODEL, "model:{b}/spy", name="spy")
    g.add("empty", Label.MODEL, "model:{a}/empty", name="empty")
    for n in (1, 2, 3, 4):
        registered = {"registered_at": at(100 + n)} if n != 2 else {}
        status = "approved" if n == 4 else "candidate"
        props = {"version": f"{n}", "status": status, **registered}
        g.add(f"v{n}", Label.MODEL_VERSION, f"model:{{a}}/chat@{n}", at(n), **props)
    g.add("vdel", Label.MODEL_VERSION, "model:{a}/chat@5", at(5), version="5")
    g.mark("vdel", deleted=at(50))
    g.add("vb", Label.MODEL_VERSION, "model:{b}/chat@6", at(6), version="6")
    for key in ("v1", "v2", "v3", "v4", "vdel", "vb"):
        g.link(key, Rel.VERSION_OF, "m")
    for data in ("eval-a", "eval-b"):
        g.add(data, Label.DATASET_VERSION, f"dataset:{{a}}/{data}@v1", name=data, version="v1")
    g.add("secret", Label.DATASET_VERSION, "dataset:{b}/secret@v1", name="secret")


def _evaluations(g: KeyedGraph) -> None:
    """Two evaluations of `acc` per version, on eval-a and on eval-b."""
    for n, version in enumerate(("v1", "v2", "v3", "v4", "vdel", "vb"), 1):
        for data, value in (("eval-a", n / 10), ("eval-b", 1 - n / 10)):
            key = f"{data}-{version}"
            suite = {"suite": "harness", "suite_version": "0.4"} if key != "eval-b-v2" else {}
            when = {"evaluated_at": at(200 + n)} if data == "eval-a" else {}
            props = {dotted("metric", ACC): value, **suite, **when}
            g.add(key, Label.EVALUATION, "evaluation:{uuid}", at(10 + n), **props)
            g.mark(key, owner="b" if version == "vb" else "a")
            g.link(key, Rel.EVALUATED, version)
            g.link(key, Rel.USED, data, role="eval")
    g.link("eval-a-v1", Rel.USED, "eval-a", role="again")  # one dataset, twice
    g.link("eval-a-v1", Rel.USED, "secret", role="eval")
    for key, metric, value in (("theirs", ACC, 1), ("dropped", ACC, 0.99), ("lossy", LOSS, 1.5)):
        g.add(
            key, Label.EVALUATION, "evaluation:{uuid}", at(20), **{dotted("metric", metric): value}
        )
    g.mark("theirs", owner="b")
    g.mark("dropped", deleted=at(22))
    for key, version in (("theirs", "v3"), ("dropped", "v2"), ("lossy", "v1")):
        g.link(key, Rel.EVALUATED, version)


def _snapshots(g: KeyedGraph) -> None:
    """A chain c0 <- c1 <- ... (each BASED_ON the one before), and a diamond: `next` is based
    on b's `mid`, based on `base`, and on a longer way through a's `alt1` and `alt2`."""
    for i in range(CHAIN + 1):
        g.add(f"c{i}", Label.ENVIRONMENT, f"environment:{{a}}/c{i}", key=f"c{i}")
    for i in range(CHAIN):
        g.link(f"c{i + 1}", Rel.BASED_ON, f"c{i}")
    packages = with_json("packages", {"torch": "2.5.1"}, "package")
    g.add("base", Label.ENVIRONMENT, "environment:{a}/base", key="base", **packages)
    g.add("mid", Label.ENVIRONMENT, "environment:{b}/mid", key="mid")
    for key in ("next", "alt1", "alt2", "other"):
        g.add(key, Label.ENVIRONMENT, f"environment:{{a}}/{key}", key=key)
    for src, dst in (("mid", "base"), ("next", "mid"), ("alt1", "base"), ("alt2", "alt1")):
        g.link(src, Rel.BASED_ON, dst)
    g.link("next", Rel.BASED_ON, "alt2")


# key: (project, deleted, recorded versions by flattened key)
_ENVS: dict[str, tuple[str, bool, dict[str, Any]]] = {
    "torch25": ("a", False, {"packages": {"torch": "2.5.1", "numpy": "2.1.3"}}),
    "mixed": ("a", False, {"packages": {"torch": "2.6.0"}, "frameworks": {"torch": "2.5.1"}}),
    "framework": ("a", False, {"frameworks": {"torch": "2.5.1"}}),
    "numpy": ("a", False, {"packages": {"numpy": "2.1.3"}}),
    "cuda": ("a", False, {"compute_libs": {"cuda": 12}}),
    "dropped": ("a", True, {"packages": {"torch": "2.5.1"}}),
    "theirs": ("b", False, {"packages": {"torch": "2.5.1"}}),
}
_PREFIX = {"packages": "package", "frameworks": "framework", "compute_libs": "compute_lib"}


def _environments(g: KeyedGraph) -> None:
    for key, (owner, deleted, sections) in _ENVS.items():
        stored: dict[str, Any] = {}
        for section, versions in sections.items():
            stored.update(with_json(section, versions, _PREFIX[section]))
        g.add(f"env-{key}", Label.ENVIRONMENT, f"environment:{{{owner}}}/{key}", **stored)
        g.mark(f"env-{key}", deleted=at(1) if deleted else None)
    g.add("xa1", Label.EXPERIMENT, "experiment:{a}/one", key="one")
    g.add("xa2", Label.EXPERIMENT, "experiment:{a}/two", key="two")
    g.add("xb", Label.EXPERIMENT, "experiment:{b}/spy", key="spy")


def _runs(g: KeyedGraph) -> None:
    """Twelve runs in `torch25` (two started at once, one never started, one deleted, one of
    b), and one in each other environment (one of a in b's)."""
    for i in range(12):
        start = {"started_at": at(300 + 10 * i)} if i != 5 else {}
        props = {"name": f"w{i}", "run_number": i, "status": "completed", **start}
        g.add(
            f"w{i}", Label.RUN, f"run:{{a}}-w{i}", at(400 - i), ended_at=at(301 + 10 * i), **props
        )
        g.link(f"w{i}", Rel.RAN_IN, "env-torch25")
    g.add("w-same", Label.RUN, "run:{a}-w-same", at(1), started_at=at(300 + 10 * 3))
    g.add("w-dropped", Label.RUN, "run:{a}-w-dropped", at(1), started_at=at(0))
    g.mark("w-dropped", deleted=at(2))
    g.add("w-theirs", Label.RUN, "run:{b}-w-theirs", at(1), started_at=at(301))
    for key in ("w-same", "w-dropped", "w-theirs"):
        g.link(key, Rel.RAN_IN, "env-torch25")
    for key in ("mixed", "framework", "numpy", "cuda", "dropped", "theirs"):
        g.add(f"in-{key}", Label.RUN, f"run:{{a}}-in-{key}", at(2), started_at=at(500))
        g.link(f"in-{key}", Rel.RAN_IN, f"env-{key}")
    g.add("theirs-in-theirs", Label.RUN, "run:{b}-in-theirs", at(3), started_at=at(499))
    g.link("theirs-in-theirs", Rel.RAN_IN, "env-theirs")
    for run, experiment in (("w0", "xa2"), ("w0", "xa1"), ("w1", "xb")):
        g.link(run, Rel.PART_OF, experiment)


def best_env_graph(a: str, b: str) -> KeyedGraph:
    """Project `a`: a model with versions, evaluations and their datasets; snapshot chains;
    environments recording packages, and the runs that ran in them. Project `b`: a version and
    evaluations of a's model, a snapshot of the diamond, an environment, runs."""
    graph = KeyedGraph(a, b)
    for build in (_versions, _evaluations, _snapshots, _environments, _runs):
        build(graph)
    return graph


class BestEnvReadsContract:
    """What every `BestEnvReads` adapter answers on `best_env_graph`. Subclasses provide
    `graph` (loaded into the adapter under test) and `reads` (the adapter)."""

    @pytest.fixture()
    def graph(self) -> KeyedGraph:
        raise NotImplementedError("each adapter's test class loads the contract graph")

    @pytest.fixture()
    def reads(self, graph: KeyedGraph) -> BestEnvReads:
        raise NotImplementedError("each adapter's test class provides its reads")

    # ---- evaluations ---------------------------------------------------------------------------

    @staticmethod
    def _row(
        graph: KeyedGraph, evaluation: str, version: str, *data: str, metric: str = ACC
    ) -> dict[str, Any]:
        """The row of `evaluation` of `version`, which used `data` (keys)."""
        v, e = graph.props(version), graph.props(evaluation)
        return {
            "version": v["id"],
            "label": v.get("version"),
            "status": v.get("status"),
            "registered_at": v.get("registered_at", v[FIRST_SEEN_AT]),
            "evaluation": e["id"],
            "suite": e.get("suite"),
            "suite_version": e.get("suite_version"),
            "evaluated_at": e.get("evaluated_at", e[FIRST_SEEN_AT]),
            "value": e[dotted("metric", metric)],
            "datasets": graph.ids(*data),
        }

    def _rows(self, graph: KeyedGraph, *, with_b: bool) -> list[dict[str, Any]]:
        """Every `acc` row of model `m` a reader of `a` (and of `b`: `with_b`) sees, by
        version then evaluation."""
        versions = ["v1", "v2", "v3", "v4", *(["vb"] if with_b else [])]
        used = {"eval-a-v1": ["eval-a", "secret"] if with_b else ["eval-a"]}
        rows = [
            self._row(graph, f"{d}-{v}", v, *used.get(f"{d}-{v}", [d]))
            for v in versions
            for d in ("eval-a", "eval-b")
        ]
        if with_b:
            rows.append(self._row(graph, "theirs", "v3"))
        return sorted(rows, key=lambda r: (r["version"], r["evaluation"]))

    def test_evaluations_by_version_then_evaluation_cut_at_fetch(
        self, reads: BestEnvReads, graph: KeyedGraph
    ) -> None:
        only_a, both = graph.scopes()
        m = graph.id("m")
        for scope, with_b in ((only_a, False), (both, True)):
            rows = self._rows(graph, with_b=with_b)
            assert reads.evaluations(m, ACC, 100, scope) == rows
            assert reads.evaluations(m, ACC, FETCH, scope) == rows[:FETCH]
        assert reads.evaluations(m, LOSS, 100, only_a) == [
            self._row(graph, "lossy", "v1", metric=LOSS)
        ]

    def test_evaluations_of_a_missing_or_unreadable_model_are_none(
        self, reads: BestEnvReads, graph: KeyedGraph
    ) -> None:
        only_a, both = graph.scopes()
        assert reads.evaluations(graph.id("mb"), ACC, FETCH, only_a) is None
        assert reads.evaluations(graph.id("mb"), ACC, FETCH, both) == []
        assert reads.evaluations("model:nowhere/x", ACC, FETCH, both) is None
        assert reads.evaluations(graph.id("v1"), ACC, FETCH, both) is None  # a version
        assert reads.evaluations(graph.id("empty"), ACC, FETCH, both) == []
        assert reads.evaluations(graph.id("m"), "f1", FETCH, both) == []

    # ---- environment_pair ----------------------------------------------------------------------

    @staticmethod
    def _pair(
        graph: KeyedGraph, a: str | None, b: str | None, path: Sequence[str] = ()
    ) -> dict[str, Any]:
        """The answer for snapshots `a` and `b` (keys; None: not seen) with the path through
        `path` (keys; none when empty), each relationship in its stored direction."""
        based = {(e.src, e.dst) for e in graph.edges if e.type == Rel.BASED_ON}
        ids = [graph.id(k) for k in path]
        rels = [{"src": x, "dst": y} if (x, y) in based else {"src": y, "dst": x}
                for x, y in pairwise(ids)]  # fmt: skip
        paths = [{"nodes": [graph.props(k) for k in path], "rels": rels}] if path else []
        return {
            "a": graph.props(a) if a is not None else None,
            "b": graph.props(b) if b is not None else None,
            "paths": paths,
        }

    def test_the_based_on_path_either_way_up_to_the_bound(
        self, reads: BestEnvReads, graph: KeyedGraph
    ) -> None:
        only_a, _ = graph.scopes()
        far = ENV_CHAIN_DEPTH
        for start, stop in ((0, far), (far, 0), (CHAIN - far, CHAIN), (0, 1)):
            step = 1 if stop > start else -1
            chain = [f"c{i}" for i in range(start, stop + step, step)]
            found = reads.environment_pair(graph.id(chain[0]), graph.id(chain[-1]), only_a)
            assert found == self._pair(graph, chain[0], chain[-1], chain), (start, stop)
        for start, stop in ((0, far + 1), (CHAIN, 0)):
            a, b = f"c{start}", f"c{stop}"
            found = reads.environment_pair(graph.id(a), graph.id(b), only_a)
            assert found == self._pair(graph, a, b), (a, b)

    def test_the_path_never_passes_through_an_unreadable_snapshot(
        self, reads: BestEnvReads, graph: KeyedGraph
    ) -> None:
        only_a, both = graph.scopes()
        base, after = graph.id("base"), graph.id("next")
        mine = self._pair(graph, "base", "next", ["base", "alt1", "alt2", "next"])
        assert reads.environment_pair(base, after, only_a) == mine
        theirs = self._pair(graph, "base", "next", ["base", "mid", "next"])
        assert reads.environment_pair(base, after, both) == theirs
        assert reads.environment_pair(base, graph.id("mid"), only_a) == self._pair(
            graph, "base", None
        )

    def test_a_missing_unrelated_or_same_snapshot_has_no_path(
        self, reads: BestEnvReads, graph: KeyedGraph
    ) -> None:
        only_a, both = graph.scopes()
        base, mid = graph.id("base"), graph.id("mid")
        assert reads.environment_pair(base, base, only_a) == self._pair(graph, "base", "base")
        unrelated = reads.environment_pair(base, graph.id("other"), only_a)
        assert unrelated == self._pair(graph, "base", "other")
        assert reads.environment_pair(mid, base, both) == self._pair(
            graph, "mid", "base", ["mid", "base"]
        )
        for missing in ("environment:nowhere/x", graph.id("w0")):
            assert reads.environment_pair(missing, base, both) == self._pair(graph, None, "base")
        nobody = Scope(frozenset())
        assert reads.environment_pair(base, mid, nobody) == self._pair(graph, None, None)

    # ---- runs_with -----------------------------------------------------------------------------

    @staticmethod
    def _run_rows(
        graph: KeyedGraph, keys: list[str], runs: dict[str, str], experiments: dict[str, str]
    ) -> list[dict[str, Any]]:
        """The rows of `runs` (run key -> environment key) for `keys`, oldest first."""
        rows = []
        for run, env in runs.items():
            props, recorded = graph.props(run), graph.props(env)
            hits = [{"key": k, "version": str(recorded[k])} for k in keys if k in recorded]
            experiment = experiments.get(run)
            row = {
                "run": {f: props.get(f) for f in _RUN_FIELDS},
                "environment": recorded["id"],
                "hits": hits,
                "experiment": graph.id(experiment) if experiment is not None else None,
            }
            rows.append(((props.get("started_at", props[FIRST_SEEN_AT]), props["id"]), row))
        return [row for _, row in sorted(rows, key=lambda r: r[0])]

    @staticmethod
    def _ran_in(*envs: str, with_b: bool = False) -> dict[str, str]:
        """Run key -> environment key of the live runs in `envs` (keys of `_ENVS`) that a
        reader of `a` (and of `b`: `with_b`) sees."""
        seen = {
            "torch25": [*(f"w{i}" for i in range(12)), "w-same", *(["w-theirs"] if with_b else [])],
            "theirs": ["in-theirs", "theirs-in-theirs"] if with_b else [],
        }
        return {run: f"env-{env}" for env in envs for run in seen.get(env, [f"in-{env}"])}

    def test_runs_with_a_package_oldest_first_cut_at_fetch(
        self, reads: BestEnvReads, graph: KeyedGraph
    ) -> None:
        only_a, both = graph.scopes()
        recorded = ("torch25", "mixed", "framework", "dropped", "theirs")
        for scope, with_b, experiments in (
            (only_a, False, {"w0": "xa1"}),
            (both, True, {"w0": "xa1", "w1": "xb"}),
        ):
            runs = self._ran_in(*recorded, with_b=with_b)
            rows = self._run_rows(graph, TORCH, runs, experiments)
            assert reads.runs_with(TORCH, None, None, 100, scope) == rows
            assert reads.runs_with(TORCH, None, None, FETCH, scope) == rows[:FETCH]

    def test_runs_with_a_version_or_of_a_project(
        self, reads: BestEnvReads, graph: KeyedGraph
    ) -> None:
        only_a, both = graph.scopes()
        older = self._ran_in("torch25", "mixed", "framework", "dropped", "theirs", with_b=True)
        theirs = self._ran_in("theirs", with_b=True)
        cases = [
            ("2.5.1", None, both, older),
            ("2.6.0", None, only_a, self._ran_in("mixed")),
            ("9.9", None, both, {}),
            (None, graph.b, both, theirs),
            (None, graph.b, only_a, {}),
        ]
        for version, project, scope, runs in cases:
            rows = self._run_rows(graph, TORCH, runs, {"w0": "xa1", "w1": "xb"})
            assert reads.runs_with(TORCH, version, project, 100, scope) == rows, version

    def test_runs_with_any_key_and_its_version_as_text(
        self, reads: BestEnvReads, graph: KeyedGraph
    ) -> None:
        only_a, _ = graph.scopes()
        cuda = [dotted("package", "cuda"), dotted("compute_lib", "cuda")]
        rows = self._run_rows(graph, cuda, self._ran_in("cuda"), {})
        assert rows[0]["hits"] == [{"key": cuda[1], "version": "12"}]
        assert reads.runs_with(cuda, None, None, 100, only_a) == rows
        assert reads.runs_with(cuda, "12", None, 100, only_a) == rows
        assert reads.runs_with([dotted("package", "jax")], None, None, 100, only_a) == []
        assert reads.runs_with([], None, None, 100, only_a) == []
