"""Lineage, impact, path and node-card answers stay byte for byte what they were.

The documents (`golden_documents.py`: the explorer's, the benchmark's, and every field of every
node type through a traversal) run in-process against the demo story projected into real Neo4j;
each answer, errors included (sorted), serialised with its keys in answer order, must equal the one
recorded in `fixtures/lineage_answers.json`. Stored properties come back in key order
(`storage.public`), whatever order the database's property-key tokens were made in: a fresh
database and one other tests wrote first give the same bytes. The fixture was recorded
before the traversal answers took their faster path; record it again
(`PROVGRAPH_RECORD_ANSWERS=1`) only when a change of shape is meant, and say so.

The story lives under one fixed project (ids, and so the answers' order, depend on it), removed
before and after the test.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from golden_documents import NODE_QUERY, cases
from neo4j import Driver

from provgraph.cli.demo_story import demo_events
from provgraph.ingest.projection import project_event
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.query.graphql.schema import make_context, make_schema
from provgraph.query.read.model import Scope
from provgraph.query.read.readers import neo4j_readers
from provgraph.query.settings import QuerySettings

FIXTURE = Path(__file__).parent / "fixtures" / "lineage_answers.json"
PROJECT = "golden-lineage-answers"
RECORD = os.environ.get("PROVGRAPH_RECORD_ANSWERS") == "1"


def _drop(driver: Driver) -> None:
    driver.execute_query("MATCH (n {project: $p}) DETACH DELETE n", p=PROJECT)


@pytest.fixture()
def story(neo4j_driver: Driver) -> Iterator[list[str]]:
    """The demo story (with its sweep) under PROJECT; yields every node id, in order."""
    _drop(neo4j_driver)
    GraphWriter(neo4j_driver).write([project_event(e) for e in demo_events(PROJECT)])
    found = neo4j_driver.execute_query(
        "MATCH (n:Entity {project: $p}) RETURN n.id AS id ORDER BY id", p=PROJECT
    )
    yield [str(r["id"]) for r in found.records]
    _drop(neo4j_driver)


def _answers(driver: Driver, ids: list[str]) -> dict[str, Any]:
    settings = QuerySettings()
    readers = neo4j_readers(driver, settings=settings)
    schema = make_schema(settings)

    def run(query: str, variables: dict[str, Any], projects: list[str] | None) -> Any:
        scope = Scope(frozenset(projects)) if projects is not None else None
        context = make_context(settings, readers, scope=scope)
        result = asyncio.run(
            schema.execute(query, variable_values=variables, context_value=context)
        )
        # Errors in a stable order: sibling fields fail in the order their reads finish.
        errors = sorted((error.formatted for error in result.errors or []), key=json.dumps)
        return {"data": result.data, "errors": errors}

    answers = {name: run(q, v, projects) for name, q, v, projects in cases(PROJECT)}
    for node_id in ids:
        answers[f"node {node_id}"] = run(NODE_QUERY, {"id": node_id}, None)
    return answers


def test_answers_are_the_recorded_ones(neo4j_driver: Driver, story: list[str]) -> None:
    answers = _answers(neo4j_driver, story)
    if RECORD:
        FIXTURE.parent.mkdir(exist_ok=True)
        FIXTURE.write_text(json.dumps(answers, indent=1) + "\n")
    recorded = json.loads(FIXTURE.read_text())
    assert len(story) > 40  # the whole story, sweep included, was projected
    assert list(answers) == list(recorded)
    lineage_nodes = answers["lineage up"]["data"]["lineage"]["nodes"]
    assert len(lineage_nodes) > 10 and answers["lineage missing"]["errors"]
    changed = [name for name in answers if json.dumps(answers[name]) != json.dumps(recorded[name])]
    assert changed == []
