"""Marquez's read parameters as Marquez takes them (pure code): pages of any non-negative size
served up to the ceiling, any depth walked within the bounds, `filter`/`sort` read loosely, and
a job's column walks merged."""

from __future__ import annotations

import pytest

from provgraph.query.errors import InvalidArgumentError
from provgraph.query.http.marquez.column_starts import walk_all
from provgraph.query.http.marquez.common import walk_depth
from provgraph.query.http.marquez.search import KINDS, SORTS, enum_key
from provgraph.query.read.marquez_reads import MAX_OFFSET, page_window
from provgraph.query.read.model import ColumnEdge, ColumnKey, ColumnLineage, ColumnNode, NodeView


@pytest.mark.parametrize(
    ("limit", "offset", "window"),
    [
        (100, 0, {"limit": 100, "offset": 0}),  # marquez-python's defaults
        (0, 0, {"limit": 0, "offset": 0}),  # Marquez's @Min(0): an empty page, a true total
        (500, 7, {"limit": 500, "offset": 7}),
        (1000, 0, {"limit": 500, "offset": 0}),  # the ceiling is served, never refused
        (100_000, 3, {"limit": 500, "offset": 3}),
        (10**40, 10**40, {"limit": 500, "offset": MAX_OFFSET}),  # still a Neo4j integer
    ],
)
def test_any_non_negative_page_is_served_up_to_the_ceiling(
    limit: int, offset: int, window: dict[str, int]
) -> None:
    assert page_window(limit, offset, 500) == window


@pytest.mark.parametrize(("limit", "offset"), [(-1, 0), (10, -1), (True, 0)])
def test_a_negative_page_is_refused_by_name(limit: int, offset: int) -> None:
    with pytest.raises(InvalidArgumentError, match="must be a non-negative integer"):
        page_window(limit, offset, 500)


@pytest.mark.parametrize(
    ("asked", "walked"),
    [(None, 5), (1, 1), (7, 7), (20, 20), (21, 20), (100_000, 20), (0, 1), (-3, 1)],
)
def test_any_depth_is_walked_within_the_bounds(asked: int | None, walked: int) -> None:
    assert walk_depth(asked, 5, 20) == walked


def test_a_default_above_the_ceiling_is_walked_at_the_ceiling() -> None:
    assert walk_depth(None, 20, 3) == 3


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("dataset", "dataset"),
        ("JOB", "job"),
        (" Updated-At ", "updated_at"),
        ("update.at", "update_at"),
    ],
)
def test_filter_and_sort_are_read_as_marquez_reads_its_enums(text: str, key: str) -> None:
    assert enum_key(text) == key
    assert key in KINDS or key in SORTS


def _dataset(name: str) -> NodeView:
    return NodeView(f"dataset:p/{name}", "Dataset", "p", None, None, None, False)


def _walk_of(name: str, *inputs: str) -> ColumnLineage:
    """`name`.c (depth 0) fed by each of `inputs`.c (depth 1)."""
    root = _dataset(name)
    out = ColumnKey(root.id, "c")
    keys = [ColumnKey(f"dataset:p/{i}", "c") for i in inputs]
    nodes = (ColumnNode(out, root, 0), *(ColumnNode(k, _dataset(k.dataset[10:]), 1) for k in keys))
    return ColumnLineage(root, None, nodes, tuple(ColumnEdge(k, out) for k in keys), False)


JOB = NodeView("job:p/build", "Job", "p", None, None, None, False)


def test_a_jobs_walks_merge_each_column_at_its_smallest_depth() -> None:
    walks = {"dataset:p/a": _walk_of("a", "raw"), "dataset:p/b": _walk_of("b", "a", "raw")}
    merged = walk_all(JOB, ["dataset:p/a", "dataset:p/b"], walks.get, limit=10)
    depths = {(n.key.dataset, n.key.field): n.depth for n in merged.nodes}
    assert depths == {("dataset:p/a", "c"): 0, ("dataset:p/b", "c"): 0, ("dataset:p/raw", "c"): 1}
    assert len(merged.edges) == 3 and merged.root == JOB and not merged.truncated


def test_a_jobs_walks_stop_at_the_column_cap() -> None:
    walks = {f"dataset:p/o{i}": _walk_of(f"o{i}", f"i{i}") for i in range(10)}
    merged = walk_all(JOB, sorted(walks), walks.get, limit=5)
    assert merged.truncated and len(merged.nodes) == 5
    kept = {n.key for n in merged.nodes}
    assert all(e.input in kept and e.output in kept for e in merged.edges)
    unreadable = walk_all(JOB, ["dataset:p/gone"], walks.get, limit=5)
    assert (unreadable.nodes, unreadable.truncated) == ((), False)
