"""The MarquezReads contract: one graph, one set of expected answers, every adapter held to them.

`MarquezReadsContract` runs against the in-memory `FakeMarquezReads`
(tests/unit/query/test_marquez_reads_contract_fake.py) and `MarquezReader` over the real Neo4j
(tests/integration/query/test_marquez_reads_contract_neo4j.py), each on the graph of
`support/contract_graphs_marquez.py`, folded from the same events. Both serve at most
`CEILING` items a page, on lists several times longer; a node of an unreadable project is
answered like a missing one, and no detail names one.

Project names are parameters (the Neo4j run keeps its graph apart from every other test's), so
expected orders are computed from the graph, never written out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import pytest
from support.contract_graphs_marquez import (
    COPY,
    CORPUS,
    DROP,
    EXP,
    GONE,
    MIX,
    MIXED,
    SECRET,
    MarquezGraph,
    Seen,
)
from support.marquez_world import SPREAD, TOKENS, VERSIONS, WRITE, chain

from provgraph.query.errors import InvalidArgumentError
from provgraph.query.http.marquez.ids import search_pattern
from provgraph.query.read.marquez_ids import marquez_id
from provgraph.query.read.model import NodeView, Scope, Slice
from provgraph.query.read.ports import MarquezReads
from provgraph.query.settings import QuerySettings

CEILING = 4
"""The page ceiling of the adapters under contract: every list of the graph is longer."""
SETTINGS = QuerySettings(page_max_size=CEILING)
FAR = 2**40  # an offset past any list, and past what Cypher's slices take
BAD_PAGES: list[dict[str, Any]] = [{"limit": -1}, {"offset": -1}, {"limit": True}]


def pages(ask: Callable[..., Slice | None]) -> tuple[list[Any], int]:
    """Every item of a list, asked page by page (`CEILING` at a time), and its total."""
    items: list[Any] = []
    while True:
        page = ask(limit=CEILING, offset=len(items))
        assert page is not None
        items += page.items
        if len(page.items) < CEILING:
            return items, page.total


class MarquezReadsContract:
    """What every MarquezReads adapter answers on the contract graph. Subclasses provide
    `graph` (loaded into the adapter under test) and `reads` (the adapter, built with
    `SETTINGS`)."""

    @pytest.fixture()
    def graph(self) -> MarquezGraph:
        raise NotImplementedError("each adapter's test class loads the contract graph")

    @pytest.fixture()
    def reads(self, graph: MarquezGraph) -> MarquezReads:
        raise NotImplementedError("each adapter's test class provides its reads")

    @staticmethod
    def scopes(graph: MarquezGraph) -> tuple[Scope, Scope]:
        """Project a alone; projects a and b."""
        return Scope(frozenset({graph.a})), Scope(frozenset({graph.a, graph.b}))

    @staticmethod
    def seen(graph: MarquezGraph) -> tuple[Seen, Seen]:
        """The expected answers of the two scopes."""
        return Seen(graph, {graph.a}), Seen(graph, {graph.a, graph.b})

    # ---- look-ups by Marquez's keys ------------------------------------------------------------

    def test_marquez_ids_resolve_within_the_scope(
        self, reads: MarquezReads, graph: MarquezGraph
    ) -> None:
        only_a, both = self.scopes(graph)
        tokens, gone = graph.dataset(graph.lake, TOKENS), graph.dataset(graph.lake, GONE)
        write = graph.job(graph.world.jobs, WRITE)
        secret = graph.dataset(graph.vault, SECRET)
        assert reads.resolve_marquez_id(str(tokens.props["marquez_id"]), only_a) == tokens.id
        assert reads.resolve_marquez_id(str(write.props["marquez_id"]), only_a) == write.id
        assert reads.resolve_marquez_id(str(gone.props["marquez_id"]), only_a) == gone.id
        assert reads.resolve_marquez_id(str(secret.props["marquez_id"]), only_a) is None
        assert reads.resolve_marquez_id(str(secret.props["marquez_id"]), both) == secret.id
        assert reads.resolve_marquez_id(str(tokens.props["marquez_id"]), Scope(frozenset())) is None
        for unknown in (
            marquez_id("dataset", graph.lake, "nowhere"),
            marquez_id("job", graph.a, EXP),  # an experiment has no Marquez id
            marquez_id("run", graph.lake, TOKENS),  # no such kind
            tokens.id,
            "",
        ):
            assert reads.resolve_marquez_id(unknown, both) is None

    def test_one_dataset_by_namespace_and_name(
        self, reads: MarquezReads, graph: MarquezGraph
    ) -> None:
        only_a, both = self.scopes(graph)
        mine, theirs = self.seen(graph)
        lake, tokens = graph.lake, graph.dataset(graph.lake, TOKENS)
        found = reads.dataset(lake, TOKENS, only_a)
        assert found == mine.dataset(tokens)
        assert found is not None and found.current == graph.version(tokens, f"v{VERSIONS:02d}")
        corpus = graph.corpus  # born in provgraph: by project
        assert reads.dataset(graph.a, CORPUS, only_a) == mine.dataset(corpus)
        gone = reads.dataset(lake, GONE, only_a)  # deleted, still found by its name
        assert gone == mine.dataset(graph.dataset(lake, GONE))
        assert gone is not None and gone.dataset.deleted_at is not None
        assert reads.dataset(graph.vault, SECRET, only_a) is None
        assert reads.dataset(graph.vault, SECRET, both) == theirs.dataset(
            graph.dataset(graph.vault, SECRET)
        )
        assert reads.dataset(graph.a, chain(5), only_a) is None  # born in OpenLineage
        assert reads.dataset(lake, "nowhere", both) is None
        assert reads.dataset(graph.world.jobs, WRITE, both) is None  # a job is no dataset

    def test_one_version_by_its_label(self, reads: MarquezReads, graph: MarquezGraph) -> None:
        only_a, both = self.scopes(graph)
        mine, theirs = self.seen(graph)
        tokens = graph.dataset(graph.lake, TOKENS)
        fifth = graph.version(tokens, "v05")
        found = reads.dataset_version(graph.lake, TOKENS, "v05", only_a)
        assert found == mine.version(fifth, tokens)
        made_by = graph.nodes[f"run:{graph.world.writes[4]}"]
        assert found is not None and found.created_by is not None
        assert found.created_by.run == made_by
        corpus = graph.corpus
        first = reads.dataset_version(graph.a, CORPUS, "v1", only_a)
        assert first == mine.version(graph.version(corpus, "v1"), corpus)
        assert first is not None and first.created_by is None
        secret = graph.dataset(graph.vault, SECRET)
        (label,) = {str(v.props["version"]) for v in theirs.versions(secret)}
        assert reads.dataset_version(graph.vault, SECRET, label, only_a) is None
        assert reads.dataset_version(graph.vault, SECRET, label, both) == theirs.version(
            graph.version(secret, label), secret
        )
        assert reads.dataset_version(graph.lake, TOKENS, "v99", both) is None
        assert reads.dataset_version(graph.lake, "nowhere", "v05", both) is None

    def test_one_job_by_namespace_and_name_with_its_latest_run(
        self, reads: MarquezReads, graph: MarquezGraph
    ) -> None:
        only_a, both = self.scopes(graph)
        mine, theirs = self.seen(graph)
        jobs, write = graph.world.jobs, graph.job(graph.world.jobs, WRITE)
        found = reads.job(jobs, WRITE, only_a)
        assert found == mine.job(write)
        assert found is not None and found.latest_run is not None
        assert found.latest_run.run == graph.nodes[f"run:{graph.world.writes[-1]}"]
        exp = reads.job(graph.a, EXP, only_a)  # an experiment is a job of its project
        assert exp == mine.job(graph.experiment(graph.a))
        assert exp is not None and exp.latest_run is not None
        assert exp.latest_run.run.id == f"run:{graph.a}-e2"
        dropped = reads.job(jobs, DROP, only_a)
        assert dropped == mine.job(graph.job(jobs, DROP))
        assert dropped is not None and dropped.job.deleted_at is not None
        assert reads.job(graph.b, EXP, only_a) is None
        assert reads.job(graph.b, EXP, both) == theirs.job(graph.experiment(graph.b))
        assert reads.job(graph.b_jobs, COPY, only_a) is None
        assert reads.job(graph.lake, TOKENS, both) is None  # a dataset is no job
        assert reads.job(jobs, "nowhere", both) is None

    def test_runs_show_only_what_the_caller_may_read(
        self, reads: MarquezReads, graph: MarquezGraph
    ) -> None:
        only_a, both = self.scopes(graph)
        mine, theirs = self.seen(graph)
        (mix,) = mine.runs(graph.job(graph.world.jobs, MIX))
        c00, secret = graph.dataset(graph.lake, chain(0)), graph.dataset(graph.vault, SECRET)
        in_a = reads.run(mix.id, only_a)
        assert in_a == mine.run(mix.id)
        assert in_a is not None and (in_a.reads, in_a.inputs) == ((c00,), ())
        assert [ref.dataset for ref in in_a.outputs] == [graph.dataset(graph.lake, MIXED)]
        whole = reads.run(mix.id, both)
        assert whole == theirs.run(mix.id)
        assert whole is not None
        assert whole.reads == tuple(sorted([c00, secret], key=lambda n: n.id))
        assert [ref.dataset for ref in whole.inputs] == [secret]  # the version inferred
        assert whole.inputs[0].props.get("inferred")
        e1 = reads.run(f"run:{graph.a}-e1", only_a)
        assert e1 == mine.run(f"run:{graph.a}-e1")
        assert e1 is not None and [ref.props.get("role") for ref in e1.inputs] == ["train"]
        (copy,) = theirs.runs(graph.job(graph.b_jobs, COPY))
        assert reads.run(copy.id, only_a) is None
        assert reads.run(copy.id, both) == theirs.run(copy.id)
        for not_a_run in (graph.dataset(graph.lake, TOKENS).id, "run:nowhere", ""):
            assert reads.run(not_a_run, both) is None

    # ---- lists: scope, order, pages ------------------------------------------------------------

    def test_namespaces_by_name_in_pages_with_their_times(
        self, reads: MarquezReads, graph: MarquezGraph
    ) -> None:
        only_a, both = self.scopes(graph)
        mine, theirs = self.seen(graph)
        names = sorted(mine.members())
        assert len(names) > 3 * CEILING
        first = reads.namespaces(only_a)
        assert first == Slice(tuple(mine.namespace(n) for n in names[:CEILING]), len(names))
        items, total = pages(lambda **page: reads.namespaces(only_a, **page))
        assert ([n.name for n in items], total) == (names, len(names))
        everyone = sorted(theirs.members())
        assert {graph.vault, graph.b_jobs, graph.b} < set(everyone)
        items, total = pages(lambda **page: reads.namespaces(both, **page))
        assert (items, total) == ([theirs.namespace(n) for n in everyone], len(everyone))
        assert reads.namespaces(only_a, name=graph.lake) == Slice((mine.namespace(graph.lake),), 1)
        assert reads.namespaces(only_a, name=graph.vault) == Slice((), 0)
        assert reads.namespaces(both, name=graph.vault) == Slice(
            (theirs.namespace(graph.vault),), 1
        )
        empty: list[dict[str, Any]] = [{"offset": len(names)}, {"offset": FAR}, {"limit": 0}]
        for past in empty:
            assert reads.namespaces(only_a, **past) == Slice((), len(names))
        for bad in BAD_PAGES:
            with pytest.raises(InvalidArgumentError):
                reads.namespaces(only_a, **bad)

    def test_datasets_of_a_namespace_live_by_name_in_pages(
        self, reads: MarquezReads, graph: MarquezGraph
    ) -> None:
        only_a, both = self.scopes(graph)
        mine, theirs = self.seen(graph)
        lake = _by_name(n for n in mine.members()[graph.lake] if n.type == "Dataset")
        assert graph.dataset(graph.lake, GONE) not in lake and len(lake) > 3 * CEILING
        expected = [mine.dataset(d) for d in lake]
        assert reads.datasets(graph.lake, only_a) == Slice(tuple(expected[:CEILING]), len(lake))
        items, total = pages(lambda **page: reads.datasets(graph.lake, only_a, **page))
        assert (items, total) == (expected, len(lake))
        assert items[0].dataset.props["name"] == MIXED  # names order by code point: upper first
        assert reads.datasets(graph.vault, only_a) == Slice((), 0)
        secret = graph.dataset(graph.vault, SECRET)
        assert reads.datasets(graph.vault, both) == Slice((theirs.dataset(secret),), 1)
        corpus = graph.corpus
        assert reads.datasets(graph.a, only_a) == Slice((mine.dataset(corpus),), 1)
        assert reads.datasets("nowhere://", both) == Slice((), 0)
        assert reads.datasets(graph.lake, only_a, offset=FAR) == Slice((), len(lake))
        for bad in BAD_PAGES:
            with pytest.raises(InvalidArgumentError):
                reads.datasets(graph.lake, only_a, **bad)

    def test_versions_of_a_dataset_newest_first_in_pages(
        self, reads: MarquezReads, graph: MarquezGraph
    ) -> None:
        only_a, both = self.scopes(graph)
        mine, _ = self.seen(graph)
        tokens = graph.dataset(graph.lake, TOKENS)
        newest = [mine.version(v, tokens) for v in mine.versions(tokens)]
        assert len(newest) == VERSIONS > 3 * CEILING
        assert newest[0].version == graph.version(tokens, f"v{VERSIONS:02d}")
        first = reads.dataset_versions(graph.lake, TOKENS, only_a)
        assert first == Slice(tuple(newest[:CEILING]), VERSIONS)
        ask = reads.dataset_versions
        items, total = pages(lambda **page: ask(graph.lake, TOKENS, only_a, **page))
        assert (items, total) == (newest, VERSIONS)
        corpus = graph.corpus
        both_versions = [mine.version(v, corpus) for v in mine.versions(corpus)]
        assert [v.version.props["version"] for v in both_versions] == ["v2", "v1"]
        assert ask(graph.a, CORPUS, only_a) == Slice(tuple(both_versions), 2)
        assert ask(graph.lake, TOKENS, only_a, offset=FAR) == Slice((), VERSIONS)
        assert ask(graph.vault, SECRET, only_a) is None
        assert ask(graph.lake, "nowhere", both) is None
        for bad in BAD_PAGES:
            with pytest.raises(InvalidArgumentError):
                ask(graph.lake, "nowhere", both, **bad)

    def test_jobs_of_a_namespace_live_by_name_in_pages(
        self, reads: MarquezReads, graph: MarquezGraph
    ) -> None:
        only_a, both = self.scopes(graph)
        mine, theirs = self.seen(graph)
        jobs = _by_name(mine.members()[graph.world.jobs])
        assert graph.job(graph.world.jobs, DROP) not in jobs and len(jobs) > 3 * CEILING
        expected = [mine.job(j) for j in jobs]
        assert reads.jobs(graph.world.jobs, only_a) == Slice(tuple(expected[:CEILING]), len(jobs))
        items, total = pages(lambda **page: reads.jobs(graph.world.jobs, only_a, **page))
        assert (items, total) == (expected, len(jobs))
        spread = next(j for j in items if j.job.props["name"] == SPREAD)
        assert spread.latest_run is not None and len(spread.latest_run.outputs) > CEILING
        exp = graph.experiment(graph.a)
        assert reads.jobs(graph.a, only_a) == Slice((mine.job(exp),), 1)
        assert reads.jobs(graph.b_jobs, only_a) == Slice((), 0)
        copy = graph.job(graph.b_jobs, COPY)
        assert reads.jobs(graph.b_jobs, both) == Slice((theirs.job(copy),), 1)
        assert reads.jobs(graph.world.jobs, only_a, offset=FAR) == Slice((), len(jobs))
        for bad in BAD_PAGES:
            with pytest.raises(InvalidArgumentError):
                reads.jobs(graph.world.jobs, only_a, **bad)

    def test_runs_of_a_job_newest_first_in_pages(
        self, reads: MarquezReads, graph: MarquezGraph
    ) -> None:
        only_a, both = self.scopes(graph)
        mine, theirs = self.seen(graph)
        write = graph.job(graph.world.jobs, WRITE)
        newest = [mine.run(r.id) for r in mine.runs(write)]
        assert len(newest) == VERSIONS > 3 * CEILING
        assert newest[0].run.id == f"run:{graph.world.writes[-1]}"
        ask = reads.job_runs
        assert ask(graph.world.jobs, WRITE, only_a) == Slice(tuple(newest[:CEILING]), VERSIONS)
        items, total = pages(lambda **page: ask(graph.world.jobs, WRITE, only_a, **page))
        assert (items, total) == (newest, VERSIONS)
        exp = [mine.run(r.id) for r in mine.runs(graph.experiment(graph.a))]
        assert [r.run.id for r in exp] == [f"run:{graph.a}-e2", f"run:{graph.a}-e1"]
        assert ask(graph.a, EXP, only_a) == Slice(tuple(exp), 2)
        assert ask(graph.b_jobs, COPY, only_a) is None
        copy = graph.job(graph.b_jobs, COPY)
        assert ask(graph.b_jobs, COPY, both) == Slice(
            tuple(theirs.run(r.id) for r in theirs.runs(copy)), 1
        )
        assert ask(graph.world.jobs, WRITE, only_a, offset=FAR) == Slice((), VERSIONS)
        assert ask(graph.world.jobs, "nowhere", both) is None
        for bad in BAD_PAGES:
            with pytest.raises(InvalidArgumentError):
                ask(graph.world.jobs, "nowhere", both, **bad)

    # ---- search --------------------------------------------------------------------------------

    def test_search_matches_names_case_blind_live_and_scoped(
        self, reads: MarquezReads, graph: MarquezGraph
    ) -> None:
        only_a, both = self.scopes(graph)
        chains = _by_name(graph.dataset(graph.lake, chain(k)) for k in range(10))
        assert reads.marquez_search(search_pattern("C0"), only_a) == Slice(
            tuple(chains[:CEILING]), len(chains)
        )
        mixed = graph.dataset(graph.lake, MIXED)
        assert reads.marquez_search(search_pattern("mixed"), only_a) == Slice((mixed,), 1)
        secret = graph.dataset(graph.vault, SECRET)
        assert reads.marquez_search(search_pattern(SECRET), only_a) == Slice((), 0)
        assert reads.marquez_search(search_pattern(SECRET), both) == Slice((secret,), 1)
        for deleted in (GONE, DROP):
            assert reads.marquez_search(search_pattern(deleted), both) == Slice((), 0)
        exps = _by_name([graph.experiment(graph.a), graph.experiment(graph.b)])
        jobs = ["Job", "Experiment"]
        assert reads.marquez_search(search_pattern(EXP), both, kinds=jobs) == Slice(tuple(exps), 2)
        assert reads.marquez_search(search_pattern("mix"), only_a, kinds=["Dataset"]) == Slice(
            (mixed,), 1
        )
        mix_job = graph.job(graph.world.jobs, MIX)
        assert reads.marquez_search(search_pattern("mix"), only_a, kinds=jobs) == Slice(
            (mix_job,), 1
        )

    def test_search_by_update_limits_and_refusals(
        self, reads: MarquezReads, graph: MarquezGraph
    ) -> None:
        only_a, _ = self.scopes(graph)
        mine, _ = self.seen(graph)
        datasets = [n for ns in mine.members().values() for n in ns if n.type == "Dataset"]
        assert len(datasets) > 3 * CEILING
        by_name = _by_name(datasets)
        newest = sorted(by_name, key=lambda n: str(n.last_event_at), reverse=True)
        anything = search_pattern("%")
        found = reads.marquez_search(anything, only_a, kinds=["Dataset"], limit=1000)
        assert found == Slice(tuple(by_name[:CEILING]), len(datasets))
        found = reads.marquez_search(anything, only_a, kinds=["Dataset"], by_update=True)
        assert found == Slice(tuple(newest[:CEILING]), len(datasets))
        found = reads.marquez_search(anything, only_a, kinds=["Dataset"], limit=2)
        assert found == Slice(tuple(by_name[:2]), len(datasets))
        found = reads.marquez_search(anything, only_a, kinds=["Dataset"], limit=0)
        assert found == Slice((), len(datasets))
        for bad in ({"kinds": ["Table"]}, {"limit": -1}, {"limit": True}):
            with pytest.raises(InvalidArgumentError):
                reads.marquez_search(anything, only_a, **bad)


def _by_name(nodes: Iterable[NodeView]) -> list[NodeView]:
    """Nodes in the order of Marquez's lists: by Marquez name (code point order), then id."""
    return sorted(nodes, key=lambda n: (str(_name(n)), n.id))


def _name(node: NodeView) -> Any:
    props = node.props
    return props.get("ol_name") or props.get("name") or props.get("key") or node.id
