"""GraphQL field resolution over an in-memory read model."""

from __future__ import annotations

from query_graphql_fake import run_query, story


def ok(query: str, **kw: object) -> dict:  # type: ignore[type-arg]
    result = run_query(query, **kw)  # type: ignore[arg-type]
    assert result.errors is None, result.errors
    return result.data  # type: ignore[no-any-return]


def test_a_renumbered_run_shows_the_number_it_claimed() -> None:
    data = ok(
        """{ a: node(id: "run:r1") { ... on Run { runNumber runNumberClaimed
                                                  experiment { number numberClaimed } } }
             b: node(id: "run:r2") { ... on Run { runNumber runNumberClaimed } } }"""
    )
    assert data["a"] == {
        "runNumber": 1,
        "runNumberClaimed": None,
        "experiment": {"number": 1, "numberClaimed": None},
    }
    assert data["b"] == {"runNumber": 2, "runNumberClaimed": 1}


def test_run_fields_and_typed_neighbours() -> None:
    data = ok(
        """{ node(id: "run:r1") { id type project placeholder ... on Run {
             name runNumber status params finalMetrics code { repo commit dirty } error { type }
             inputs { role datasetVersion { id version storageUri checksum recordCount } }
             experiment { number } environment { image { name tag } packages }
             checkpoints { step sizeBytes run { id } } modelVersions { id } } } }"""
    )
    run = data["node"]
    assert run["type"] == "Run" and run["project"] == "p" and run["placeholder"] is False
    assert run["params"] == {"lr": 0.1} and run["finalMetrics"] == {"loss": 1.5}
    assert run["code"] == {"repo": "git", "commit": "abc", "dirty": False}
    assert run["error"] is None
    assert run["inputs"] == [
        {
            "role": "train",
            "datasetVersion": {
                "id": "dataset:p/web@v1",
                "version": "v1",
                "storageUri": "s3://web/v1",
                "checksum": "sha256:aa",
                "recordCount": 10,
            },
        }
    ]
    assert run["experiment"] == {"number": 1}
    assert run["environment"] == {
        "image": {"name": "trainer", "tag": "1"},
        "packages": {"torch": "2.5"},
    }
    assert run["checkpoints"] == [{"step": 100, "sizeBytes": 5e9, "run": {"id": "run:r1"}}]
    assert run["modelVersions"] == [{"id": "model:p/m@1"}]


def test_failed_run_error_and_resume() -> None:
    data = ok(
        '{ node(id: "run:r2") { ... on Run { status error { type message } '
        "resumedFrom { id } inputs { datasetVersion { cleaningRules split derivedFrom "
        "{ transform datasetVersion { id } } dataset { name } } } } } }"
    )
    run = data["node"]
    assert run["error"] == {"type": "OOM", "message": "out of memory"}
    assert run["resumedFrom"] == [{"id": "checkpoint:r1/100"}]
    version = run["inputs"][0]["datasetVersion"]
    assert version["cleaningRules"] == [{"kind": "dedup"}] and version["split"] == {"train": 1}
    assert version["derivedFrom"] == [
        {"transform": "dedup", "datasetVersion": {"id": "dataset:p/web@v1"}}
    ]
    assert version["dataset"] == {"name": "web"}


def test_model_version_and_deployment() -> None:
    data = ok(
        '{ modelVersion(name: "m", version: "1") { id status fitFor model { name } '
        "producedBy { id } exportedFrom { step } deployments { name status "
        "serves { trafficShare modelVersion { id } } } } }"
    )
    mv = data["modelVersion"]
    assert mv["status"] == "approved" and mv["fitFor"] == ["chat"]
    assert mv["model"] == {"name": "m"} and mv["producedBy"] == {"id": "run:r1"}
    assert mv["exportedFrom"] == {"step": 100}
    serving = mv["deployments"][0]
    assert serving["serves"] == [{"trafficShare": 1.0, "modelVersion": {"id": "model:p/m@1"}}]


def test_natural_keys() -> None:
    data = ok('{ datasetVersion(name: "web", version: "v2") { id } experiment(number: 1) { id } }')
    assert data == {
        "datasetVersion": {"id": "dataset:p/web@v2"},
        "experiment": {"id": "experiment:p/e1"},
    }


def test_aliases_and_fragments() -> None:
    data = ok(
        """fragment Basics on Node { id type }
           query { first: node(id: "run:r1") { ...Basics }
                   second: node(id: "run:r2") { ...Basics ... on Run { status } } }"""
    )
    assert data == {
        "first": {"id": "run:r1", "type": "Run"},
        "second": {"id": "run:r2", "type": "Run", "status": "failed"},
    }


def test_as_of_hides_later_nodes_and_accepts_iso_dates() -> None:
    before = '{ node(id: "dataset:p/web@v2", asOf: "2026-01-05T12:00:00Z") { id } }'
    result = run_query(before)
    assert result.data == {"node": None}
    assert result.errors[0].extensions["code"] == "not_found"
    after = ok('{ node(id: "dataset:p/web@v2", asOf: "2026-01-07") { id } }')
    assert after == {"node": {"id": "dataset:p/web@v2"}}


