"""The digest and the checkpoint advice against real Neo4j, through GraphQL and the CLI's
`--json`, on a seeded story whose answers are worked out by hand below.

The story (project p, March 2026, the window 03-01 12:00 to 03-08 12:00 UTC):
- alice (claims actor `alice`, ingest stamped `principal:user:alice`: shown `user:alice`, the
  name her token was issued under): run a of exp-a on 2 nodes x 8 devices starts 03-02 00:00,
  saves at 00:30 (60 s), 01:00 (90 s), 01:30 (120 s), fails (OOM) at 01:50, resumes at 02:00,
  saves at 02:30 (60 s), is aborted at 02:40.
- bob (actor only): run b of exp-a starts 03:00, saves at 03:20 (unmeasured), is resumed at
  04:00 with no end recorded, saves at 04:30 (90 s), completes at 05:00 with the SDK's
  placeholder conclusion; run c of exp-a starts 03-03 09:00 and fails (OOM) at 09:30 with the
  SDK's generated conclusion.
- alice's run d of exp-b (1 x 8 devices) starts 03-07 08:00, last logs at 03-08 08:00: stalled
  by 12:00. bob's run e of exp-b starts 03-08 11:00, logs at 11:50: running, not stalled.
- a dataset version (alice), a model version and its approval (bob), a deployment (alice) and
  feedback (bob).
"""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from typing import Any

import pytest
from neo4j import Driver
from support.stories import graphql_executor
from support.stories import provgraph_cli as _cli

from provgraph.ingest.projection import LogStamp, project_event
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.schemas import REGISTRY, Event
from provgraph.schemas.ids import principal_id

UNTIL = "2026-03-08T12:00:00Z"
ALICE = ("alice", principal_id("user:alice"))  # (the actor claimed, the stamp ingest wrote)
BOB = ("user:bob", None)
PLACEHOLDER = "Run completed; no conclusion was recorded (set run.conclusion)."


def at(day: int, hhmm: str) -> datetime:
    hour, minute = hhmm.split(":")
    return datetime(2026, 3, day, int(hour), int(minute), tzinfo=UTC)


def stored(day: int, hhmm: str) -> str:
    return at(day, hhmm).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class Story:
    """Events of one project, written with the principal ingest would have stamped (the
    Principal's node id, as `ingest.http.events` stamps it)."""

    def __init__(self, project: str) -> None:
        self.p = project
        self.records: list[Any] = []

    def add(self, who: tuple[str, str | None], when: datetime, kind: str, **payload: Any) -> None:
        model = REGISTRY.resolve(kind, REGISTRY.current_version(kind))
        payload_type = model.model_fields["payload"].annotation
        assert payload_type is not None
        event = model.create(
            project=self.p,
            producer="https://provgraph.dev/tests",
            actor=who[0],
            payload=payload_type.model_validate(payload),
            occurred_at=when,
        )
        assert isinstance(event, Event)
        self.records.append(project_event(event, LogStamp(principal=who[1])))

    def run(self, who: Any, when: datetime, key: str, exp: str, number: int, **extra: Any) -> None:
        self.add(who, when, "run.started", run_id=f"{self.p}-{key}", run_number=number,
                 name=key, experiment=f"experiment:{self.p}/{exp}", **extra)  # fmt: skip

    def ckpt(self, who: Any, when: datetime, key: str, step: int, save: float | None) -> None:
        extra = {} if save is None else {"save_seconds": save}
        uri = f"s3://ckpt/{self.p}/{key}/{step}/"
        self.add(who, when, "checkpoint.saved", run_id=f"{self.p}-{key}", step=step, uri=uri,
                 **extra)  # fmt: skip

    def end(self, who: Any, when: datetime, key: str, kind: str, **payload: Any) -> None:
        self.add(who, when, f"run.{kind}", run_id=f"{self.p}-{key}", **payload)


