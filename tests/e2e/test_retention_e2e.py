"""`provgraph retention` on a story sent through the real ingest service, Kafka and the
projector; then `--emit --apply` with a token without the delete right (refused, nothing sent)
and with one (every deletable node deleted once projected, nothing else).

The story (project P, advice at NOW, keep 180d after retirement):
- live@1, approved, served by the active deployment `chat`: KEEP, with live-train/100 it was
  exported from and web@v1 its run used;
- mid@1, retired 10 days before NOW: KEEP, with mid-pre/50, the checkpoint its run resumed
  from (mid-pre used web@v1 too);
- old@1, retired 400 days before NOW, once served by `legacy` (retired): DELETABLE, with its
  checkpoints old-train/100 and /200, the dataset version its run used (old-clean@v1, no size
  recorded) and the one that was derived from (old@v1);
- run `sweep` saved SWEEP checkpoints of 1000 bytes each, no model came of them: DELETABLE
  (several times the page the reads use);
- typo@v1 was deleted already: listed as such, not emitted again.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from e2e_helpers import admin_token, await_applied, await_principal, bearer, start_apps
from neo4j import Driver
from support.stories import story_event

from provgraph.authz.admin import access_event, token_issued
from provgraph.authz.tokens import new_token
from provgraph.infra.apps import Apps
from provgraph.query.recipes.retention import PAGE
from provgraph.schemas import Event
from provgraph.schemas.events.governance import AccessRole
from provgraph.schemas.ids import checkpoint_id, dataset_version_id, model_version_id

NOW = datetime(2026, 6, 1, tzinfo=UTC)
LONG_AGO = NOW - timedelta(days=600)
SWEEP = 3 * PAGE + 200
OLD_BYTES = 1_000_000
SIZES = {"web": 4_000, "old": OLD_BYTES, "old-clean": None, "typo": 10}
CHECKPOINTS = {("live-train", 100): 7_000, ("mid-pre", 50): 9_000,
               ("old-train", 100): 2_000_000, ("old-train", 200): 3_000_000}  # fmt: skip


@dataclass
class Story:
    """The stack, the project, the CLI's environment and the ids of the story."""

    apps: Apps
    driver: Driver
    project: str
    env: dict[str, str]
    tokens: dict[str, str]
    principals: dict[str, str]

    def dv(self, name: str) -> str:
        return dataset_version_id(self.project, name, "v1")

    def ck(self, run: str, step: int) -> str:
        return checkpoint_id(f"{self.project}-{run}", step)

    def mv(self, name: str) -> str:
        return model_version_id(self.project, name, "1")

    def retention(
        self, *extra: str, token: str | None = None, actor: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        env = {**self.env, "PROVGRAPH_TOKEN": self.tokens[token]} if token else dict(self.env)
        if actor:
            env["PROVGRAPH_ACTOR"] = actor
        argv = ["retention", "--project", self.project, "--keep-after-retire", "180d",
                "--now", NOW.isoformat(), *extra]  # fmt: skip
        return subprocess.run([sys.executable, "-m", "provgraph.cli", *argv], env=env,
                              capture_output=True, text=True, timeout=300, check=False)  # fmt: skip

    def advice(self) -> dict[str, Any]:
        done = self.retention("--json")
        assert done.returncode == 0, done.stderr
        answer: dict[str, Any] = json.loads(done.stdout)
        return answer

    def deleted(self) -> set[str]:
        records, _, _ = self.driver.execute_query(
            "MATCH (n:Entity {project: $p}) WHERE n.deleted_at IS NOT NULL RETURN n.id AS id",
            p=self.project,
        )
        return {str(r["id"]) for r in records}


def story_events(p: str) -> list[Event]:
    out: list[Event] = []

    def add(days: float, kind: str, **payload: Any) -> None:
        out.append(story_event(p, kind, payload, LONG_AGO + timedelta(days=days)))

    def run(key: str, day: float, end: str = "run.completed", **started: Any) -> None:
        add(day, "run.started", run_id=f"{p}-{key}", **started)
        add(day + 1, end, run_id=f"{p}-{key}",
            **({"error": {"type": "Preempted", "message": "node lost"}}
               if end == "run.failed" else {}))  # fmt: skip

    for name, size in SIZES.items():
        extra: dict[str, Any] = {"size_bytes": size} if size is not None else {}
        if name == "old-clean":
            extra["derived_from"] = [{"dataset_version": dataset_version_id(p, "old", "v1"),
                                      "transform": "dedup"}]  # fmt: skip
        add(1, "dataset.version.created", name=name, version="v1", storage_uri=f"s3://{name}/",
            **extra)  # fmt: skip
    add(2, "entity.deleted", entity=dataset_version_id(p, "typo", "v1"), reason="a typo")
    uses = {run: [{"dataset_version": dataset_version_id(p, d, "v1"), "role": "train"}]
            for run, d in (("live-train", "web"), ("mid-pre", "web"), ("mid-train", "web"),
                           ("old-train", "old-clean"))}  # fmt: skip
    run("old-train", 3, inputs=uses["old-train"])
    run("mid-pre", 3, "run.failed", inputs=uses["mid-pre"])
    run("mid-train", 10, inputs=uses["mid-train"],
        resumed_from=checkpoint_id(f"{p}-mid-pre", 50))  # fmt: skip
    run("live-train", 20, inputs=uses["live-train"])
    run("sweep", 30)
    for (key, step), size in CHECKPOINTS.items():
        add(3.5, "checkpoint.saved", run_id=f"{p}-{key}", step=step, uri=f"s3://ck/{key}/{step}",
            size_bytes=size)  # fmt: skip
    for step in range(1, SWEEP + 1):
        add(30.5, "checkpoint.saved", run_id=f"{p}-sweep", step=step,
            uri=f"s3://ck/sweep/{step}", size_bytes=1000)  # fmt: skip
    exported: tuple[tuple[str, str, int | None], ...] = (
        ("old", "old-train", 200),
        ("mid", "mid-train", None),
        ("live", "live-train", 100),
    )
    for name, run_key, exported_step in exported:
        ck = checkpoint_id(f"{p}-{run_key}", exported_step) if exported_step else None
        add(40, "model.version.registered", name=name, version="1",
            produced_by_run=f"run:{p}-{run_key}", checkpoint=ck)  # fmt: skip
    add(41, "model.version.status.changed", model_version=model_version_id(p, "live", "1"),
        from_status="candidate", to_status="approved")  # fmt: skip
    for name, days_before_now in (("old", 400), ("mid", 10)):
        out.append(story_event(p, "model.version.status.changed",
                               {"model_version": model_version_id(p, name, "1"),
                                "from_status": "candidate", "to_status": "retired"},
                               NOW - timedelta(days=days_before_now)))  # fmt: skip
    for name, serves in (("chat", "live"), ("legacy", "old")):
        add(42, "deployment.created", name=name, environment="prod",
            endpoint=f"https://{name}.test",
            serves=[{"model_version": model_version_id(p, serves, "1")}])  # fmt: skip
    add(43, "deployment.retired", name="legacy", reason="replaced by chat")
    return out


def post(apps: Apps, events: list[Event], token: str) -> None:
    for start in range(0, len(events), 1000):
        body = b"[" + b",".join(e.to_json_bytes() for e in events[start : start + 1000]) + b"]"
        answer = httpx.post(f"{apps.settings.ingest_url}/v1/events", content=body,
                            headers=bearer(token), timeout=120)  # fmt: skip
        assert answer.status_code == 202, answer.text


@pytest.fixture(scope="module")
def story(
    tmp_path_factory: pytest.TempPathFactory, endpoints: Any, neo4j_driver: Driver
) -> Iterator[Story]:
    name = f"t-ret-{uuid.uuid4().hex[:8]}"
    with pytest.MonkeyPatch.context() as mp:
        apps = start_apps(tmp_path_factory.mktemp("stack"), endpoints, name, mp, neo4j_driver)
        try:
            admin = admin_token(apps)
            tokens: dict[str, str] = {}
            principals: dict[str, str] = {}
            setup: list[Event] = []
            for who, roles in (("deleter", ("writer", "delete")), ("writer", ("writer",))):
                tokens[who], principals[who] = new_token(), f"service:{name}-{who}"
                setup.append(token_issued(principals[who], tokens[who], [], "user:test"))
                setup += [access_event(principals[who], name, AccessRole(r), "user:test",
                                       grant=True) for r in roles]  # fmt: skip
            post(apps, setup, admin)
            events = story_events(name)
            post(apps, events, admin)
            for token in tokens.values():
                await_principal(neo4j_driver, token)
            await_applied(neo4j_driver, name, len(events) + 3, timeout_s=300)
            neo4j = endpoints.neo4j
            unset = ("PROVGRAPH_TOKEN", "PROVGRAPH_ACTOR")
            env = {k: v for k, v in os.environ.items() if k not in unset}
            env |= {"PROVGRAPH_NEO4J_URI": neo4j.uri, "PROVGRAPH_NEO4J_USER": neo4j.user,
                    "PROVGRAPH_NEO4J_PASSWORD": neo4j.password,
                    "PROVGRAPH_INGEST_URL": apps.settings.ingest_url}  # fmt: skip
            yield Story(apps, neo4j_driver, name, env, tokens, principals)
        finally:
            apps.down()
            neo4j_driver.execute_query("MATCH (n {project: $p}) DETACH DELETE n", p=name)


def expected_deletable(s: Story) -> list[str]:
    sweep = [s.ck("sweep", step) for step in range(1, SWEEP + 1)]
    old = [s.dv("old"), s.dv("old-clean"), s.ck("old-train", 100), s.ck("old-train", 200)]
    return sorted([*old, s.mv("old"), *sweep])


def test_the_advice_follows_the_story(story: Story) -> None:
    s, answer = story, story.advice()
    kept = {row["id"]: [(r["rule"], r["by"]) for r in row["reasons"]] for row in answer["keep"]}
    assert kept == {
        s.mv("live"): [("in_service", f"deployment:{s.project}/chat"),
                       ("not_retired", None)],
        s.ck("live-train", 100): [("upstream_of_kept", s.mv("live"))],
        s.dv("web"): [("upstream_of_kept", s.mv("live"))],
        s.mv("mid"): [("retired_within_period", None)],
        s.ck("mid-pre", 50): [("upstream_of_kept", s.mv("mid"))],
    }  # fmt: skip
    assert [row["id"] for row in answer["deletable"]] == expected_deletable(s)
    known = OLD_BYTES + CHECKPOINTS[("old-train", 100)] + CHECKPOINTS[("old-train", 200)]
    assert answer["bytes_freed"] == known + SWEEP * 1000
    assert answer["sizes_unknown"] == 2  # old-clean@v1 and the model version: not counted as 0
    assert [row["id"] for row in answer["already_deleted"]] == [s.dv("typo")]
    text = s.retention()
    assert text.returncode == 0, text.stderr
    assert f"DELETABLE ({len(expected_deletable(s))})" in text.stdout
    assert f"({known + SWEEP * 1000} bytes); 2 with no recorded size" in text.stdout


def test_a_period_that_is_not_one_is_refused(story: Story) -> None:
    done = story.retention("--keep-after-retire", "6 months")
    assert done.returncode == 2
    assert "is not a period such as 180d" in done.stderr


def test_emit_then_apply_refused_without_the_delete_right_then_applied_with_it(
    story: Story,
) -> None:
    s = story
    dry = s.retention("--emit", token="deleter")
    assert dry.returncode == 0, dry.stderr
    events = [json.loads(line) for line in dry.stdout.splitlines()]
    assert sorted(e["payload"]["entity"] for e in events) == expected_deletable(s)
    assert {e["event_type"] for e in events} == {"entity.deleted"}
    assert {e["actor"] for e in events} == {s.principals["deleter"]}  # the token's principal
    assert all("keep-after-retire 180d" in e["payload"]["reason"] for e in events)
    assert s.deleted() == {s.dv("typo")}  # a dry run sends nothing
    named = s.retention("--emit", token="deleter", actor="user:retention-review")
    assert {json.loads(line)["actor"] for line in named.stdout.splitlines()} == {
        "user:retention-review"
    }

    refused = s.retention("--emit", "--apply", token="writer")
    assert refused.returncode == 2
    assert "refused" in refused.stderr and "nothing was sent" in refused.stderr

    applied = s.retention("--emit", "--apply", token="deleter")
    assert applied.returncode == 0, applied.stderr
    assert f"sent {len(events)} entity.deleted events" in applied.stdout
    await_applied(s.driver, s.project, len(story_events(s.project)) + 3 + len(events), 300)
    assert s.deleted() == {s.dv("typo"), *expected_deletable(s)}
    # Exactly once each: the refused run sent none of its own.
    records, _, _ = s.driver.execute_query(
        "MATCH (e:AppliedEvent {project: $p, event_type: 'entity.deleted'}) RETURN count(e) AS c",
        p=s.project,
    )
    assert records[0]["c"] == 1 + len(events)
    after = s.advice()
    assert after["deletable"] == [] and len(after["keep"]) == 5
    assert len(after["already_deleted"]) == 1 + len(events)


def test_no_token_no_apply(story: Story) -> None:
    done = story.retention("--emit", "--apply")
    assert done.returncode == 2 and "PROVGRAPH_TOKEN" in done.stderr
