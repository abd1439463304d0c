"""`projects` (what the caller may read) and `search(project:)`, over the in-memory read model."""

from __future__ import annotations

import asyncio
from typing import Any

from fake_reader import FakeReader
from fakes import fake_readers
from query_graphql_fake import T0, FakeRecipes

from provgraph.query.graphql.schema import make_context, make_schema
from provgraph.query.read.model import NodeView, Scope
from provgraph.query.settings import QuerySettings


def node(node_id: str, type: str, project: str, **props: Any) -> NodeView:
    return NodeView(node_id, type, project, T0, T0, None, False, props)


NODES = [
    node("run:vision-1", "Run", "vision", name="resnet-a"),
    node("model:vision/resnet@1", "ModelVersion", "vision", name="resnet"),
    node("run:nlp-1", "Run", "nlp", name="resnet-port"),
    node("dataset:nlp/web", "Dataset", "nlp", name="web"),
    node("project:ops", "Project", "ops"),  # a project with access grants and nothing else yet
    node("principal:user:ann", "Principal", "provgraph-system", name="resnet-fan"),
]


def execute(query: str, scope: Scope | None = None) -> Any:
    settings = QuerySettings()
    reader = FakeReader(NODES, [])
    context = make_context(settings, fake_readers(reader), FakeRecipes(), scope)  # type: ignore[arg-type]
    result = asyncio.run(make_schema(settings).execute(query, context_value=context))
    assert result.errors is None, result.errors
    return result.data


def test_a_caller_who_reads_everything_sees_every_project_but_the_system_one() -> None:
    assert execute("{ projects }") == {"projects": ["nlp", "ops", "vision"]}


def test_a_reader_sees_only_the_projects_it_may_read() -> None:
    assert execute("{ projects }", Scope(frozenset({"vision", "ops"}))) == {
        "projects": ["ops", "vision"]
    }
    # A grant on a project with no node yet lists nothing to pick.
    assert execute("{ projects }", Scope(frozenset({"empty"}))) == {"projects": []}


def ids(data: Any) -> list[str]:
    return [n["id"] for n in data["search"]]


def test_search_keeps_to_the_project_given() -> None:
    assert ids(execute('{ search(text: "resnet") { id } }')) == [
        "model:vision/resnet@1",
        "principal:user:ann",
        "run:nlp-1",
        "run:vision-1",
    ]
    assert ids(execute('{ search(text: "resnet", project: "vision") { id } }')) == [
        "model:vision/resnet@1",
        "run:vision-1",
    ]
    only_runs = '{ search(text: "resnet", project: "nlp", types: [RUN]) { id } }'
    assert ids(execute(only_runs)) == ["run:nlp-1"]


def test_the_project_filter_cannot_widen_the_scope() -> None:
    query = '{ search(text: "resnet", project: "nlp") { id } }'
    assert execute(query, Scope(frozenset({"vision"}))) == {"search": []}