def seed(driver: Driver, p: str) -> None:
    s = Story(p)
    oom = {"type": "OOM", "message": "cuda out of memory"}
    for key in ("exp-a", "exp-b"):
        s.add(ALICE, at(1, "00:00"), "experiment.created", key=key, goal="lower loss")
    s.run(ALICE, at(2, "00:00"), "a", "exp-a", 1, resources={"num_nodes": 2, "devices_per_node": 8})
    for step, hhmm, save in ((1000, "00:30", 60), (2000, "01:00", 90), (3000, "01:30", 120)):
        s.ckpt(ALICE, at(2, hhmm), "a", step, save)
    s.end(ALICE, at(2, "01:50"), "a", "failed", error=oom, conclusion="batch 64 does not fit")
    s.end(ALICE, at(2, "02:00"), "a", "resumed", from_checkpoint=f"checkpoint:{p}-a/3000",
          interruption_cause="OOM", steps_lost=400)  # fmt: skip
    s.ckpt(ALICE, at(2, "02:30"), "a", 4000, 60)
    s.end(ALICE, at(2, "02:40"), "a", "aborted", reason="preempted")

    s.run(BOB, at(2, "03:00"), "b", "exp-a", 2)
    s.ckpt(BOB, at(2, "03:20"), "b", 100, None)
    s.end(BOB, at(2, "04:00"), "b", "resumed", from_checkpoint=f"checkpoint:{p}-b/100",
          interruption_cause="node lost", steps_lost=50)  # fmt: skip
    s.ckpt(BOB, at(2, "04:30"), "b", 200, 90)
    s.end(BOB, at(2, "05:00"), "b", "completed", conclusion=PLACEHOLDER)
    s.run(BOB, at(3, "09:00"), "c", "exp-a", 3)
    s.end(BOB, at(3, "09:30"), "c", "failed", error=oom,
          conclusion="Run failed: OOM: cuda out of memory")  # fmt: skip

    s.run(ALICE, at(7, "08:00"), "d", "exp-b", 1, resources={"devices_per_node": 8})
    s.add(ALICE, at(8, "08:00"), "run.metrics.logged", run_id=f"{p}-d",
          points=[{"name": "loss", "step": 10, "value": 2.5}])  # fmt: skip
    s.run(BOB, at(8, "11:00"), "e", "exp-b", 2)
    s.add(BOB, at(8, "11:50"), "run.metrics.logged", run_id=f"{p}-e",
          points=[{"name": "loss", "step": 1, "value": 3.0}])  # fmt: skip

    s.add(ALICE, at(2, "08:00"), "dataset.version.created", name="web", version="v2",
          storage_uri="s3://data/web/v2/")  # fmt: skip
    s.add(BOB, at(4, "10:00"), "model.version.registered", name="m", version="1",
          produced_by_run=f"run:{p}-b")  # fmt: skip
    s.add(BOB, at(5, "10:00"), "model.version.status.changed", model_version=f"model:{p}/m@1",
          from_status="candidate", to_status="approved")  # fmt: skip
    s.add(ALICE, at(6, "09:00"), "deployment.created", name="api", endpoint="https://api.test/m",
          environment="prod", serves=[{"model_version": f"model:{p}/m@1"}])  # fmt: skip
    s.add(BOB, at(6, "10:00"), "deployment.feedback.recorded", name="api",
          model_version=f"model:{p}/m@1", metrics={"thumbs_up": 0.8})  # fmt: skip
    GraphWriter(driver).write(s.records)


@pytest.fixture()
def story(neo4j_driver: Driver, project: str) -> str:
    seed(neo4j_driver, project)
    return project


# ---- expected, from the story --------------------------------------------------------------

# exp-a: segments a 110 min + 40 min, b 60 + 60 min, c 30 min = 18000 s; interruptions: a's
# failure and abort, b's resume without an end, c's failure = 4; MTBF 4500 s; C = median(60,
# 90, 120, 60, 90) = 90 s; Young/Daly √(2·90·4500) = 900 s; rule 1800 - 90 = 1710 s.
# Lost as recorded: a 20 min and 10 min on 16 devices (8.0 accelerator-hours), b 40 min and c
# 30 min without devices: 100 min. With 900 s: a 6600 mod 900 = 300 s and 2400 mod 900 = 600 s
# (16 devices: 4.0), b 3600 mod 900 = 0, c 1800 mod 900 = 0: 900 s = 0.25 h.
EXP_A_ADVICE = {
    "save_cost_s": 90.0,
    "mtbf_s": 4500.0,
    "young_daly_s": 900.0,
    "rule_of_thumb_s": 1710.0,
    "advised_s": 900.0,
}


def _check_advice(answer: dict[str, Any], p: str) -> None:
    for key, value in EXP_A_ADVICE.items():
        assert answer[key] == pytest.approx(value), key
    assert answer["running_hours"] == pytest.approx(5.0)
    assert answer["current"] == {"seconds": 1800.0, "steps": 1000.0, "intervals_measured": 2}
    causes = [(i["run"], i["cause"], i["lost_s"]) for i in answer["interruptions"]]
    assert causes == [
        (f"run:{p}-a", "failed", 1200.0),
        (f"run:{p}-a", "aborted", 600.0),
        (f"run:{p}-b", "resumed without a recorded end", 2400.0),
        (f"run:{p}-c", "failed", 1800.0),
    ]
    current, advised = answer["lost"]["current"], answer["lost"]["advised"]
    assert (current["hours"], current["accelerator_hours"]) == pytest.approx((100 / 60, 8.0))
    assert current["interruptions_without_resources"] == 2
    assert (advised["hours"], advised["accelerator_hours"]) == pytest.approx((0.25, 4.0))
    assert answer["notes"] == []


