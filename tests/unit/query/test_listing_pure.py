"""`nodes` and `search` with the filters of `lessons` (`recipes/listing.py`, GraphQL `NodeFilter`)
over the in-memory read model: a metric condition checked on the runs read, page after page, with
every bound (page, read, scan) several times smaller than the story; `uses`, `status` and
`param` on `search`. Expected values are written from the nodes below."""

from __future__ import annotations

from typing import Any

import pytest
from fake_reader import FakeReader
from query_graphql_fake import run_query, story, view

from provgraph.query.errors import InvalidArgumentError
from provgraph.query.read.model import NodeView, NodeWhere, Scope
from provgraph.query.recipes.listing import Listing
from provgraph.schemas.storage import encode_json

EVERYTHING = Scope.everything()
ANY = NodeWhere()
RUNS = 40
# Run n logs final loss n / 10 (every third one logs none); `final:loss<2.5` keeps runs 1..24
# that log one: the 16 below.
KEPT = [n for n in range(1, 25) if n % 3]


def _runs() -> FakeReader:
    nodes: list[NodeView] = []
    for n in range(1, RUNS + 1):
        metrics = {} if n % 3 == 0 else {"final_metrics_json": encode_json({"loss": n / 10})}
        seen = f"2026-01-05T09:{n:02d}:00.000000Z"
        nodes.append(view(f"run:r{n:02d}", "Run", seen, name=f"sweep-{n}", **metrics))
    nodes.append(view("dataset:p/web@v1", "DatasetVersion", name="web"))
    return FakeReader(nodes, [])


def _pages(listing: Listing, first: int, metric: str = "final:loss<2.5") -> list[list[int]]:
    pages, after = [], None
    while True:
        page = listing.nodes(
            "Run", EVERYTHING, NodeWhere(), metric=metric, first=first, after=after
        )
        assert len(page.items) <= first
        pages.append([int(n.id.removeprefix("run:r")) for n in page.items])
        if (after := page.next_cursor) is None:
            return pages


def test_a_metric_page_reads_on_until_it_is_full_and_knows_a_next_one() -> None:
    reader = _runs()
    pages = _pages(Listing(reader, scan=1000, chunk=2), first=3)
    assert pages == [KEPT[i : i + 3] for i in range(0, len(KEPT), 3)]
    # The last page holds the 16th run alone: runs 25..40 were read and none met the condition.
    assert pages[-1] == [23]


@pytest.mark.parametrize(("scan", "chunk"), [(5, 2), (7, 3), (1, 1)])
def test_a_scan_bound_ends_a_page_early_and_its_cursor_skips_and_repeats_nothing(
    scan: int, chunk: int
) -> None:
    reader = _runs()
    pages = _pages(Listing(reader, scan=scan, chunk=chunk), first=4)
    assert [n for page in pages for n in page] == KEPT
    assert any(len(page) < 4 for page in pages[:-1])  # some page stopped at the scan bound
    # Each page read at most `scan` runs, in reads of at most `chunk`: the 40 runs take at
    # least 40 / scan pages, and the reads never exceed what the bounds allow.
    assert len(pages) >= RUNS // scan
    assert reader.calls["list_nodes"] <= len(pages) * -(-scan // chunk)


def test_without_a_metric_nodes_is_the_read_models_page() -> None:
    reader = _runs()
    page = Listing(reader, scan=5, chunk=2).nodes("Run", EVERYTHING, NodeWhere(), first=30)
    assert len(page.items) == 30 and page.next_cursor is not None
    assert reader.calls["list_nodes"] == 1


def test_a_metric_keeps_runs_only_and_must_be_a_condition() -> None:
    listing = Listing(_runs(), scan=100, chunk=10)
    with pytest.raises(InvalidArgumentError, match="keeps runs; the type asked for is Dataset"):
        listing.nodes("DatasetVersion", EVERYTHING, NodeWhere(), metric="loss<1")
    with pytest.raises(InvalidArgumentError, match="not a condition"):
        listing.nodes("Run", EVERYTHING, NodeWhere(), metric="loss")
    with pytest.raises(InvalidArgumentError, match="uses takes a dataset version id"):
        listing.nodes("Run", EVERYTHING, NodeWhere(uses="run:r01"))
    with pytest.raises(InvalidArgumentError, match="uses: "):
        listing.search("web", EVERYTHING, where=NodeWhere(uses="not an id"))
    with pytest.raises(InvalidArgumentError, match="the types asked for are DatasetVersion"):
        listing.search("web", EVERYTHING, types=["DatasetVersion"], where=NodeWhere(), metric="x<1")


def test_search_with_a_metric_checks_the_runs_that_match_the_text() -> None:
    listing = Listing(_runs(), scan=100, chunk=50)
    found = listing.search("sweep-1", EVERYTHING, where=NodeWhere(), metric="loss<=1.3", first=50)
    # sweep-1, sweep-10..19 match the text; of them, losses 0.1, 1.0, 1.1, 1.3 (12 logs none).
    assert [n.id for n in found] == ["run:r01", "run:r10", "run:r11", "run:r13"]
    first_two = listing.search(
        "sweep-1", EVERYTHING, where=NodeWhere(), metric="loss<=1.3", first=2
    )
    assert [n.id for n in first_two] == ["run:r01", "run:r10"]


def _data(query: str) -> Any:
    result = run_query(query)
    assert result.errors is None, result.errors
    return result.data


def test_graphql_nodes_takes_a_metric_and_a_dataset_version_used() -> None:
    ids = "{ nodes(type: %s, filter: { %s }) { items { id } nextCursor } }"

    def found(type: str, where: str) -> list[str]:
        return [n["id"] for n in _data(ids % (type, where))["nodes"]["items"]]

    assert found("RUN", 'metric: "loss<2"') == ["run:r1"]
    assert found("RUN", 'metric: "final:loss>1.5"') == []
    assert found("RUN", 'uses: "dataset:p/web@v2"') == ["run:r2"]
    assert found("MODEL_VERSION", 'uses: "dataset:p/web@v1"') == ["model:p/m@1"]
    assert found("CHECKPOINT", 'uses: "dataset:p/web@v1"') == ["checkpoint:r1/100"]
    assert found("MODEL_VERSION", 'uses: "dataset:p/web@v2"') == []


def test_graphql_search_takes_the_filters_of_nodes() -> None:
    def found(args: str) -> list[str]:
        return [n["id"] for n in _data(f"{{ search({args}) {{ id }} }}")["search"]]

    assert found('text: "r", types: [RUN]') == ["run:r1", "run:r2"]
    assert found('text: "r", filter: { status: "failed" }') == ["run:r2"]
    assert found('text: "r", filter: { metric: "loss<2" }') == ["run:r1"]
    assert found('text: "", filter: { uses: "dataset:p/web@v1" }') == [
        "checkpoint:r1/100",
        "model:p/m@1",
        "run:r1",
    ]
    assert found('text: "r", filter: { experiment: "experiment:p/e1", status: "completed" }') == [
        "run:r1"
    ]
    assert found('text: "r", project: "p", filter: { project: "p", status: "failed" }') == [
        "run:r2"
    ]


def test_graphql_search_refuses_two_projects_and_a_metric_on_other_types() -> None:
    for query, words in (
        ('{ search(text: "r", project: "p", filter: { project: "q" }) { id } }', "given twice"),
        ('{ search(text: "r", types: [DATASET], filter: { metric: "loss<1" }) { id } }', "keeps"),
    ):
        result = run_query(query, story())
        assert result.errors is not None and words in result.errors[0].message
        assert result.errors[0].extensions["code"] == "invalid_argument"
