"""The `RecipeReads` contract: the reads of reproduce and diff (one artifact, one run, the
derivation chains of dataset versions), every adapter held to the same answers.

`RecipeReadsContract` runs against `FakeRecipeReads`
(tests/unit/query/test_recipe_reads_contract_fake.py) and `RecipeReader` over the real Neo4j
(tests/integration/query/test_recipe_reads_contract_neo4j.py), each over `recipe_graph`: two
projects with edges between them. A node of an unreadable project is answered like a missing
one and no walk passes through it. Project names are parameters; expected orders are computed
(by id, by role, by step), never written out. Orders the port promises: a run's inputs by role
(a missing role last) then id, its environments and bases by id, its resumes by step (a missing
step last) then id, the producing runs and exported checkpoints by id; a derivation's nodes and
edges come in no promised order and are compared as collections.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from support.contract_graphs_recipes import KeyedGraph, at

from provgraph.query.read.model import Scope
from provgraph.query.read.recipe_reads import DERIVATION_DEPTH, RecipeReads, Record
from provgraph.schemas.graph import Label, Rel
from provgraph.schemas.storage import encode_json, param_key, record, with_json

DV = Label.DATASET_VERSION
CHAIN = 3 * DERIVATION_DEPTH  # a derivation chain three times longer than the bound
NOWHERE = "dataset:nowhere/x@v1"


def _datasets(g: KeyedGraph) -> None:
    g.add("web", Label.DATASET, "dataset:{a}/web", name="web")
    g.add("web1", DV, "dataset:{a}/web@v1", name="web", version="v1", checksum="sha256:w1")
    # The split and the source a recipe shows with each input come back with its properties.
    split = with_json("split", {"train": {"count": 9}, "test": {"ratio": 0.1}}, "split")
    source = record("source", {"uri": "https://crawl.example.org", "obtained_by": "crawler"})
    g.add("web2", DV, "dataset:{a}/web@v2", name="web", version="v2", **split, **source)
    for key in ("web1", "web2"):
        g.link(key, Rel.VERSION_OF, "web")
    g.add("held", DV, "dataset:{a}/heldout@v1", name="heldout", storage_uri="s3://h/v1/")
    g.add("gone", DV, "dataset:{a}/gone@v1", at(1), name="gone")
    g.mark("gone", deleted=at(9))
    g.add("raw", DV, "dataset:{a}/raw@v1", name="raw")
    g.add("secret", DV, "dataset:{b}/secret@v1", name="secret")
    g.link("web2", Rel.DERIVED_FROM, "web1", transform="dedup", weight=0.7)  # a mix's part
    g.link("web2", Rel.DERIVED_FROM, "secret", transform="join")
    g.link("secret", Rel.DERIVED_FROM, "raw")  # a's own data, reached only through b's
    g.add("loop1", DV, "dataset:{a}/loop@v1", **with_json("cleaning_rules", {"drop": 1}, "rule"))
    g.add("loop2", DV, "dataset:{a}/loop@v2")
    g.link("loop1", Rel.DERIVED_FROM, "loop2", transform="one")
    g.link("loop2", Rel.DERIVED_FROM, "loop1", transform="two")
    for i in range(CHAIN + 1):
        g.add(f"chain{i}", DV, f"dataset:{{a}}/chain@v{i}", name="chain", version=f"v{i}")
    for i in range(CHAIN):
        g.link(f"chain{i}", Rel.DERIVED_FROM, f"chain{i + 1}", transform=f"step-{i}")


def _runs(g: KeyedGraph) -> None:
    image = record("image", {"name": "registry.example.org/trainer", "tag": "1"})
    packages = with_json("packages", {"torch": "2.5.1"}, "package")
    for key, template in (("env1", "{a}/img-1"), ("env2", "{a}/img-2"), ("envb", "{b}/img")):
        g.add(key, Label.ENVIRONMENT, f"environment:{template}", **image, **packages)
    params = {"params_json": encode_json({"lr": 0.001}), param_key("lr"): 0.001}
    g.add("r1", Label.RUN, "run:{a}-r1", at(2), run_number=1, status="completed", **params)
    g.add("r2", Label.RUN, "run:{a}-r2", at(3), run_number=2, code_commit="aaa1111")
    g.add("r3", Label.RUN, "run:{a}-r3", at(4), name="bare")
    g.add("r9", Label.RUN, "run:{b}-r9", at(2), name="spy-run")
    for dst, role in (("web2", "train"), ("held", "validation"), ("secret", "train")):
        g.link("r1", Rel.USED, dst, role=role)
    g.link("r1", Rel.USED, "gone", role="eval")
    g.link("r1", Rel.USED, "web1", inferred="latest_version_at_run_start")  # no role
    g.link("r1", Rel.USED, "web")  # not a dataset version: no input
    for env in ("env2", "envb", "env1"):
        g.link("r1", Rel.RAN_IN, env)


def _artifacts(g: KeyedGraph) -> None:
    for key, template, step in (
        ("ck100", "checkpoint:{a}-r1/100", 100),
        ("ck50", "checkpoint:{a}-r1/50", 50),
        ("ckb", "checkpoint:{b}-r9/10", 10),
    ):
        g.add(key, Label.CHECKPOINT, template, at(3), step=step, uri=f"s3://ck/{step}")
        g.link(key, Rel.GENERATED_BY, "r9" if key == "ckb" else "r1")
    g.add("ckx", Label.CHECKPOINT, "checkpoint:{a}-r1/last", at(3))
    g.mark("ckx", placeholder=True)
    g.add("chat", Label.MODEL_VERSION, "model:{a}/chat@1", name="chat", version="1")
    g.add("chat2", Label.MODEL_VERSION, "model:{a}/chat@2", name="chat", version="2")
    g.add("spy", Label.MODEL_VERSION, "model:{b}/spy@1", name="spy", version="1")
    g.link("chat", Rel.GENERATED_BY, "r1")
    g.link("chat", Rel.EXPORTED_FROM, "ck100")
    for maker in ("r9", "r2"):
        g.link("chat2", Rel.GENERATED_BY, maker)
    for checkpoint in ("ckb", "ck50"):
        g.link("chat2", Rel.EXPORTED_FROM, checkpoint)
    g.link("spy", Rel.GENERATED_BY, "r9")
    for base in ("spy", "chat", "web1"):  # a dataset version is no base
        g.link("r2", Rel.STARTED_FROM, base)
    for checkpoint in ("ck100", "ckx", "ckb", "ck50"):
        g.link("r2", Rel.RESUMED_FROM, checkpoint)
    g.link("r3", Rel.STARTED_FROM, "ck50")


def recipe_graph(a: str, b: str) -> KeyedGraph:
    """Project `a`: datasets with their derivations (a cycle, a chain three times longer than
    the bound), environments, runs, checkpoints, model versions; project `b`: a dataset `a`'s
    data derives from (and that derives from `a`'s `raw`), a run, its checkpoint and model."""
    graph = KeyedGraph(a, b)
    _datasets(graph)
    _runs(graph)
    _artifacts(graph)
    return graph


def _inputs(graph: KeyedGraph, *uses: tuple[str | None, str]) -> list[dict[str, Any]]:
    """{role, id} of `uses` (role, node key) by role, a missing role last, then id."""
    inputs = [{"role": role, "id": graph.id(key)} for role, key in uses]
    return sorted(inputs, key=lambda i: (i["role"] is None, i["role"] or "", i["id"]))


def _artifact(
    graph: KeyedGraph, key: str, runs: Sequence[str] = (), exported: Sequence[str] = ()
) -> dict[str, Any]:
    """The artifact record of node `key`, made by `runs`, exported from `exported` (keys)."""
    node = graph.nodes[key]
    return {
        "type": node.type,
        "props": graph.props(key),
        "runs": graph.ids(*runs),
        "exported": graph.by_id(*exported),
    }


def _run(graph: KeyedGraph, key: str, **upstream: list[Any]) -> dict[str, Any]:
    """The run record of run `key` with `upstream` (nothing upstream unless given)."""
    nothing: dict[str, list[Any]] = {"inputs": [], "environments": [], "bases": [], "resumes": []}
    return {"run": graph.props(key), **nothing, **upstream}


def _base(graph: KeyedGraph, key: str, *runs: str) -> dict[str, Any]:
    return {"type": graph.nodes[key].type, "props": graph.props(key), "runs": graph.ids(*runs)}


def _by_step(graph: KeyedGraph, resumes: Mapping[str, Sequence[str]]) -> list[dict[str, Any]]:
    """The resumes of checkpoints (key -> the runs that made it) by step, a missing step last,
    then by id."""
    found = [{"props": graph.props(k), "runs": graph.ids(*runs)} for k, runs in resumes.items()]
    return sorted(
        found,
        key=lambda r: (
            r["props"].get("step") is None,
            r["props"].get("step") or 0,
            r["props"]["id"],
        ),
    )


def _edges(records: Sequence[Record]) -> list[tuple[Any, ...]]:
    return sorted((e["src"], e["dst"], e["transform"]) for e in records)


class RecipeReadsContract:
    """What every `RecipeReads` adapter answers on `recipe_graph`. Subclasses provide `graph`
    (loaded into the adapter under test) and `reads` (the adapter)."""

    @pytest.fixture()
    def graph(self) -> KeyedGraph:
        raise NotImplementedError("each adapter's test class loads the contract graph")

    @pytest.fixture()
    def reads(self, graph: KeyedGraph) -> RecipeReads:
        raise NotImplementedError("each adapter's test class provides its reads")

    @staticmethod
    def _derivation(
        reads: RecipeReads, ids: Sequence[str], scope: Scope
    ) -> tuple[list[Record], list[tuple[Any, ...]]]:
        nodes, edges = reads.derivation(ids, scope)
        return sorted(nodes, key=lambda n: str(n["id"])), _edges(edges)

    # ---- artifact ------------------------------------------------------------------------------

    def test_an_artifact_with_the_runs_that_made_it_and_its_checkpoints(
        self, reads: RecipeReads, graph: KeyedGraph
    ) -> None:
        only_a, both = graph.scopes()
        chat, chat2 = graph.id("chat"), graph.id("chat2")
        assert reads.artifact(chat, only_a) == _artifact(graph, "chat", ["r1"], ["ck100"])
        assert reads.artifact(chat2, only_a) == _artifact(graph, "chat2", ["r2"], ["ck50"])
        theirs = _artifact(graph, "chat2", ["r2", "r9"], ["ck50", "ckb"])
        assert reads.artifact(chat2, both) == theirs

    def test_an_artifact_of_any_type_deleted_or_placeholder(
        self, reads: RecipeReads, graph: KeyedGraph
    ) -> None:
        only_a, _ = graph.scopes()
        made_by = {"ck50": ["r1"], "r1": [], "web": [], "gone": [], "env1": [], "ckx": []}
        for key, runs in made_by.items():
            assert reads.artifact(graph.id(key), only_a) == _artifact(graph, key, runs), key

    # ---- run -----------------------------------------------------------------------------------

    def test_a_run_with_its_inputs_and_environments_in_scope(
        self, reads: RecipeReads, graph: KeyedGraph
    ) -> None:
        only_a, both = graph.scopes()
        r1 = graph.id("r1")
        mine = [("train", "web2"), ("validation", "held"), ("eval", "gone"), (None, "web1")]
        assert reads.run(r1, only_a) == _run(
            graph, "r1", inputs=_inputs(graph, *mine), environments=graph.by_id("env1", "env2")
        )
        assert reads.run(r1, both) == _run(
            graph,
            "r1",
            inputs=_inputs(graph, *mine, ("train", "secret")),
            environments=graph.by_id("env1", "env2", "envb"),
        )

    def test_a_run_with_its_bases_and_resumes_by_step(
        self, reads: RecipeReads, graph: KeyedGraph
    ) -> None:
        only_a, both = graph.scopes()
        r2, mine = graph.id("r2"), {"ck100": ["r1"], "ck50": ["r1"], "ckx": []}
        assert reads.run(r2, only_a) == _run(
            graph, "r2", bases=[_base(graph, "chat", "r1")], resumes=_by_step(graph, mine)
        )
        bases = [_base(graph, "chat", "r1"), _base(graph, "spy", "r9")]
        assert reads.run(r2, both) == _run(
            graph,
            "r2",
            bases=sorted(bases, key=lambda b: b["props"]["id"]),
            resumes=_by_step(graph, {**mine, "ckb": ["r9"]}),
        )
        assert reads.run(graph.id("r3"), only_a) == _run(
            graph, "r3", bases=[_base(graph, "ck50", "r1")]
        )

    def test_what_is_unreadable_missing_or_of_another_type_is_none(
        self, reads: RecipeReads, graph: KeyedGraph
    ) -> None:
        only_a, both = graph.scopes()
        secret, r9 = graph.id("secret"), graph.id("r9")
        assert (reads.artifact(secret, only_a), reads.run(r9, only_a)) == (None, None)
        assert reads.artifact(secret, both) == _artifact(graph, "secret")
        assert reads.run(r9, both) == _run(graph, "r9")
        nobody = Scope(frozenset())
        assert reads.artifact(graph.id("web1"), nobody) is None
        assert reads.run(graph.id("r1"), nobody) is None
        assert (reads.artifact(NOWHERE, both), reads.run("run:nowhere-1", both)) == (None, None)
        assert reads.run(graph.id("chat"), both) is None  # not a run

    # ---- derivation ----------------------------------------------------------------------------

    def test_derivation_never_walks_through_an_unreadable_version(
        self, reads: RecipeReads, graph: KeyedGraph
    ) -> None:
        only_a, both = graph.scopes()
        web2, web1, secret, raw = (graph.id(k) for k in ("web2", "web1", "secret", "raw"))
        assert self._derivation(reads, [web2], only_a) == (
            graph.by_id("web2", "web1"),
            [(web2, web1, "dedup")],
        )
        assert self._derivation(reads, [web2], both) == (
            graph.by_id("web2", "web1", "secret", "raw"),
            sorted([(web2, web1, "dedup"), (web2, secret, "join"), (secret, raw, None)]),
        )
        assert reads.derivation([secret], only_a) == ([], [])

    def test_derivation_edges_carry_the_mix_weight(
        self, reads: RecipeReads, graph: KeyedGraph
    ) -> None:
        only_a, _ = graph.scopes()
        web2, web1, loop1 = (graph.id(k) for k in ("web2", "web1", "loop1"))
        _, edges = reads.derivation([web2, loop1], only_a)
        weights = {(e["src"], e["dst"]): e["weight"] for e in edges}
        assert weights[(web2, web1)] == 0.7
        assert weights[(loop1, graph.id("loop2"))] is None  # none recorded

    def test_derivation_stops_at_its_depth(self, reads: RecipeReads, graph: KeyedGraph) -> None:
        only_a, _ = graph.scopes()

        def chain(start: int, stop: int) -> tuple[list[dict[str, Any]], list[tuple[Any, ...]]]:
            """The chain's versions start..stop and the steps between them."""
            ids = {i: graph.id(f"chain{i}") for i in range(start, stop + 1)}
            steps = [(ids[i], ids[i + 1], f"step-{i}") for i in range(start, stop)]
            return graph.by_id(*(f"chain{i}" for i in ids)), sorted(steps)

        first = graph.id("chain0")
        assert self._derivation(reads, [first], only_a) == chain(0, DERIVATION_DEPTH)
        near_end = graph.id(f"chain{CHAIN - 3}")
        assert self._derivation(reads, [near_end], only_a) == chain(CHAIN - 3, CHAIN)
        middle = graph.id(f"chain{DERIVATION_DEPTH}")
        assert self._derivation(reads, [first, middle], only_a) == chain(0, 2 * DERIVATION_DEPTH)

    def test_derivation_of_a_cycle_duplicates_and_strays(
        self, reads: RecipeReads, graph: KeyedGraph
    ) -> None:
        only_a, both = graph.scopes()
        loop1, loop2, web1, web2 = (graph.id(k) for k in ("loop1", "loop2", "web1", "web2"))
        assert self._derivation(reads, [loop1], only_a) == (
            graph.by_id("loop1", "loop2"),
            sorted([(loop1, loop2, "one"), (loop2, loop1, "two")]),
        )
        strays = [web1, web2, web2, NOWHERE, graph.id("web"), graph.id("r1"), graph.id("secret")]
        assert self._derivation(reads, strays, only_a) == (
            graph.by_id("web1", "web2"),
            [(web2, web1, "dedup")],
        )
        assert reads.derivation([], both) == ([], [])
        assert reads.derivation([NOWHERE], both) == ([], [])
