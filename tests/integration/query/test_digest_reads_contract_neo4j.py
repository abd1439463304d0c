"""The DigestReads contract, run against DigestReader on the real Neo4j, the contract graph
written by the projector's writer (`support.contract_graphs_team`).

Three tests are expected to fail here: `digest_reads` breaks the contract (and the rule of
`read.fragments`: an unreadable node is never walked through) where each one's reason says.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Any, TypeVar, cast

import pytest
from contracts.digest_reads import DigestReadsContract
from neo4j import Driver
from support.contract_graphs_team import DigestGraph, in_neo4j

from provgraph.query.read.digest_reads import DigestReads
from provgraph.query.read.readers import neo4j_readers

Test = TypeVar("Test", bound=Callable[..., None])


def known_bug(test: Test, reason: str) -> Test:
    """`test` of the contract, expected to fail on Neo4j for `reason`, a bug of the reader;
    the contract's own test stays unmarked for every other adapter."""

    @functools.wraps(test)
    def failing(*args: Any) -> None:
        test(*args)

    return cast(Test, pytest.mark.xfail(strict=True, reason=reason)(failing))


class TestDigestReader(DigestReadsContract):
    @pytest.fixture()
    def graph(self, neo4j_driver: Driver, unique_name: str) -> Iterator[DigestGraph]:
        graph = DigestGraph(f"{unique_name[:56]}-a", f"{unique_name[:56]}-b")
        with in_neo4j(neo4j_driver, graph):
            yield graph

    @pytest.fixture()
    def reads(self, neo4j_driver: Driver, graph: DigestGraph) -> DigestReads:
        return neo4j_readers(neo4j_driver).digest

    test_a_lifecycle_is_answered_oldest_first = known_bug(
        DigestReadsContract.test_a_lifecycle_is_answered_oldest_first,
        "digest_reads._lifecycle: `RETURN ev {...} ORDER BY ev.occurred_at` orders by the "
        "projected map (its column is named ev too), which has no occurred_at: unordered",
    )
    test_advice_never_walks_through_an_unreadable_experiment = known_bug(
        DigestReadsContract.test_advice_never_walks_through_an_unreadable_experiment,
        "checkpoint_runs('experiment') matches the experiment without visible(): the runs of "
        "an unreadable experiment are answered (found is False)",
    )
    test_resumptions_are_never_reached_through_an_unreadable_checkpoint = known_bug(
        DigestReadsContract.test_resumptions_are_never_reached_through_an_unreadable_checkpoint,
        "checkpoint_runs' resumed_by walks through (:Checkpoint) without visible(): a run "
        "resumed from a checkpoint of an unreadable project is answered",
    )
