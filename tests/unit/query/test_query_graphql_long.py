"""Steps and counts beyond 32 bits: the contract allows 64-bit integers, and GraphQL's Int stops
at 2^31 - 1, so those fields are `Long` and answer such values exactly."""

from __future__ import annotations

import pytest
from fake_reader import FakeReader
from query_graphql_fake import run_query, story, view

from provgraph.query.graphql.fields import long_value
from provgraph.query.read.model import EdgeView
from provgraph.schemas.limits import INT64_MAX, INT64_MIN

BIG = 3_000_000_000  # over 2^31 - 1
HUGE = 9_007_199_254_740_993  # over 2^53: exact in the JSON number Python writes


def _reader() -> FakeReader:
    base = story()
    nodes = [
        *base.by_id.values(),
        view("dataset:p/crawl@v1", "DatasetVersion", name="crawl", version="v1", record_count=BIG),
        view("checkpoint:r1/9007199254740993", "Checkpoint", step=HUGE, epoch=BIG),
        view("run:r3", "Run", name="c", run_number=BIG, final_step=HUGE, resumed_at_step=BIG),
    ]
    edges = [*base.edges, EdgeView("checkpoint:r1/9007199254740993", "run:r1", "GENERATED_BY")]
    return FakeReader(nodes, edges)


def test_big_counts_and_steps_are_answered_exactly() -> None:
    result = run_query(
        """{
          crawl: node(id: "dataset:p/crawl@v1") { ... on DatasetVersion { recordCount } }
          ckpt: node(id: "checkpoint:r1/9007199254740993") { ... on Checkpoint { step epoch } }
          run: node(id: "run:r3") { ... on Run { runNumber finalStep resumedAtStep } }
          lineage(id: "run:r1", direction: DOWNSTREAM, depth: 1) {
            nodes { id ... on Checkpoint { step } }
          }
        }""",
        reader=_reader(),
    )
    assert result.errors is None, result.errors
    data = result.data
    assert data["crawl"] == {"recordCount": BIG}
    assert data["ckpt"] == {"step": HUGE, "epoch": BIG}
    assert data["run"] == {"runNumber": BIG, "finalStep": HUGE, "resumedAtStep": BIG}
    steps = {n["id"]: n.get("step") for n in data["lineage"]["nodes"]}
    assert steps["checkpoint:r1/9007199254740993"] == HUGE


def test_long_takes_64_bit_integers_only() -> None:
    assert long_value(INT64_MAX) == INT64_MAX
    assert long_value(INT64_MIN) == INT64_MIN
    for bad in (INT64_MAX + 1, INT64_MIN - 1):
        with pytest.raises(ValueError, match="64 bits"):
            long_value(bad)
    for bad in (True, 1.5, "7"):
        with pytest.raises(TypeError, match="non-integer"):
            long_value(bad)