# ---- GraphQL --------------------------------------------------------------------------------


@pytest.fixture()
def gql(neo4j_driver: Driver, story: str) -> Any:
    return graphql_executor(neo4j_driver)


def test_digest_through_graphql(gql: Any, story: str) -> None:
    p = story
    result = gql(
        f"""{{ digest(projects: ["{p}"], since: "7d", until: "{UNTIL}") {{
              since until
              people {{ person basis started {{ id }} finished {{ id }}
                        failed {{ id error {{ type }} }} aborted {{ id }} running {{ id }} }}
              stalled {{ run {{ id person }} idleSeconds }}
              repeatedFailures {{ experiment failures errors runs {{ id }} }}
              conclusionMissing {{ id }}
              datasetVersions {{ id person personBasis }}
              modelVersions {{ id person }}
              statusChanges {{ id toStatus person }}
              deployments {{ id person }}
              feedback {{ id modelVersion person }}
              acceleratorHoursByPerson {{ key acceleratorHours }}
              acceleratorHoursByProject {{ key acceleratorHours }}
              runsWithoutResources truncated markdown }} }}"""
    )
    assert result.errors is None, result.errors
    d = result.data["digest"]
    assert (d["since"], d["until"]) == (stored(1, "12:00"), stored(8, "12:00"))
    alice, bob = d["people"]

    def run(key: str) -> dict[str, str]:
        return {"id": f"run:{p}-{key}"}

    assert alice == {
        "person": "user:alice", "basis": "principal",
        "started": [run("a"), run("d")], "finished": [],
        "failed": [{**run("a"), "error": {"type": "OOM"}}], "aborted": [run("a")],
        "running": [run("d")],
    }  # fmt: skip
    assert bob == {
        "person": "user:bob", "basis": "actor",
        "started": [run("b"), run("c"), run("e")], "finished": [run("b")],
        "failed": [{**run("c"), "error": {"type": "OOM"}}], "aborted": [],
        "running": [run("e")],
    }  # fmt: skip
    assert d["stalled"] == [{"run": {"id": f"run:{p}-d", "person": "user:alice"},
                             "idleSeconds": 4 * 3600.0}]  # fmt: skip
    assert d["repeatedFailures"] == [
        {"experiment": f"experiment:{p}/exp-a", "failures": 2, "errors": ["OOM"],
         "runs": [run("a"), run("c")]}
    ]  # fmt: skip
    assert d["conclusionMissing"] == [run("b"), run("c")]
    assert d["datasetVersions"] == [
        {"id": f"dataset:{p}/web@v2", "person": "user:alice", "personBasis": "principal"}
    ]
    assert d["modelVersions"] == [{"id": f"model:{p}/m@1", "person": "user:bob"}]
    assert d["statusChanges"] == [
        {"id": f"model:{p}/m@1", "toStatus": "approved", "person": "user:bob"}
    ]
    assert d["deployments"] == [{"id": f"deployment:{p}/api", "person": "user:alice"}]
    assert d["feedback"] == [
        {"id": f"deployment:{p}/api", "modelVersion": f"model:{p}/m@1", "person": "user:bob"}
    ]
    # a: 00:00 to 02:40 on 16 devices = 42.667; d: 24 h to its last event on 8 = 192.
    [by_person] = d["acceleratorHoursByPerson"]
    assert by_person["key"] == "user:alice"
    assert by_person["acceleratorHours"] == pytest.approx(160 / 60 * 16 + 192)
    assert d["acceleratorHoursByProject"][0]["acceleratorHours"] == pytest.approx(234.6667, 1e-4)
    assert (d["runsWithoutResources"], d["truncated"]) == (3, False)
    assert f"- experiment:{p}/exp-a: 2 failures (OOM)" in d["markdown"]
    assert "principal:" not in json.dumps(d)  # one form of a person's name, everywhere


def test_history_shows_the_principal_as_issued(gql: Any, story: str) -> None:
    result = gql(f'{{ history(id: "run:{story}-a") {{ items {{ eventType actor principal }} }} }}')
    assert result.errors is None, result.errors
    items = result.data["history"]["items"]
    assert items and {(i["actor"], i["principal"]) for i in items} == {("alice", "user:alice")}


