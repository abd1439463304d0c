"""`digest` and `checkpointAdvice` through the GraphQL schema over the in-memory `DigestReads`,
on the graphs the stories of test_team_digest and test_team_checkpoint_advice fold into, told
as events (resources as JSON text, status times as keyed properties, the stamped principal as
the Principal's node id: ingest stamped alice's token)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import Any

from fakes import FakeDigestReads, fake_readers
from support.contract_graphs_team import EventLog, Who, instant
from test_team_checkpoint_advice import RUN_A, RUN_B
from test_team_digest import ITEMS, RUNS

from provgraph.query.graphql.schema import make_context, make_schema
from provgraph.query.read.model import Scope
from provgraph.query.settings import QuerySettings
from provgraph.schemas.ids import checkpoint_id


def _who(event: Mapping[str, Any]) -> Who:
    return (event.get("actor") or "user:test", event.get("principal"))


def _tell_run(log: EventLog, run: Mapping[str, Any]) -> None:
    """A run of test_team_digest's story: its start, its end, a metric logged last."""
    key, (started, *ended) = run["id"][4:], run["lifecycle"]
    extra = {"resources": run["resources"]} if run.get("resources") else {}
    log.add("p", _who(started), instant(started["at"]), "run.started", run_id=key,
            name=run["name"], experiment=run["experiment"]["id"], **extra)  # fmt: skip
    for end in ended:
        error = {"type": run.get("error_type"), "message": run.get("error_message")}
        payload = {"error": error} if end["type"] == "run.failed" else {}
        log.add("p", _who(end), instant(end["at"]), end["type"], run_id=key,
                conclusion=run.get("conclusion"), **payload)  # fmt: skip
    if run["last_event_at"] > run["lifecycle"][-1]["at"]:
        log.add("p", _who(started), instant(run["last_event_at"]), "run.metrics.logged", run_id=key,
                points=[{"name": "loss", "step": 1, "value": 1.0}])  # fmt: skip


def _tell_item(log: EventLog, item: Mapping[str, Any]) -> None:
    """An item of test_team_digest's story (a model version registered first)."""
    node, who, kind = item["node"], _who(item), item["event_type"]
    if kind == "dataset.version.created":
        log.add("p", who, instant(item["at"]), kind, name=node["name"], version=node["version"],
                storage_uri="s3://data/web/v2/")  # fmt: skip
    elif kind == "model.version.status.changed":
        registered = instant(item["status_at"]["candidate"])
        log.add("p", who, registered, "model.version.registered", name=node["name"],
                version=node["version"], produced_by_run="run:m-train")  # fmt: skip
        log.add("p", who, instant(item["at"]), kind, model_version=node["id"],
                from_status="candidate", to_status=node["status"])  # fmt: skip
    else:
        log.add("p", who, instant(item["at"]), kind, name=node["name"],
                model_version=node["feedback_model_version"])  # fmt: skip


def _tell_advised(log: EventLog, run: Mapping[str, Any]) -> None:
    """A run of test_team_checkpoint_advice's story, in experiment p/x; a resume starts from
    the checkpoint saved last before it."""
    key, who, saved = run["id"][4:], _who({}), run["checkpoints"]
    for c in saved:
        extra = {} if c["save_seconds"] is None else {"save_seconds": c["save_seconds"]}
        log.add("p", who, instant(c["saved_at"]), "checkpoint.saved", run_id=key, step=c["step"],
                uri=f"s3://ckpt/{key}/{c['step']}/", **extra)  # fmt: skip
    for event in run["lifecycle"]:
        at, kind = event["at"], event["type"]
        last = max((c for c in saved if c["saved_at"] < at), key=lambda c: c["saved_at"],
                   default=None)  # fmt: skip
        payload = {
            "run.started": {"experiment": "experiment:p/x", "resources": run["resources"]},
            "run.failed": {"error": {"type": "OOM", "message": "cuda"}},
            "run.aborted": {"reason": "preempted"},
            "run.resumed": {"interruption_cause": "OOM", "steps_lost": 0,
                            "from_checkpoint": checkpoint_id(key, last["step"]) if last else None},
        }.get(kind, {})  # fmt: skip
        log.add("p", who, instant(at), kind, run_id=key, **payload)


def _digest_reads() -> FakeDigestReads:
    """The graph of test_team_digest's story (its runs and items), as its events fold."""
    log = EventLog()
    for run in RUNS:
        _tell_run(log, run)
    for item in ITEMS:
        _tell_item(log, item)
    return FakeDigestReads(log.memory())


def _advice_reads() -> FakeDigestReads:
    """The graph of test_team_checkpoint_advice's runs a and b of experiment p/x."""
    log = EventLog()
    for run in (RUN_A, RUN_B):
        _tell_advised(log, run)
    return FakeDigestReads(log.memory())


def _run(query: str, reads: FakeDigestReads) -> Any:
    settings = QuerySettings()
    context = make_context(settings, fake_readers(digest=reads))
    return asyncio.run(make_schema(settings).execute(query, context_value=context))


def test_digest_field_over_records() -> None:
    reads = _digest_reads()
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
    reads = _advice_reads()
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
        errors = _run(query, _advice_reads()).errors
        assert errors and errors[0].extensions["code"] == code, (query, errors)
