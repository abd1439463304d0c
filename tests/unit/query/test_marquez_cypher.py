"""The Marquez reads' Cypher: every query applies the caller's scope to what it matches."""

from __future__ import annotations

import re

import pytest

from provgraph.query.read import marquez_cypher as cypher
from provgraph.schemas.graph import Label

QUERIES = {
    "node": cypher.marquez_node(Label.DATASET),
    "namespaces": cypher.MARQUEZ_NAMESPACES,
    "datasets": cypher.MARQUEZ_DATASETS,
    "dataset": cypher.MARQUEZ_DATASET,
    "versions": cypher.MARQUEZ_DATASET_VERSIONS,
    "version": cypher.MARQUEZ_DATASET_VERSION,
    "jobs": cypher.MARQUEZ_JOBS,
    "job": cypher.MARQUEZ_JOB,
    "runs": cypher.MARQUEZ_JOB_RUNS,
    "run": cypher.MARQUEZ_RUN,
    "search": cypher.MARQUEZ_SEARCH,
}


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_every_match_is_scoped(name: str) -> None:
    query = QUERIES[name]
    matches = len(re.findall(r"\bMATCH\b", query))
    scoped = query.count("($all OR")
    assert matches >= 1 and scoped >= matches, query
    assert "TOUCHED" not in query and "AppliedEvent" not in query


@pytest.mark.parametrize("name", ["datasets", "versions", "jobs", "runs"])
def test_lists_are_offset_pages_with_a_total(name: str) -> None:
    query = QUERIES[name]
    assert "SKIP $offset LIMIT $limit" in query and "COUNT {" in query


def test_subquery_variables_never_shadow_the_outer_ones() -> None:
    # Each nested run detail names its variables with its own tag (x_, l_, g_, c_).
    for query in QUERIES.values():
        for var in re.findall(r"\((\w+):Run:Entity", query):
            assert var in {"r", "l_r", "g_r"}, var
