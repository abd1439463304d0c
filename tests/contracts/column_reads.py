"""The ColumnReads contract: the reads of a column walk, every adapter held to the same answers.

`ColumnReadsContract` runs against the in-memory `FakeColumnReads`
(tests/unit/query/test_column_reads_contract_fake.py) and `ColumnReader` over the real Neo4j
(tests/integration/query/test_column_reads_contract_neo4j.py), each on the graph of
`support/contract_graphs_marquez.py`: a's column chain c00 → c12, b's `secret` fed by a's c12,
a's `Mixed` fed by b's `secret` and a's c00. A dataset of an unreadable project is answered
like a missing one, so no walk over these reads reaches one.

Project names are parameters (the Neo4j run keeps its graph apart from every other test's), so
expected orders are computed from the graph, never written out.
"""

from __future__ import annotations

import pytest
from support.contract_graphs_marquez import COLUMN, GONE, MIXED, SECRET, MarquezGraph
from support.marquez_world import HOPS, TOKENS, chain

from provgraph.query.read.column_reads import ColumnReads, column_lineage
from provgraph.query.read.model import ColumnKey, Direction, NodeView, Scope


def _ids(nodes: list[NodeView]) -> list[NodeView]:
    return sorted(nodes, key=lambda n: n.id)


class ColumnReadsContract:
    """What every ColumnReads adapter answers on the contract graph. Subclasses provide `graph`
    (loaded into the adapter under test) and `reads` (the adapter)."""

    @pytest.fixture()
    def graph(self) -> MarquezGraph:
        raise NotImplementedError("each adapter's test class loads the contract graph")

    @pytest.fixture()
    def reads(self, graph: MarquezGraph) -> ColumnReads:
        raise NotImplementedError("each adapter's test class provides its reads")

    @staticmethod
    def scopes(graph: MarquezGraph) -> tuple[Scope, Scope]:
        """Project a alone; projects a and b."""
        return Scope(frozenset({graph.a})), Scope(frozenset({graph.a, graph.b}))

    def test_the_root_is_the_node_and_the_dataset_it_is_a_version_of(
        self, reads: ColumnReads, graph: MarquezGraph
    ) -> None:
        only_a, both = self.scopes(graph)
        tokens = graph.dataset(graph.lake, TOKENS)
        version = graph.version(tokens, "v03")
        assert reads.column_root(tokens.id, only_a) == (tokens, None)
        assert reads.column_root(version.id, only_a) == (version, tokens)
        run = graph.nodes[f"run:{graph.world.writes[0]}"]  # any node: the walk refuses it
        assert reads.column_root(run.id, only_a) == (run, None)
        secret = graph.dataset(graph.vault, SECRET)
        (hidden,) = graph.linked("VERSION_OF", dst=secret.id)
        for node_id in (secret.id, hidden):
            assert reads.column_root(node_id, only_a) is None
        assert reads.column_root(hidden, both) == (graph.nodes[hidden], secret)
        assert reads.column_root(tokens.id, Scope(frozenset())) is None
        assert reads.column_root("dataset:nowhere/x", both) is None

    def test_datasets_by_marquez_or_provgraph_id_in_the_order_asked(
        self, reads: ColumnReads, graph: MarquezGraph
    ) -> None:
        only_a, both = self.scopes(graph)
        c05, tokens = graph.dataset(graph.lake, chain(5)), graph.dataset(graph.lake, TOKENS)
        version, gone = graph.version(tokens, "v03"), graph.dataset(graph.lake, GONE)
        secret = graph.dataset(graph.vault, SECRET)
        mid = {n.id: str(n.props["marquez_id"]) for n in (c05, secret, gone)}
        keys = [
            mid[secret.id],
            mid[c05.id],
            tokens.id,
            version.id,
            mid[gone.id],  # deleted: still found
            secret.id,
            f"run:{graph.world.writes[0]}",  # no dataset
            str(graph.job(graph.world.jobs, "mix").props["marquez_id"]),  # a job's
            "dataset:nowhere:x",
            c05.id,
            mid[c05.id],
        ]
        found = [None, c05, tokens, version, gone, None, None, None, None, c05, c05]
        assert reads.datasets_by_key(keys, only_a) == found
        assert reads.datasets_by_key(keys, both) == [secret, *found[1:5], secret, *found[6:]]
        assert reads.datasets_by_key([], both) == []

    def test_consumers_are_the_datasets_whose_facet_names_a_key(
        self, reads: ColumnReads, graph: MarquezGraph
    ) -> None:
        only_a, both = self.scopes(graph)
        lake, limit = graph.lake, 100

        def datasets(*names: str) -> list[NodeView]:
            return _ids([graph.dataset(lake, n) for n in names])

        assert reads.column_consumers([(lake, chain(5))], only_a, limit) == datasets(chain(6))
        mixed = graph.dataset(lake, MIXED)
        assert reads.column_consumers([(lake, chain(0))], only_a, limit) == datasets(
            chain(1), MIXED
        )
        assert reads.column_consumers([(lake, chain(12))], only_a, limit) == []
        secret = graph.dataset(graph.vault, SECRET)
        assert reads.column_consumers([(lake, chain(12))], both, limit) == [secret]
        # A text filter, a superset: both texts appear in Mixed's facet, not as one pair.
        assert reads.column_consumers([(graph.vault, chain(0))], only_a, limit) == [mixed]
        assert reads.column_consumers([(graph.vault, TOKENS)], both, limit) == []
        assert reads.column_consumers([], both, limit) == []

    def test_consumers_are_bounded_by_the_limit_in_id_order(
        self, reads: ColumnReads, graph: MarquezGraph
    ) -> None:
        only_a, _ = self.scopes(graph)
        keys = [(graph.lake, chain(k)) for k in range(HOPS)]
        every = _ids([graph.dataset(graph.lake, n) for n in [*map(chain, range(1, 13)), MIXED]])
        assert len(every) > 3 * 4
        assert reads.column_consumers(keys, only_a, 4) == every[:4]
        assert reads.column_consumers(keys, only_a, 1) == every[:1]
        assert reads.column_consumers(keys, only_a, 1000) == every

    def test_a_walk_over_the_reads_stops_at_the_scope(
        self, reads: ColumnReads, graph: MarquezGraph
    ) -> None:
        only_a, both = self.scopes(graph)
        c12, mixed = graph.dataset(graph.lake, chain(12)), graph.dataset(graph.lake, MIXED)

        def reached(root: NodeView, scope: Scope, direction: Direction) -> list[tuple[str, int]]:
            found = column_lineage(
                reads, root.id, scope, field=COLUMN, direction=direction, depth=3, limit=100
            )
            assert found is not None and found.root == root
            return [(n.key.dataset, n.depth) for n in found.nodes]

        up = [(graph.dataset(graph.lake, chain(12 - k)).id, k) for k in range(4)]
        assert reached(c12, only_a, Direction.UPSTREAM) == up
        # Mixed, a's own, is downstream of c12 only through b's secret: a reader of a
        # alone does not reach it.
        assert reached(c12, only_a, Direction.DOWNSTREAM) == [(c12.id, 0)]
        secret = graph.dataset(graph.vault, SECRET)
        through = [(c12.id, 0), (secret.id, 1), (mixed.id, 2)]
        assert reached(c12, both, Direction.DOWNSTREAM) == through
        c00 = graph.dataset(graph.lake, chain(0))
        assert reached(mixed, only_a, Direction.UPSTREAM) == [(mixed.id, 0), (c00.id, 1)]
        sources = sorted([(c00.id, 1), (secret.id, 1)])
        beyond = [(graph.dataset(graph.lake, chain(12 - k)).id, 2 + k) for k in range(2)]
        assert reached(mixed, both, Direction.UPSTREAM) == [(mixed.id, 0), *sources, *beyond]
        whole = column_lineage(
            reads, mixed.id, both, field=None, direction=Direction.UPSTREAM, depth=1, limit=100
        )
        assert whole is not None
        assert {e.input for e in whole.edges} == {
            ColumnKey(c00.id, COLUMN),
            ColumnKey(secret.id, COLUMN),
        }
        assert (
            column_lineage(
                reads, secret.id, only_a, field=None, direction=Direction.BOTH, depth=1, limit=1
            )
            is None
        )
