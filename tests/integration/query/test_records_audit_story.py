"""`provgraph audit-records` and the data gates on a seeded story in Neo4j (events folded by
the projector's writer; expected answers written from the story by hand).

Project p (no policy: the baseline, experiment, code and inputs for a run, a source for a
dataset version, is required):

  web@v1    ann: source with licence, gates recorded and passed
  forum@v1  bob: source without licence, gate `toxicity` failed
  raw@v1    bob: source with licence, no gates recorded
  r1        ann: experiment, number 1, code, trains on web, environment; completed, concluded
  r2        bob: experiment, number 2, code, trains on forum, no environment; completed
            without a conclusion
  r3        bob: no experiment, number or code, trains on raw; completed, concluded
  m@1       ann: produced by r1, evaluated, approved;  m@2  bob: produced by r2, never evaluated

Project p-ok: one complete run and dataset version, and a v2 policy requiring a licence.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from neo4j import Driver
from support.contract_graphs_team import EventLog, Who, instant
from support.stories import provgraph_cli

from provgraph.ingest.projector.writer import GraphWriter
from provgraph.query.read.model import Scope
from provgraph.query.read.readers import neo4j_readers
from provgraph.query.recipes.service import Recipes
from provgraph.schemas.ids import dataset_version_id, environment_id, experiment_id

ANN: Who = ("user:ann", "user:ann")
BOB: Who = ("bob", None)
CODE = {"repo": "git@example.test:train.git", "commit": "4f2a9c1", "dirty": False}
PASSED = {"checks": [{"name": "dedup", "passed": True}]}
FAILED = {"checks": [{"name": "dedup", "passed": True}, {"name": "toxicity", "passed": False}]}


class Story:
    def __init__(self, p: str, ok: str) -> None:
        self.p, self.ok, self.log, self.minute = p, ok, EventLog(), 0
        self.since = ""  # when r2 starts: r1 and what came before are older

    def add(self, who: Who, kind: str, project: str | None = None, **payload: Any) -> None:
        self.minute += 1
        when = instant(f"2026-03-01T09:{self.minute:02d}")
        self.log.add(project or self.p, who, when, kind, **payload)

    def version(
        self, who: Who, name: str, licence: str | None, gates: Any, project: str = ""
    ) -> None:
        source = {"uri": f"s3://raw/{name}", "obtained_by": "crawl", "licence": licence}
        where = f"s3://data/{name}/v1/"
        self.add(who, "dataset.version.created", project or None, name=name, version="v1",
                 storage_uri=where, source=source, quality_gates=gates)  # fmt: skip

    def run(self, who: Who, key: str, train: str, project: str = "", **payload: Any) -> None:
        p = project or self.p
        inputs = [{"dataset_version": dataset_version_id(p, train, "v1"), "role": "train"}]
        self.add(who, "run.started", p, run_id=f"{p}-{key}", name=key, inputs=inputs, **payload)

    def end(self, who: Who, key: str, project: str = "", **payload: Any) -> None:
        p = project or self.p
        self.add(who, "run.completed", p, run_id=f"{p}-{key}", **payload)


def _story(p: str, ok: str) -> Story:
    s = Story(p, ok)
    for project in (p, ok):
        s.add(ANN, "experiment.created", project, key="exp", goal="lower loss")
        s.add(ANN, "environment.snapshot.recorded", project, key="img")
    s.version(ANN, "web", "CC-BY-4.0", PASSED)
    s.version(BOB, "forum", None, FAILED)
    s.version(BOB, "raw", "CC0-1.0", None)
    every = {"experiment": experiment_id(p, "exp"), "code": CODE}
    s.run(ANN, "r1", "web", run_number=1, environment=environment_id(p, "img"), **every)
    s.end(ANN, "r1", conclusion="web is enough")
    s.since = f"2026-03-01T09:{s.minute + 1:02d}:00Z"
    s.run(BOB, "r2", "forum", run_number=2, **every)
    s.end(BOB, "r2")
    s.run(BOB, "r3", "raw")
    s.end(BOB, "r3", conclusion="raw data is noisy")
    for who, version, run in ((ANN, "1", "r1"), (BOB, "2", "r2")):
        s.add(who, "model.version.registered", name="m", version=version,
              produced_by_run=f"run:{p}-{run}")  # fmt: skip
    s.add(ANN, "model.version.evaluated", evaluation_id="6d3c1b7e-0d4f-4b8e-9a51-3f1f6f0f2a11",
          model_version=f"model:{p}/m@1", suite="evals", passed=True)  # fmt: skip
    s.add(ANN, "model.version.status.changed", model_version=f"model:{p}/m@1",
          from_status="candidate", to_status="approved")  # fmt: skip
    s.version(ANN, "clean", "CC0-1.0", PASSED, ok)
    s.run(ANN, "done", "clean", ok, experiment=experiment_id(ok, "exp"), code=CODE)
    s.end(ANN, "done", ok, conclusion="fine")
    s.add(ANN, "project.policy.set", ok, required={"dataset_version": ["licence"]})
    return s


@pytest.fixture()
def story(neo4j_driver: Driver, unique_name: str) -> Iterator[Story]:
    p, ok = unique_name[:50], f"{unique_name[:50]}-ok"
    s = _story(p, ok)
    GraphWriter(neo4j_driver).write(s.log.screened())
    try:
        yield s
    finally:
        neo4j_driver.execute_query(
            "MATCH (n) WHERE n.project IN $projects DETACH DELETE n", projects=[p, ok]
        )


def _audit(endpoint: Any, *argv: str) -> tuple[int, str]:
    done = provgraph_cli(endpoint, "audit-records", *argv)
    return done.returncode, done.stdout + done.stderr


def _kinds(text: str) -> dict[str, Any]:
    return {k["kind"]: k for k in json.loads(text)["kinds"]}


def test_counts_what_is_missing_and_by_whom(neo4j_endpoint: Any, story: Story) -> None:
    code, out = _audit(neo4j_endpoint, "--project", story.p, "--json")
    assert code == 0, out
    answer = json.loads(out)
    assert answer["required_by"] == "baseline"
    runs, versions, models = (_kinds(out)[k] for k in ("run", "dataset_version", "model_version"))
    assert (runs["total"], runs["complete"], runs["incomplete"]) == (3, 2, 1)  # r3
    assert {m["element"]: (m["required"], m["count"], m["by"]) for m in runs["missing"]} == {
        "experiment": (True, 1, [{"person": "bob", "count": 1}]),
        "run_number": (False, 1, [{"person": "bob", "count": 1}]),
        "code": (True, 1, [{"person": "bob", "count": 1}]),
        "environment": (False, 2, [{"person": "bob", "count": 2}]),  # r2, r3
        "conclusion": (False, 1, [{"person": "bob", "count": 1}]),  # r2
    }
    assert (versions["total"], versions["complete"], versions["incomplete"]) == (3, 3, 0)
    assert [(m["element"], m["count"], m["by"]) for m in versions["missing"]] == [
        ("licence", 1, [{"person": "bob", "count": 1}])  # forum
    ]
    assert (models["total"], models["complete"]) == (2, 2)  # nothing required of them
    assert [(m["element"], m["by"]) for m in models["missing"]] == [
        ("evaluation", [{"person": "bob", "count": 1}])  # m@2
    ]
    code, text = _audit(neo4j_endpoint, "--project", story.p)
    assert code == 0
    assert "run: 3 records, 2 complete, 1 incomplete (required: experiment, code, inputs)" in text
    assert "  missing environment: 2, by bob 2" in text


def test_check_fails_on_a_required_element_and_passes_a_complete_project(
    neo4j_endpoint: Any, story: Story
) -> None:
    code, text = _audit(neo4j_endpoint, "--project", story.p, "--check")
    assert code == 3, text
    assert "check: FAILED, required elements missing: 1 run experiment; 1 run code" in text
    ok = story.ok
    code, out = _audit(neo4j_endpoint, "--project", ok, "--check", "--json")
    assert code == 0, out
    answer = json.loads(out)
    assert answer["required_by"] == "policy" and answer["failed"] == []
    assert _kinds(out)["dataset_version"]["required"] == ["licence"]
    assert _kinds(out)["run"]["required"] == []  # the policy's, not the baseline
    code, out = _audit(neo4j_endpoint, "--project", story.p, "--since", story.since, "--json")
    assert code == 0 and _kinds(out)["run"]["total"] == 2  # r2 and r3
    assert _audit(neo4j_endpoint, "--project", f"{ok}-none")[0] == 1
    assert _audit(neo4j_endpoint, "--project", story.p, "--since", "yesterday")[0] == 2


def test_data_gates_in_compare_digest_and_recipe(
    neo4j_endpoint: Any, neo4j_driver: Driver, story: Story
) -> None:
    p = story.p
    forum, raw = (dataset_version_id(p, n, "v1") for n in ("forum", "raw"))
    failed = "quality gates failed: toxicity"
    done = provgraph_cli(neo4j_endpoint, "compare", f"run:{p}-r1", f"run:{p}-r2", f"run:{p}-r3",
                         "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    compared = json.loads(done.stdout)
    assert {r["id"]: r["data_gates"] for r in compared["runs"]} == {
        f"run:{p}-r1": [],
        f"run:{p}-r2": [{"dataset_version": forum, "issue": failed}],
        f"run:{p}-r3": [{"dataset_version": raw, "issue": "no quality gates recorded"}],
    }
    digest = provgraph_cli(neo4j_endpoint, "digest", "--project", p, "--until",
                           "2026-03-02T00:00", "--json")  # fmt: skip
    assert digest.returncode == 0, digest.stderr
    flagged = json.loads(digest.stdout)["trained_on_ungated_data"]
    assert [(r["id"], r["person"], r["data_gates"]) for r in flagged] == [
        (f"run:{p}-r2", "bob", [{"dataset_version": forum, "issue": failed}]),
        (f"run:{p}-r3", "bob", [{"dataset_version": raw, "issue": "no quality gates recorded"}]),
    ]
    recipes = Recipes(neo4j_readers(neo4j_driver).recipes)
    recipe = recipes.reproduce(f"model:{p}/m@2", Scope.everything())
    assert recipe is not None
    assert {"at": forum, "issue": f"{failed} (trained on by run:{p}-r2)"} in recipe["gaps"]
    clean = recipes.reproduce(f"model:{p}/m@1", Scope.everything())
    assert clean is not None
    assert [g for g in clean["gaps"] if "quality gates" in g["issue"]] == []
