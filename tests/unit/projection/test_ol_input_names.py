"""Every OpenLineage dataset is named, input or output: a source of another project that a run
only reads keeps its OpenLineage namespace and name and its Marquez id (never its facets), in
any order of the events, and the names an event that wrote the dataset gives win."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from support.ol_names import CROSS, READER, aliases, cross_project, dataset, run_event

from provgraph.ingest.openlineage import spec_errors, wrap
from provgraph.ingest.projection import project_event
from provgraph.ingest.projection.base import Ctx
from provgraph.ingest.projection.mutations import NodeUpsert, ProjectionError
from provgraph.ingest.projection.ownership import footprint
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.schemas import Event
from provgraph.schemas.events.openlineage import ol_name
from provgraph.schemas.graph import MARQUEZ_ID

pytestmark = pytest.mark.unit

CRAWL = f"dataset:raw/{ol_name('crawl/x')}"
NAMES = ("name", "ol_namespace", "ol_name", MARQUEZ_ID)


def digests(events: list[Event]) -> set[str]:
    """The digest of the graph every order of `events` folds to."""
    return {
        MemoryGraph().fold(list(o)).canonical().digest() for o in itertools.permutations(events)
    }


def node(events: list[Event], node_id: str) -> dict[str, Any]:
    props: dict[str, Any] = MemoryGraph().fold(events).nodes[node_id][1]
    return props


def named(props: dict[str, Any]) -> dict[str, Any]:
    return {k: props.get(k) for k in NAMES}


def test_the_events_are_valid_openlineage() -> None:
    for event in (*cross_project(), *aliases("p")):
        assert spec_errors(dict(event.payload.event)) == []


def test_a_source_only_ever_read_is_named_but_not_described() -> None:
    reader, _writer = cross_project()
    seed = node([reader], "dataset:raw/seed")
    assert named(seed) == {
        "name": "seed",
        "ol_namespace": "s3://raw",
        "ol_name": "seed",
        MARQUEZ_ID: "dataset:s3://raw:seed",
    }
    assert seed["placeholder"] is True and seed["project"] == "raw"
    assert "description" not in seed and "documentation_json" not in seed
    assert node([reader], CRAWL)[MARQUEZ_ID] == "dataset:s3://raw:crawl/x"


def test_a_source_read_with_a_version_facet_names_its_version_too() -> None:
    reader, _writer = cross_project()
    version = node([reader], "dataset:raw/lexicon@v3")
    assert {k: version.get(k) for k in ("name", "ol_namespace", "ol_name", "version")} == {
        "name": "lexicon",
        "ol_namespace": "s3://raw",
        "ol_name": "lexicon",
        "version": "v3",
    }
    assert MARQUEZ_ID not in version and "description" not in version
    assert node([reader], "dataset:raw/lexicon")[MARQUEZ_ID] == "dataset:s3://raw:lexicon"


def test_naming_a_source_is_a_reference_not_a_write() -> None:
    reader, _writer = cross_project()
    prints = footprint(project_event(reader).mutations)
    sources = {CRAWL, "dataset:raw/seed", "dataset:raw/lexicon", "dataset:raw/lexicon@v3"}
    assert sources <= prints.referenced
    assert not {i for i in prints.written if i.startswith("dataset:raw/")}


def test_read_before_or_after_its_writer_it_folds_to_one_graph_with_the_writer_s_word() -> None:
    events = cross_project()
    assert len(digests(events)) == 1
    crawl = node(events, CRAWL)
    assert crawl["placeholder"] is False and crawl["description"] == "said by me"
    assert crawl[MARQUEZ_ID] == "dataset:s3://raw:crawl/x"


def test_a_writer_s_names_win_over_any_reference_and_the_later_reference_wins_else() -> None:
    events = aliases("p")
    assert len(digests(events)) == 1
    # corpus: named `lake-alias` by the JobEvent of 12:30, written under `lake` at 12:00.
    assert named(node(events, "dataset:p/corpus"))[MARQUEZ_ID] == "dataset:lake:corpus"
    # src: named only by references, `lake-alias` at 12:10, `lake` at 12:30.
    src = node(events, "dataset:p/src")
    assert (src["ol_namespace"], src[MARQUEZ_ID]) == ("lake", "dataset:lake:src")
    assert src["placeholder"] is True


def test_a_parent_job_named_only_by_the_parent_facet_is_a_marquez_job() -> None:
    event = run_event(READER, ("jobs", "tokenize"), 0)
    parent = {"_producer": "https://t/1", "_schemaURL": "https://t/ParentRunFacet"}
    parent |= {"run": {"runId": "7f3e4d5c-6a7b-4c8d-9e0f-1a2b3c4d5e6f"}}
    parent |= {"job": {"namespace": "jobs", "name": "nightly/dag"}}
    event["run"]["facets"] = {"parent": parent}
    job = node([wrap(event, CROSS)], f"job:jobs/{ol_name('nightly/dag')}")
    assert (job["name"], job["ol_namespace"], job[MARQUEZ_ID]) == (
        "nightly/dag",
        "jobs",
        "job:jobs:nightly/dag",
    )
    assert job["placeholder"] is True


def test_a_job_event_names_the_datasets_it_lists() -> None:
    (event,) = [e for e in aliases("p") if e.event_type == "openlineage.job_event"][:1]
    assert node([event], "dataset:p/src")[MARQUEZ_ID] == "dataset:lake-alias:src"


def test_only_an_entity_whose_id_names_its_project_can_be_named_by_a_reference() -> None:
    (event,) = [wrap(run_event(READER, ("jobs", "j"), 0, inputs=[dataset("s3://raw", "a")]), CROSS)]
    ctx = Ctx(event)
    assert isinstance(ctx.ref("dataset:raw/a", {"ol_name": "a"}), NodeUpsert)
    with pytest.raises(ProjectionError, match="cannot name run:"):
        ctx.ref(f"run:{READER}", {"name": "x"})
