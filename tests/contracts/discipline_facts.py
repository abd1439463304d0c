"""The records-discipline lookup's contract (`ports.FactsLookup` on every `BatchWriter`): the
in-memory graph and the Neo4j writer read back the same environment contents, project
policies, dataset versions' quality checks and evaluated model versions from what they folded.

A subclass per adapter gives `fresh()` (a writer with no node of this test's `project`).
"""

from __future__ import annotations

import uuid
from abc import ABC, abstractmethod
from datetime import UTC, datetime
from typing import Any

from support.record_policy import evaluated, model_version, policy, version
from support.stories import story_event

from provgraph.ingest.ports import BatchWriter
from provgraph.ingest.projection import LogStamp, project_event
from provgraph.ingest.projection.discipline import contents_of
from provgraph.schemas import EnvironmentSnapshotRecorded, Event, ProjectPolicySet, RunStarted
from provgraph.schemas import environment_id as env_id
from provgraph.schemas.events.environment import EnvironmentSnapshotRecordedPayload
from provgraph.schemas.events.experiment import RunStartedPayload
from provgraph.schemas.events.policy import policy_payload
from provgraph.schemas.records import RecordKind

AT = datetime(2026, 1, 2, tzinfo=UTC)


def _event(cls: type[Event], project: str, payload: Any) -> Event:
    return cls.create(project=project, producer="https://t/1", actor="user:t", payload=payload)


class DisciplineFactsContract(ABC):
    """What every writer reads back for the discipline rules."""

    project: str

    @abstractmethod
    def fresh(self) -> BatchWriter:
        """A writer whose graph holds nothing of `project`."""

    def snapshot(self, key: str) -> EnvironmentSnapshotRecordedPayload:
        return EnvironmentSnapshotRecordedPayload(
            key=key, python_version="3.11.8", packages={"numpy": "1.26.4"}, system={"os": "x"}
        )

    def write(self, writer: BatchWriter, *events: Event) -> None:
        writer.write([project_event(e) for e in events])

    def test_nothing_is_read_for_unknown_or_unrecorded_environments_and_projects(self) -> None:
        writer = self.fresh()
        placeholder = env_id(self.project, "only-referenced")
        started = RunStartedPayload(run_id=str(uuid.uuid4()), environment=placeholder)
        self.write(writer, _event(RunStarted, self.project, started))
        facts = writer.discipline_facts(
            [placeholder, env_id(self.project, "never")], [self.project]
        )
        assert (facts.environments, facts.policies) == ({}, {})
        assert writer.discipline_facts([], []).environments == {}

    def test_recorded_contents_and_the_policy_history_are_read_back(self) -> None:
        writer = self.fresh()
        payload = self.snapshot("image-a")
        self.write(writer, _event(EnvironmentSnapshotRecorded, self.project, payload))
        policies = [
            _event(ProjectPolicySet, self.project, policy_payload(require_conclusion=v))
            for v in (True, False, True)
        ]
        times = ["2026-01-01T00:00:01.000000Z", "2026-01-01T00:00:02.000000Z"]
        times.append("2026-01-01T00:00:03.000000Z")
        for at, event in zip(times, policies, strict=True):  # one batch each, as logged
            writer.write([project_event(event, LogStamp(at))])
        env = env_id(self.project, "image-a")
        facts = writer.discipline_facts([env], [self.project])
        assert facts.environments == {env: contents_of(payload)}
        versions = [f"{at}|{e.event_id}" for at, e in zip(times, policies, strict=True)]
        history = dict(zip(versions, (True, False, True), strict=True))
        assert list(facts.policies) == [self.project]
        stored = facts.policies[self.project]
        assert {v: p.requires_conclusion for v, p in stored.items()} == history
        assert facts.requires_conclusion(self.project) is True
        assert facts.requires_conclusion(self.project, versions[2]) is False
        assert facts.requires_conclusion(self.project, versions[1]) is True
        assert facts.requires_conclusion(self.project, versions[0]) is False  # none before

    def test_the_whole_policy_gates_and_evaluations_are_read_back(self) -> None:
        writer = self.fresh()
        rule = policy(self.project, {RecordKind.RUN: ("code", "inputs")}, gates=True)
        clean = version(self.project, "clean", checks={"dedup": True})
        dirty = version(self.project, "dirty", checks={"pii": False, "dedup": True})
        ungated = version(self.project, "ungated")
        evaluation = evaluated(self.project)
        writer.write([project_event(rule, LogStamp("2026-01-01T00:00:01.000000Z"))])
        at = ["2026-01-01T00:00:02.000000Z", "2026-01-01T00:00:03.000000Z"]
        at.append("2026-01-01T00:00:02.500000Z")
        writer.write([project_event(e, LogStamp(at[0])) for e in (clean, dirty, ungated)])
        writer.write([project_event(evaluation, LogStamp(at[1]))])
        # another evaluation of the version, read later but appended earlier: the first counts
        writer.write([project_event(evaluated(self.project), LogStamp(at[2]))])
        versions = [clean.subject, dirty.subject, ungated.subject, f"{ungated.subject}-never"]
        asked = [model_version(self.project), model_version(self.project, "unevaluated")]
        facts = writer.discipline_facts([], [self.project], versions, asked)
        assert facts.gates == {clean.subject: (), dirty.subject: ("pii",)}
        assert facts.evaluated == {model_version(self.project)}
        # when the log appended them: a dataset version's creation, a version's first evaluation
        assert facts.recorded_at == {
            clean.subject: at[0],
            dirty.subject: at[0],
            model_version(self.project): at[2],
        }
        (stated,) = facts.policies[self.project].values()
        assert stated.of(RecordKind.RUN) == ("code", "inputs")
        assert stated.require_passed_gates is True and stated.requires_conclusion is False

    def test_the_outputs_at_a_uri_with_their_jobs_and_the_experiments_of_runs(self) -> None:
        writer, p = self.fresh(), self.project
        tag = uuid.uuid4().hex[:8]
        x = f"experiment:{p}/sft"

        def run(key: str, experiment: str | None) -> Event:
            return story_event(
                p, "run.started", {"run_id": f"{key}-{tag}", "experiment": experiment}, AT
            )

        def saved(key: str, step: int, uri: str) -> Event:
            return story_event(
                p, "checkpoint.saved", {"run_id": f"{key}-{tag}", "step": step, "uri": uri}, AT
            )

        shared, alone = f"s3://b/{tag}/shared", f"s3://b/{tag}/alone"
        data = {"name": "web", "version": "v1", "storage_uri": shared}
        self.write(
            writer,
            run("a", x),
            run("b", None),
            saved("a", 1, shared),
            saved("b", 1, shared),
            saved("a", 2, alone),
            story_event(p, "dataset.version.created", data, AT),
        )
        a, b = f"run:a-{tag}", f"run:b-{tag}"
        writers, experiments = writer.output_writers(
            [shared, f"s3://b/{tag}/none"], [a, b, "run:x"]
        )
        assert sorted(writers) == [shared]  # nothing stored at the other URI
        assert sorted(writers[shared]) == sorted(
            [
                (f"checkpoint:a-{tag}/1", x),  # a run of experiment sft
                (f"checkpoint:b-{tag}/1", b),  # a run outside every experiment: its own job
                (f"dataset:{p}/web@v1", f"dataset:{p}/web@v1"),  # no run: the output itself
            ]
        )
        assert experiments == {a: x, b: None, "run:x": None}
        assert writer.output_writers([], []) == ({}, {})
