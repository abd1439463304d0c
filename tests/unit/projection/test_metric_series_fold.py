"""The downsampled metric series of a run: its buckets, its bound, and a fold that no order,
duplicate or batch of `run.metrics.logged` events changes (pure: the projection and the
in-memory graph; the same rules run on Neo4j in the writer contract, tests/contracts)."""

from __future__ import annotations

import math
from itertools import permutations

from support.projection_story import Story

from provgraph.ingest.projection import SeriesUpsert, project_event
from provgraph.ingest.projector.storable import check_storable
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.schemas import Event
from provgraph.schemas.events.common import INT64_MAX
from provgraph.schemas.graph import METRIC_SERIES_LABEL
from provgraph.schemas.storage import (
    SERIES_BUCKETS_PER_OCTAVE,
    SeriesPoint,
    series_bucket,
    series_id,
    series_lists,
    series_points,
    series_stored,
    step_version,
)

K = SERIES_BUCKETS_PER_OCTAVE


def series_of(graph: MemoryGraph, story: Story, name: str = "loss") -> list[tuple[int, float]]:
    return series_points(graph.series[series_id(story.run, name)])


def upserts(event: Event) -> list[SeriesUpsert]:
    return [m for m in project_event(event).mutations if isinstance(m, SeriesUpsert)]


# ---- buckets ---------------------------------------------------------------------------------


def test_a_bucket_is_floor_of_k_log2_of_the_step_plus_one() -> None:
    for step in range(0, 20_000):
        assert series_bucket(step) == math.floor(K * math.log2(step + 1)), step


def test_bucket_edges_are_exact_at_every_power_of_two_up_to_64_bits() -> None:
    # (2**j)**K is exactly 2**(K*j): the step 2**j - 1 opens bucket K*j, its predecessor
    # closes the one before, where a float log2 could land either side.
    for j in range(5, 64):
        assert series_bucket(2**j - 1) == K * j
        assert series_bucket(2**j - 2) == K * j - 1
    assert series_bucket(INT64_MAX) == K * 63


def test_the_first_steps_have_buckets_of_their_own_and_later_ones_share() -> None:
    firsts = [series_bucket(step) for step in range(27)]
    assert len(set(firsts)) == 27  # dense where a loss moves fast
    assert series_bucket(27) == series_bucket(26)
    assert series_bucket(990) == series_bucket(1010) == 159 != series_bucket(1023)


def test_a_series_is_bounded_whatever_the_number_of_steps() -> None:
    # At most K * log2(max_step + 1) + 1 points: 269 for every step of a million (bound 320).
    million = {series_bucket(step) for step in range(1_000_001)}
    assert len(million) == 269 <= K * math.log2(1_000_001) + 1
    assert max(million) == 318


def test_points_are_stored_as_four_lists_by_bucket_and_read_back_by_step() -> None:
    points = {159: SeriesPoint(1010, 1.1, "b"), 0: SeriesPoint(0, 4, "a")}
    stored = series_lists(points)
    assert stored == {
        "buckets": (0, 159),
        "steps": (0, 1010),
        "values": (4.0, 1.1),  # floats all: a Neo4j list holds one type
        "_v_points": ("a", "b"),
    }
    assert all(type(v) is float for v in stored["values"])  # type: ignore[union-attr]
    assert series_stored({"id": "run:r#loss", **stored}) == points
    assert series_points({"id": "run:r#loss", **stored}) == [(0, 4.0), (1010, 1.1)]
    # Readers leave the internal versions out: the points are read without them.
    assert series_points({k: v for k, v in stored.items() if k != "_v_points"}) == [
        (0, 4.0),
        (1010, 1.1),
    ]
    assert series_points({}) == [] and series_stored({}) == {}


def test_a_series_written_a_point_per_property_is_read_where_the_lists_hold_no_bucket() -> None:
    # A graph written before the lists (`step.<b>`, `value.<b>`), until `replay` rebuilds it.
    legacy = {"step.159": 1000, "value.159": 1.3, "step.32": 3, "value.32": 2, "step.7": 5}
    assert series_points(legacy) == [(3, 2.0), (1000, 1.3)]  # step.7 has no value: no point
    both = {**legacy, **series_lists({159: SeriesPoint(1010, 1.1, "v")})}
    assert series_points(both) == [(3, 2.0), (1010, 1.1)]


# ---- the projection of one event -------------------------------------------------------------


