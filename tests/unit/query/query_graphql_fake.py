"""The story the GraphQL unit tests read, over the in-memory ReadModel (no database involved)."""

from __future__ import annotations

import asyncio
from typing import Any

from fake_reader import FakeReader
from fakes import fake_readers

from provgraph.query.errors import missing_sides
from provgraph.query.graphql.schema import make_context, make_schema
from provgraph.query.read.model import EdgeView, HistoryEntry, NodeView, Scope
from provgraph.query.settings import QuerySettings

T0 = "2026-01-05T09:00:00.000000Z"


def view(node_id: str, type: str, seen: str = T0, **props: Any) -> NodeView:
    return NodeView(node_id, type, "p", seen, seen, None, False, props)


ABSENT = "run:none"  # the id the fake recipes know nothing about


class FakeRecipes:
    def diff(self, a: str, b: str, scope: Scope) -> dict[str, Any]:
        sides = {name: (given, given != ABSENT or None) for name, given in (("a", a), ("b", b))}
        if ABSENT in (a, b):
            raise missing_sides(sides)
        return {"a": a, "b": b, "params": {"changed": {"lr": [0.1, 0.2]}}}

    def reproduce(self, node_id: str, scope: Scope) -> dict[str, Any] | None:
        return {"target": node_id} if node_id.startswith("model:") else None


def story() -> FakeReader:
    """Two runs of one experiment on two dataset versions; a model version, served."""
    nodes = [
        view("dataset:p/web", "Dataset", name="web"),
        view(
            "dataset:p/web@v1",
            "DatasetVersion",
            name="web",
            version="v1",
            storage_uri="s3://web/v1",
            checksum="sha256:aa",
            record_count=10,
        ),
        view(
            "dataset:p/web@v2",
            "DatasetVersion",
            "2026-01-06T00:00:00.000000Z",
            name="web",
            version="v2",
            cleaning_rules_json='[{"kind":"dedup"}]',
            split_json='{"train":1}',
        ),
        view("experiment:p/e1", "Experiment", number=1, key="e1"),
        view(
            "environment:p/img",
            "Environment",
            image_name="trainer",
            image_tag="1",
            packages_json='{"torch":"2.5"}',
        ),
        view(
            "run:r1",
            "Run",
            name="a",
            run_number=1,
            status="completed",
            params_json='{"lr":0.1}',
            final_metrics_json='{"loss":1.5}',
            code_repo="git",
            code_commit="abc",
            code_dirty=False,
        ),
        view(
            "run:r2",
            "Run",
            name="b",
            run_number=2,
            run_number_claimed=1,
            status="failed",
            error_type="OOM",
            error_message="out of memory",
        ),
        view(
            "checkpoint:r1/100", "Checkpoint", step=100, size_bytes=5_000_000_000, uri="s3://ck/100"
        ),
        view(
            "model:p/m@1",
            "ModelVersion",
            name="m",
            version="1",
            status="approved",
            fit_for=["chat"],
        ),
        view("model:p/m", "Model", name="m"),
        view("deployment:p/api", "Deployment", name="api", status="active"),
    ]
    e = EdgeView
    edges = [
        e("dataset:p/web@v1", "dataset:p/web", "VERSION_OF"),
        e("dataset:p/web@v2", "dataset:p/web", "VERSION_OF"),
        e("dataset:p/web@v2", "dataset:p/web@v1", "DERIVED_FROM", {"transform": "dedup"}),
        e("run:r1", "dataset:p/web@v1", "USED", {"role": "train"}),
        e("run:r2", "dataset:p/web@v2", "USED", {"role": "train"}),
        e("run:r1", "experiment:p/e1", "PART_OF"),
        e("run:r2", "experiment:p/e1", "PART_OF"),
        e("run:r1", "environment:p/img", "RAN_IN"),
        e("checkpoint:r1/100", "run:r1", "GENERATED_BY"),
        e("run:r2", "checkpoint:r1/100", "RESUMED_FROM"),
        e("model:p/m@1", "run:r1", "GENERATED_BY"),
        e("model:p/m@1", "checkpoint:r1/100", "EXPORTED_FROM"),
        e("model:p/m@1", "model:p/m", "VERSION_OF"),
        e("deployment:p/api", "model:p/m@1", "SERVES", {"traffic_share": 1.0}),
    ]
    started = HistoryEntry("e1", "run.started", T0, "tests", "user:a", "run:r1", "p")
    return FakeReader(nodes, edges, {"run:r1": [started]})


def run_query(
    query: str,
    reader: FakeReader | None = None,
    settings: QuerySettings | None = None,
    variables: dict[str, Any] | None = None,
) -> Any:
    """Execute `query` against a fresh schema and context (as one HTTP request would)."""
    settings = settings or QuerySettings()
    context = make_context(settings, fake_readers(reader or story()), FakeRecipes())
    schema = make_schema(settings)
    return asyncio.run(schema.execute(query, variable_values=variables, context_value=context))