def test_nodes_pagination_and_search() -> None:
    first = ok("{ nodes(type: RUN, first: 1) { items { id } nextCursor } }")["nodes"]
    assert first["items"] == [{"id": "run:r1"}] and first["nextCursor"] is not None
    page = (
        "query($after: String) "
        "{ nodes(type: RUN, first: 1, after: $after) { items { id } nextCursor } }"
    )
    rest = ok(page, variables={"after": first["nextCursor"]})
    assert rest["nodes"] == {"items": [{"id": "run:r2"}], "nextCursor": None}
    failed = ok('{ nodes(type: RUN, filter: {status: "failed"}) { items { id } } }')
    assert failed["nodes"]["items"] == [{"id": "run:r2"}]
    found = ok('{ search(text: "web@", types: [DATASET_VERSION]) { id } }')["search"]
    assert [n["id"] for n in found] == ["dataset:p/web@v1", "dataset:p/web@v2"]


def test_lineage_impact_path() -> None:
    data = ok(
        """{ lineage(id: "model:p/m@1", depth: 1) { root { id } nodes { id } truncated depths
               edges { from to type properties } }
             impact(id: "model:p/m@1") { node { id } path { nodes { id } edges { type } } }
             path(from: "model:p/m@1", to: "run:r1") { nodes { id } edges { from to type } } }"""
    )
    lineage = data["lineage"]
    assert lineage["root"] == {"id": "model:p/m@1"} and lineage["truncated"] is False
    assert {n["id"] for n in lineage["nodes"]} == {"run:r1", "checkpoint:r1/100", "model:p/m"}
    assert lineage["depths"]["run:r1"] == 1
    assert {"from": "model:p/m@1", "to": "run:r1", "type": "GENERATED_BY", "properties": {}} in (
        lineage["edges"]
    )
    assert data["impact"] == [
        {
            "node": {"id": "deployment:p/api"},
            "path": {
                "nodes": [{"id": "model:p/m@1"}, {"id": "deployment:p/api"}],
                "edges": [{"type": "SERVES"}],
            },
        }
    ]
    assert data["path"][0]["edges"] == [
        {"from": "model:p/m@1", "to": "run:r1", "type": "GENERATED_BY"}
    ]


def test_lineage_defaults_come_from_settings() -> None:
    reader = story()
    ok('{ lineage(id: "run:r1", direction: DOWNSTREAM) { root { id } } }', reader=reader)
    assert reader.last_lineage == {"depth": 5, "limit": 1000, "direction": "DOWNSTREAM"}


def test_history_artifact_diff_reproduce() -> None:
    data = ok(
        """{ history(id: "run:r1") { items { eventId eventType occurredAt producer actor }
               nextCursor }
             artifact(checksum: "sha256:aa") { id }
             diff(a: "run:r1", b: "run:r2")
             reproduce(id: "model:p/m@1") }"""
    )
    assert data["history"] == {
        "items": [
            {
                "eventId": "e1",
                "eventType": "run.started",
                "occurredAt": "2026-01-05T09:00:00.000000Z",
                "producer": "tests",
                "actor": "user:a",
            }
        ],
        "nextCursor": None,
    }
    assert data["artifact"] == [{"id": "dataset:p/web@v1"}]
    assert data["diff"]["params"] == {"changed": {"lr": [0.1, 0.2]}}
    assert data["reproduce"] == {"target": "model:p/m@1"}


def test_unknown_label_is_other_node() -> None:
    from fake_reader import FakeReader
    from query_graphql_fake import view

    reader = FakeReader([view("job:p/x", "Job", name="x")], [])
    data = ok('{ node(id: "job:p/x") { __typename id type properties } }', reader=reader)
    assert data["node"] == {
        "__typename": "OtherNode",
        "id": "job:p/x",
        "type": "Job",
        "properties": {"name": "x"},
    }


def test_declared_fields_read_the_view_when_asked() -> None:
    import strawberry
    from query_graphql_fake import view

    from provgraph.query.graphql.fields import read_from_view, viewed
    from provgraph.query.read.model import NodeView

    reads: list[str] = []

    def read_label(v: NodeView) -> str:
        reads.append(v.id)
        return v.id.upper()

    @read_from_view
    @strawberry.type
    class Probe:
        view: strawberry.Private[NodeView]
        label: str = viewed(read_label)

    probe = Probe(view=view("run:x", "Run"))  # the field is no constructor argument
    assert reads == []
    assert probe.label == "RUN:X" and reads == ["run:x"]


def test_every_node_type_reads_its_declared_fields() -> None:
    """A node type left out of `register` (or `read_from_view`) would answer no declared
    field: every one, inherited ones included, reads the view on each type of the schema."""
    import dataclasses

    from query_graphql_fake import view

    from provgraph.query.graphql import schema  # imports every node type
    from provgraph.query.graphql.node import Node

    def subclasses(cls: type) -> list[type]:
        return [sub for c in cls.__subclasses__() for sub in (c, *subclasses(c))]

    types = subclasses(Node)
    assert schema.OtherNode in types and len(types) >= 11
    for cls in types:
        node = cls(view=view("x:1", cls.__name__, name="n"))
        fields = dataclasses.fields(cls)
        declared = [f.name for f in fields if not f.init and f.base_resolver is None]  # type: ignore[attr-defined]
        assert {"id", "type_", "properties"} <= set(declared)
        values = {name: getattr(node, name) for name in declared}  # none is missing
        assert values["id"] == "x:1" and values["type_"] == cls.__name__
