"""`digest` and `checkpointAdvice` through the GraphQL schema over the in-memory `DigestReads`,
holding records read from records shaped as Neo4j answers them (resources as JSON text, status
times as pairs, the stamped principal as the Principal's node id; `digest_reads.digest_run`
and `digest_item`)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from fakes import FakeDigestReads, fake_readers
from test_team_checkpoint_advice import RUN_A, RUN_B
from test_team_digest import ITEMS, RUNS

from provgraph.query.graphql.schema import make_context, make_schema
from provgraph.query.read.digest_reads import digest_item, digest_run
from provgraph.query.read.model import Scope
from provgraph.query.settings import QuerySettings
from provgraph.schemas.ids import principal_id


def _stamped(event: dict[str, Any]) -> dict[str, Any]:
    """An event as stored: the principal ingest stamped is the Principal's node id."""
    principal = event.get("principal")
    return {**event, "principal": principal_id(principal) if principal else None}


def _stored(run: dict[str, Any]) -> dict[str, Any]:
    resources = run.get("resources")
    lifecycle = [_stamped(e) for e in run["lifecycle"]]
    return {
        **run,
        "resources": json.dumps(resources) if resources else None,
        "lifecycle": lifecycle,
    }


def _reads() -> FakeDigestReads:
    """The story's runs and items, and the runs of experiment p/x, as the reader reads them."""
    items = [{**_stamped(i), "status_at": sorted(i["status_at"].items())} for i in ITEMS]
    advised = [digest_run(_stored(RUN_A)), digest_run(_stored(RUN_B))]
    return FakeDigestReads(
        runs=[digest_run(_stored(r)) for r in RUNS],
        items=[digest_item(i) for i in items],
        advice={"experiment:p/x": advised},
    )


def _run(query: str, reads: FakeDigestReads) -> Any:
    settings = QuerySettings()
    context = make_context(settings, fake_readers(digest=reads))
    return asyncio.run(make_schema(settings).execute(query, context_value=context))


def test_digest_field_over_records() -> None:
    reads = _reads()
    result = _run(
        """{ digest(projects: ["p"], since: "7d", until: "2026-03-08T12:00:00Z") {
               since stalled { run { id } idleSeconds } conclusionMissing { id }
               statusChanges { toStatus } acceleratorHoursByPerson { key acceleratorHours }
               people { person basis started { person personBasis } }
               datasetVersions { person personBasis } runsWithoutResources markdown } }""",
        reads,
    )
    assert result.errors is None, result.errors
    d = result.data["digest"]
    assert d["since"] == "2026-03-01T12:00:00.000000Z"
    assert d["stalled"] == [{"run": {"id": "run:r4"}, "idleSeconds": 14400.0}]
    assert d["conclusionMissing"] == [{"id": "run:r2"}, {"id": "run:r6"}]
    assert d["statusChanges"] == [{"toStatus": "approved"}]
    assert d["acceleratorHoursByPerson"] == [
        {"key": "user:alice", "acceleratorHours": 224.0},
        {"key": "user:bob", "acceleratorHours": 10.0},
    ]
    # Stored as `principal:user:alice`, shown as issued: the same form as the actor bob claims.
    assert [(p["person"], p["basis"]) for p in d["people"]] == [
        ("user:alice", "principal"), ("user:bob", "actor"),
    ]  # fmt: skip
    assert d["people"][0]["started"][0] == {"person": "user:alice", "personBasis": "principal"}
    assert d["datasetVersions"] == [{"person": "user:alice", "personBasis": "principal"}]
    assert "principal:" not in json.dumps(d)
    assert d["runsWithoutResources"] == 2 and d["markdown"].startswith("## Digest of p")
    [asked] = reads.asked
    assert (asked["projects"], asked["until"]) == (["p"], "2026-03-08T12:00:00.000000Z")
    assert asked["scope"] == Scope.everything()


def test_checkpoint_advice_field_and_its_errors() -> None:
    reads = _reads()
    result = _run(
        """{ checkpointAdvice(id: "experiment:p/x", maxRework: "30m") {
               kind saveCostSeconds mtbfSeconds advisedSeconds
               lostCurrent { acceleratorHours interruptionsWithoutResources } notes } }""",
        reads,
    )
    assert result.errors is None, result.errors
    advice = result.data["checkpointAdvice"]
    assert (advice["kind"], advice["saveCostSeconds"], advice["mtbfSeconds"]) == (
        "experiment", 90.0, 5400.0,
    )  # fmt: skip
    assert advice["lostCurrent"] == {"acceleratorHours": 8.0, "interruptionsWithoutResources": 1}
    assert reads.asked[0]["target"] == "experiment:p/x"

    for query, code in (
        ('{ checkpointAdvice(id: "run:absent") { kind } }', "not_found"),
        ('{ checkpointAdvice(id: "dataset:p/web") { kind } }', "invalid_argument"),
        ('{ checkpointAdvice(id: "run:x", project: "p") { kind } }', "invalid_argument"),
        ('{ checkpointAdvice(project: "p", maxRework: "soon") { kind } }', "invalid_argument"),
        ('{ digest(projects: ["p"], since: "a week") { since } }', "invalid_argument"),
    ):
        errors = _run(query, _reads()).errors
        assert errors and errors[0].extensions["code"] == code, (query, errors)