def test_checkpoint_advice_through_graphql(gql: Any, story: str) -> None:
    p = story
    result = gql(
        f"""{{ exp: checkpointAdvice(id: "experiment:{p}/exp-a", maxRework: "30m") {{
                 kind saveCostSeconds mtbfSeconds youngDalySeconds ruleOfThumbSeconds
                 advisedSeconds currentIntervalSeconds currentIntervalSteps
                 interruptions {{ run cause lostSeconds devices }}
                 lostCurrent {{ hours acceleratorHours }} lostAdvised {{ acceleratorHours }}
                 notes }}
               one: checkpointAdvice(id: "run:{p}-a") {{
                 saveCostSeconds mtbfSeconds youngDalySeconds ruleOfThumbSeconds notes }}
               all: checkpointAdvice(project: "{p}") {{ kind runs }} }}"""
    )
    assert result.errors is None, result.errors
    exp = result.data["exp"]
    assert exp["kind"] == "experiment"
    assert (exp["youngDalySeconds"], exp["advisedSeconds"]) == pytest.approx((900.0, 900.0))
    assert (exp["mtbfSeconds"], exp["currentIntervalSeconds"]) == pytest.approx((4500.0, 1800.0))
    assert [i["devices"] for i in exp["interruptions"]] == [16, 16, None, None]
    assert exp["lostAdvised"]["acceleratorHours"] == pytest.approx(4.0)
    # Run a alone: two interruptions, fewer than three; C = median(60, 90, 120, 60) = 75 s.
    one = result.data["one"]
    assert one["saveCostSeconds"] == 75.0 and one["ruleOfThumbSeconds"] == 1725.0
    assert one["mtbfSeconds"] is None and one["youngDalySeconds"] is None
    assert one["notes"][0].startswith("too few interruptions to estimate MTBF: 2 recorded")
    assert sorted(result.data["all"]["runs"]) == [f"run:{p}-{k}" for k in "abcde"]

    missing = gql('{ checkpointAdvice(id: "run:nobody-here") { kind } }')
    assert missing.errors and missing.errors[0].extensions["code"] == "not_found"


# ---- the command line -----------------------------------------------------------------------


def test_digest_and_advice_through_the_cli(neo4j_endpoint: Any, story: str) -> None:
    p = story
    out = _cli(neo4j_endpoint, "digest", "--project", p, "--until", UNTIL, "--json")
    assert out.returncode == 0, out.stderr
    digest = json.loads(out.stdout)
    assert [s["id"] for s in digest["stalled"]] == [f"run:{p}-d"]
    assert [r["id"] for r in digest["conclusion_missing"]] == [f"run:{p}-b", f"run:{p}-c"]
    assert digest["repeated_failures"][0]["failures"] == 2

    md = _cli(neo4j_endpoint, "digest", "--project", p, "--until", UNTIL, "--markdown",
              "--stalled-after", "5h")  # fmt: skip
    assert md.returncode == 0, md.stderr
    assert md.stdout.startswith(f"## Digest of {p}, 2026-03-01 12:00 → 2026-03-08 12:00 UTC")
    assert "### Stalled (no event for 5 h)\n- none" in md.stdout  # 4 h idle < 5 h
    text = _cli(neo4j_endpoint, "digest", "--project", p, "--until", UNTIL)
    assert text.returncode == 0, text.stderr
    assert f"\n  user:alice started: a #1 (run:{p}-a) — OOM: " in text.stdout
    assert [p["person"] for p in digest["people"]] == ["user:alice", "user:bob"]
    assert "principal:" not in out.stdout + md.stdout + text.stdout

    advice = _cli(neo4j_endpoint, "advise-checkpoints", f"experiment:{p}/exp-a", "--json")
    assert advice.returncode == 0, advice.stderr
    _check_advice(json.loads(advice.stdout), p)
    assert math.isclose(json.loads(advice.stdout)["young_daly_s"], math.sqrt(2 * 90 * 4500))

    text = _cli(neo4j_endpoint, "advise-checkpoints", "--project", p, "--max-rework", "1h")
    assert text.returncode == 0 and "rule of thumb (rework ≤ 60.0 min)" in text.stdout
    assert _cli(neo4j_endpoint, "advise-checkpoints", f"run:{p}-zzz").returncode == 1
    bad = _cli(neo4j_endpoint, "digest", "--project", p, "--since", "a week")
    assert bad.returncode == 2 and "not a duration" in bad.stderr
