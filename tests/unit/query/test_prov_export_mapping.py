"""The PROV export's mapping (recipes/prov_export.py), pure: node types to PROV elements, edge
types to relations, actors to agents, the bounds and arguments, and the table docs/audit.md
shows beside the code's."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fake_reader import FakeReader
from fakes.prov import FakeProvReads
from prov.model import ProvActivity, ProvDocument, ProvRecord

from provgraph.query.errors import InvalidArgumentError
from provgraph.query.read.model import Direction, EdgeView, Lineage, NodeView, Scope
from provgraph.query.read.prov_reads import Acted
from provgraph.query.recipes.prov_export import (
    FORMATS,
    RELATIONS,
    ProvExporter,
    export_direction,
    export_format,
    prov_document,
    relation_of,
    serialized,
)
from provgraph.schemas.graph import Rel

ROOT = Path(__file__).resolve().parents[3]
T = "2026-02-0{}T09:00:00.000000Z"
RUN_START, RUN_END, MODEL_TIME, EVALUATED = (
    datetime(2026, 2, day, 9, tzinfo=UTC) for day in (2, 3, 4, 5)
)


def _node(node_id: str, type_: str, **props: Any) -> NodeView:
    return NodeView(node_id, type_, "p", T.format(1), T.format(1), props.pop("deleted", None),
                    props.pop("placeholder", False), props)  # fmt: skip


RUN = _node("run:r1", "Run", name="train", started_at=T.format(2), ended_at=T.format(3))
EVAL = _node("evaluation:e1", "Evaluation", suite="smoke", evaluated_at=T.format(5))
MODEL = _node("model:p/m@1", "ModelVersion", version="1", registered_at=T.format(4),
              validation_passed=True, params_json='{"lr": 1}')  # fmt: skip
DATA = _node("dataset:p/web@v2", "DatasetVersion", placeholder=True)
EXP = _node("experiment:p/exp", "Experiment", number=3, deleted=T.format(6))
NODES = (MODEL, RUN, EVAL, DATA, EXP)
EDGES = (
    EdgeView("model:p/m@1", "run:r1", "GENERATED_BY"),
    EdgeView("run:r1", "dataset:p/web@v2", "USED", {"role": "train", "first_seen_at": T.format(2)}),
    EdgeView("run:r1", "experiment:p/exp", "PART_OF"),
    EdgeView("evaluation:e1", "model:p/m@1", "EVALUATED"),
    EdgeView("evaluation:e1", "run:r1", "GENERATED_BY"),  # two activities
    EdgeView("run:r1", "model:p/m@1", "SOMETHING_NEW", {"weight": 0.5}),
)
ACTED = {
    "run:r1": (
        Acted("service:trainer", None, T.format(2)),
        Acted("user:ann", "user:ann", T.format(3)),
    ),
    "model:p/m@1": (Acted("user:ann", "user:ann", T.format(4)),),
    "evaluation:e1": (Acted("ci-bot", None, T.format(5)),),
}  # fmt: skip


def _document() -> ProvDocument:
    lineage = Lineage(MODEL, NODES[1:], {n.id: 1 for n in NODES}, EDGES, truncated=False)
    return prov_document(lineage, ACTED)


def _records(document: ProvDocument, kind: str) -> list[ProvRecord]:
    return [r for r in document.get_records() if type(r).__name__ == kind]


def _times(record: ProvRecord) -> tuple[datetime | None, datetime | None]:
    assert isinstance(record, ProvActivity)
    return record.get_startTime(), record.get_endTime()


def _ends(record: ProvRecord) -> tuple[str, str]:
    (_, a), (_, b), *_ = record.formal_attributes
    return str(a), str(b)


def _attr(record: ProvRecord, name: str) -> set[str]:
    return {str(v) for k, v in record.attributes if str(k) == name}


def test_every_edge_type_has_a_row_and_the_docs_show_the_same_table() -> None:
    assert set(RELATIONS) == set(Rel)
    page = (ROOT / "docs" / "audit.md").read_text()
    table = page.split("<!-- prov-mapping -->", 1)[1].split("\n\n", 1)[0]
    rows = re.findall(r"^\| `(\w+)` \| `(\w+)` \| (.*?) ?\|$", table, re.M)
    shown = {Rel(rel): (relation, role.strip()) for rel, relation, role in rows}
    assert len(rows) == len(shown) == len(Rel)
    for rel, (relation, role) in RELATIONS.items():
        # USED's role is the edge's own: the page says so in words.
        cell = f"`{role}`" if role else ("" if rel is not Rel.USED else shown[rel][1])
        assert shown[rel] == (relation, cell), rel
    assert shown[Rel.USED][1]


@pytest.mark.parametrize(
    ("rel", "src", "dst", "expected"),
    [
        ("GENERATED_BY", "entity", "activity", ("wasGeneratedBy", None)),
        ("GENERATED_BY", "activity", "activity", ("wasInformedBy", None)),
        ("USED", "activity", "entity", ("used", None)),
        ("RAN_IN", "activity", "entity", ("used", "environment")),
        ("SERVES", "activity", "entity", ("used", "serves")),
        ("USED", "entity", "entity", ("wasInfluencedBy", None)),
        ("DERIVED_FROM", "entity", "entity", ("wasDerivedFrom", None)),
        ("VERSION_OF", "entity", "entity", ("specializationOf", None)),
        ("CHILD_OF", "activity", "activity", ("wasInformedBy", None)),
        ("CHILD_OF", "entity", "entity", ("wasInfluencedBy", None)),
        ("PART_OF", "activity", "entity", ("wasInfluencedBy", None)),
        ("NOT_A_TYPE", "entity", "activity", ("wasInfluencedBy", None)),
    ],
)
def test_relation_by_edge_type_and_the_kinds_of_its_ends(
    rel: str, src: str, dst: str, expected: tuple[str, str | None]
) -> None:
    assert relation_of(rel, src, dst) == expected


def test_nodes_become_entities_and_activities_with_their_times_and_attributes() -> None:
    document = _document()
    entities = {str(r.identifier): r for r in _records(document, "ProvEntity")}
    activities = {str(r.identifier): r for r in document.get_records(ProvActivity)}
    assert all(isinstance(r, ProvActivity) for r in activities.values())
    assert set(entities) == {"provgraph:model:p/m@1", "provgraph:dataset:p/web@v2",
                             "provgraph:experiment:p/exp"}  # fmt: skip
    assert set(activities) == {"provgraph:run:r1", "provgraph:evaluation:e1"}
    assert _times(activities["provgraph:run:r1"]) == (RUN_START, RUN_END)
    assert _times(activities["provgraph:evaluation:e1"]) == (EVALUATED, EVALUATED)
    model = entities["provgraph:model:p/m@1"]
    assert _attr(model, "provgraph:type") == {"ModelVersion"}
    assert _attr(model, "provgraph:version") == {"1"} and _attr(model, "provgraph:project") == {"p"}
    # Only the listed scalar properties: no booleans, no JSON text, no times twice.
    assert not _attr(model, "provgraph:validation_passed") | _attr(model, "provgraph:params_json")
    assert _attr(entities["provgraph:dataset:p/web@v2"], "provgraph:placeholder") == {"true"}
    exp = entities["provgraph:experiment:p/exp"]
    assert _attr(exp, "prov:type") == {"prov:Plan"}
    assert _attr(exp, "provgraph:deleted_at") == {T.format(6)}


def test_edges_become_relations_with_roles_times_and_the_edge_they_stand_for() -> None:
    document = _document()
    made = _records(document, "ProvGeneration")
    assert [(_ends(r), _attr(r, "provgraph:rel")) for r in made] == [
        (("provgraph:model:p/m@1", "provgraph:run:r1"), {"GENERATED_BY"})]  # fmt: skip
    assert made[0].get_attribute("prov:time") == {MODEL_TIME}
    usages = {_ends(r): r for r in _records(document, "ProvUsage")}
    used = usages[("provgraph:run:r1", "provgraph:dataset:p/web@v2")]
    assert _attr(used, "prov:role") == {"train"} and _attr(used, "provgraph:first_seen_at") == set()
    assert used.get_attribute("prov:time") == {RUN_START}
    evaluated = usages[("provgraph:evaluation:e1", "provgraph:model:p/m@1")]
    assert _attr(evaluated, "prov:role") == {"evaluated"}
    informed = _records(document, "ProvCommunication")
    assert [(_ends(r), _attr(r, "provgraph:rel")) for r in informed] == [
        (("provgraph:evaluation:e1", "provgraph:run:r1"), {"GENERATED_BY"})]  # fmt: skip
    influences = {_ends(r): r for r in _records(document, "ProvInfluence")}
    assert set(influences) == {("provgraph:run:r1", "provgraph:experiment:p/exp"),
                               ("provgraph:run:r1", "provgraph:model:p/m@1")}  # fmt: skip
    unknown = influences[("provgraph:run:r1", "provgraph:model:p/m@1")]
    assert _attr(unknown, "provgraph:rel") == {"SOMETHING_NEW"}
    assert _attr(unknown, "provgraph:weight") == {"0.5"}


def test_actors_become_agents_once_each_associated_or_attributed() -> None:
    document = _document()
    agents = {str(r.identifier): _attr(r, "prov:type") for r in _records(document, "ProvAgent")}
    assert agents == {"provgraph:service:trainer": {"prov:SoftwareAgent"},
                      "provgraph:user:ann": {"prov:Person"}, "provgraph:ci-bot": set()}  # fmt: skip
    associated = {(_ends(r), frozenset(_attr(r, "provgraph:principal")))
                  for r in _records(document, "ProvAssociation")}  # fmt: skip
    assert associated == {
        (("provgraph:run:r1", "provgraph:service:trainer"), frozenset()),
        (("provgraph:run:r1", "provgraph:user:ann"), frozenset({"user:ann"})),
        (("provgraph:evaluation:e1", "provgraph:ci-bot"), frozenset()),
    }
    attributed = [_ends(r) for r in _records(document, "ProvAttribution")]
    assert attributed == [("provgraph:model:p/m@1", "provgraph:user:ann")]


@pytest.mark.parametrize("format_name", sorted(FORMATS))
def test_each_format_reads_back_as_the_same_document(format_name: str) -> None:
    document = _document()
    text = serialized(document, format_name)
    back = ProvDocument.deserialize(content=text, format=FORMATS[format_name][0])
    assert back == document
    assert len(list(back.get_records())) == len(NODES) + len(EDGES) + 3 + 4  # agents, acts


def test_arguments_outside_the_choices_are_refused() -> None:
    with pytest.raises(InvalidArgumentError, match="format must be one of prov-json, prov-n"):
        export_format("prov-o")
    with pytest.raises(InvalidArgumentError, match="direction must be up or down"):
        export_direction("both")
    assert export_direction("down") is Direction.DOWNSTREAM


def test_a_depth_beyond_the_bound_is_refused_before_any_read() -> None:
    graph = FakeReader([RUN], [])
    exporter = ProvExporter(graph, FakeProvReads(), max_depth=20, limit=100)
    for depth in (100, 0, -1):
        with pytest.raises(InvalidArgumentError, match="depth must be between 1 and 20"):
            exporter.export("run:r1", Scope.everything(), direction=Direction.UPSTREAM, depth=depth)
    assert graph.calls["lineage"] == 0
    found = exporter.export("run:r1", Scope.everything(), direction=Direction.UPSTREAM, depth=20)
    assert found is not None and not found.truncated
    assert graph.last_lineage == {"depth": 20, "limit": 100, "direction": Direction.UPSTREAM}
    missing = exporter.export("run:none", Scope.everything(), direction=Direction.UPSTREAM, depth=1)
    assert missing is None
    assert exporter.export("run:r1", Scope(frozenset({"q"})), direction=Direction.UPSTREAM,
                           depth=1) is None  # fmt: skip


def test_a_walk_cut_at_the_node_cap_says_so() -> None:
    graph = FakeReader(NODES, EDGES)
    up = Direction.UPSTREAM
    whole = ProvExporter(graph, FakeProvReads(), max_depth=20, limit=10)
    found = whole.export("evaluation:e1", Scope.everything(), direction=up, depth=3)
    assert found is not None and not found.truncated
    assert len(list(found.document.get_records(ProvActivity))) == 2  # the evaluation, the run
    cut = ProvExporter(graph, FakeProvReads(), max_depth=20, limit=1)
    found = cut.export("evaluation:e1", Scope.everything(), direction=up, depth=3)
    assert found is not None and found.truncated
    # One node kept (the model, first of the two one step up by id) and the edge between them.
    kept = [type(r).__name__ for r in found.document.get_records()]
    assert kept == ["ProvActivity", "ProvEntity", "ProvUsage"]
