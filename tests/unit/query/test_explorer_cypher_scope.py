"""The reads behind `projects`, `search(project:)` and `ModelVersion.feedback` apply the caller's
scope to every node and event they return (checked on the Cypher text)."""

from __future__ import annotations

from provgraph.query.read import graph_cypher
from provgraph.query.read.feedback_reads import MODEL_FEEDBACK
from provgraph.query.read.fragments import visible


def test_projects_reads_only_visible_nodes_and_not_token_holders() -> None:
    assert visible("n") in graph_cypher.PROJECTS
    assert "NOT n:Principal" in graph_cypher.PROJECTS


def test_search_narrows_to_the_project_inside_the_scope() -> None:
    assert visible("n") in graph_cypher.SEARCH
    assert "($project IS NULL OR n.project = $project)" in graph_cypher.SEARCH


def test_feedback_applies_the_scope_to_the_version_the_events_and_the_deployment() -> None:
    text = MODEL_FEEDBACK
    assert visible("v") in text and visible("d") in text
    assert "($all OR e.project IN $projects)" in text
    assert "($as_of IS NULL OR e.occurred_at <= $as_of)" in text