def test_one_event_keeps_per_bucket_its_highest_step_and_the_later_point_on_a_tie() -> None:
    s = Story("p")
    event = s.series(1, 2, ("loss", 1010, 1.1), ("loss", 990, 1.2), ("loss", 7, 0.5),
                     ("loss", 7, 0.4), ("acc", 3, 0.9))  # fmt: skip
    (acc, loss) = upserts(event)
    version = f"2024-05-01T00:01:00.000000Z|{s.event_id(2)}"
    assert (loss.run, loss.name, loss.project, loss.id) == (s.run, "loss", "p", f"{s.run}#loss")
    assert loss.points == {
        48: SeriesPoint(7, 0.4, step_version(7, version)),
        159: SeriesPoint(1010, 1.1, step_version(1010, version)),
    }
    assert acc.name == "acc" and set(acc.points) == {32}


def test_the_runs_summary_is_the_last_point_of_its_series() -> None:
    s = Story("p")
    graph = MemoryGraph().fold([s.series(1, 2, ("loss", 5, 2.0), ("loss", 1023, 1.0))])
    run = graph.nodes[s.run][1]
    assert (run["metric.loss"], run["metric_step.loss"]) == series_of(graph, s)[-1][::-1]


def test_a_series_is_storable() -> None:
    s = Story("p")
    check_storable(project_event(s.series(1, 2, ("loss", INT64_MAX, -1e308), ("loss", 0, 0))))


# ---- the fold: order, duplicates, batches, owners --------------------------------------------


def test_every_order_of_a_few_events_with_a_duplicate_folds_to_the_same_series() -> None:
    s = Story("p")
    events = [
        s.series(3, 2, ("loss", 0, 4.0), ("loss", 500, 2.0), ("loss", 1010, 1.1)),
        s.series(3, 3, ("loss", 1000, 1.3), ("loss", 500, 2.1), ("acc", 1, 0.2)),
        s.series(1, 4, ("loss", 990, 1.2), ("loss", 2, 3.0), ("acc", 1, 0.3)),
        s.series(9, 5, ("loss", 1009, 0.9)),
        s.started(),
    ]
    expected = MemoryGraph().fold(events)
    assert series_of(expected, s) == [(0, 4.0), (2, 3.0), (500, 2.1), (1010, 1.1)]
    assert series_of(expected, s, "acc") == [(1, 0.2)]  # the same time: the larger id
    digests = {MemoryGraph().fold(order).canonical().digest() for order in permutations(events)}
    assert digests == {expected.canonical().digest()}
    for again in ([*events, events[1]], [*events, *events]):  # a redelivery changes nothing
        assert MemoryGraph().fold(again).canonical() == expected.canonical()


def test_the_canonical_graph_holds_the_series_as_a_node_outside_the_lineage_graph() -> None:
    s = Story("p")
    canonical = MemoryGraph().fold([s.started(), s.series(1, 2, ("loss", 3, 1.5))]).canonical("p")
    node = canonical.nodes[series_id(s.run, "loss")]
    assert node["labels"] == [METRIC_SERIES_LABEL]
    assert node["props"] == {
        "id": f"{s.run}#loss",
        "run": s.run,
        "name": "loss",
        "project": "p",
        "buckets": [32],
        "steps": [3],
        "values": [1.5],
        "_v_points": [step_version(3, f"2024-05-01T00:01:00.000000Z|{s.event_id(2)}")],
    }
    assert not [line for line in canonical.edges if series_id(s.run, "loss") in line]
    assert series_id(s.run, "loss") not in MemoryGraph().fold([s.started()]).canonical("q").nodes


def test_a_series_never_lands_on_a_run_another_project_owns() -> None:
    # Unscreened, as the writer meets it: the run p claimed keeps its project, and the points
    # q sends for it land nowhere (the projector's screen dead-letters such an event).
    mine, theirs = Story("p"), Story("q")
    theirs.run_key, theirs.run = mine.run_key, mine.run
    started, logged = mine.started(), mine.series(1, 2, ("loss", 5, 1.0))
    stranger = theirs.series(2, 9, ("loss", 5, 9.9), ("acc", 5, 0.1))
    for events in ([started, logged, stranger], [started, stranger, logged]):
        graph = MemoryGraph().fold(events)
        assert graph.nodes[mine.run][1]["project"] == "p"
        assert list(graph.series) == [series_id(mine.run, "loss")]
        assert series_of(graph, mine) == [(5, 1.0)]
