"""`digest` and `checkpointAdvice`: the weekly digest of a project and how often to save
checkpoints, typed (the answers of `recipes/digest.py` and `recipes/checkpoint_advice.py`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import strawberry

from provgraph.query.graphql.briefs import ErrorBrief
from provgraph.query.graphql.compare import DataGateFlag
from provgraph.query.graphql.context import Info
from provgraph.query.graphql.fields import Long, field, picked, seconds
from provgraph.query.recipes.checkpoint_advice import DEFAULT_MAX_REWORK_S
from provgraph.query.recipes.digest import DEFAULT_STALLED_AFTER_S
from provgraph.query.recipes.digest_render import render_digest
from provgraph.query.recipes.team_service import TeamQuestions, parse_duration, parse_instant

PERSON = (
    "Who: the principal ingest authenticated, named as its token was issued (`user:ann`), else "
    "the actor the event claims (see the basis)."
)


@strawberry.type(description="The error that ended a run.")
class DigestError(ErrorBrief):
    pass


@strawberry.type(description="A run as the digest shows it; `person` started it.")
class DigestRun:
    id: strawberry.ID
    name: str | None
    run_number: Long | None
    experiment: strawberry.ID | None
    status: str | None
    person: str = strawberry.field(description=PERSON)
    person_basis: str = strawberry.field(description="principal | actor | none")
    started_at: str | None
    ended_at: str | None
    error: DigestError | None

    @classmethod
    def of(cls, brief: Mapping[str, Any]) -> DigestRun:
        exp = brief.get("experiment")
        return cls(
            id=strawberry.ID(brief["id"]),
            name=brief.get("name"),
            run_number=brief.get("run_number"),
            experiment=strawberry.ID(exp) if exp else None,
            status=brief.get("status"),
            person=brief["person"],
            person_basis=brief["person_basis"],
            started_at=brief.get("started_at"),
            ended_at=brief.get("ended_at"),
            error=DigestError.of(brief.get("error")),
        )


def _runs(briefs: Any) -> list[DigestRun]:
    return [DigestRun.of(b) for b in briefs]


@strawberry.type(description="One person's runs in the window.")
class DigestPerson:
    person: str = strawberry.field(description=PERSON)
    basis: str = strawberry.field(description="principal | actor | none")
    started: list[DigestRun]
    finished: list[DigestRun]
    failed: list[DigestRun]
    aborted: list[DigestRun]
    running: list[DigestRun]


@strawberry.type(description="A running run with no event for longer than the threshold.")
class StalledRun:
    run: DigestRun
    last_event_at: str
    idle_seconds: float


@strawberry.type(description="An experiment that failed repeatedly in the window.")
class RepeatedFailure:
    experiment: strawberry.ID
    failures: int
    errors: list[str]
    runs: list[DigestRun]


@strawberry.type(description="A run that trains on data whose quality gates failed or were "
                 "never recorded.")  # fmt: skip
class UngatedTraining:
    run: DigestRun
    data_gates: list[DataGateFlag]


@strawberry.type(description="A dataset version, model version, status change, deployment "
                 "change or feedback recorded in the window.")  # fmt: skip
class DigestItem:
    event_type: str
    at: str
    id: strawberry.ID | None
    name: str | None
    version: str | None
    person: str = strawberry.field(description=PERSON)
    person_basis: str = strawberry.field(description="principal | actor | none")
    to_status: str | None
    model_version: str | None

    @classmethod
    def of(cls, item: Mapping[str, Any]) -> DigestItem:
        return cls(
            **picked(item, "event_type", "at", "person", "person_basis"),
            id=strawberry.ID(item["id"]) if item.get("id") else None,
            name=item.get("name"),
            version=item.get("version"),
            # Only a status change has a `to_status`, only feedback a `model_version`.
            to_status=item.get("to_status"),
            model_version=item.get("model_version"),
        )


@strawberry.type(description="Accelerator-hours of one person or project in the window.")
class AcceleratorHours:
    key: str = strawberry.field(description="The person or the project.")
    accelerator_hours: float


@strawberry.type(description="The weekly digest of one or more projects.")
class Digest:
    projects: list[str]
    since: str
    until: str
    stalled_after_seconds: float
    person_basis: str
    people: list[DigestPerson]
    stalled: list[StalledRun]
    repeated_failures: list[RepeatedFailure]
    conclusion_missing: list[DigestRun]
    trained_on_ungated_data: list[UngatedTraining]
    dataset_versions: list[DigestItem]
    model_versions: list[DigestItem]
    status_changes: list[DigestItem]
    deployments: list[DigestItem]
    feedback: list[DigestItem]
    accelerator_hours_by_person: list[AcceleratorHours]
    accelerator_hours_by_project: list[AcceleratorHours]
    runs_without_resources: int
    truncated: bool
    markdown: str = strawberry.field(description="The digest as Markdown, to paste.")

    @classmethod
    def of(cls, r: Mapping[str, Any]) -> Digest:
        acc = r["accelerator_hours"]
        items: dict[str, Any] = {k: [DigestItem.of(i) for i in r[k]] for k in _ITEM_KEYS}
        return cls(
            **picked(r, "since", "until", "person_basis", "truncated"),
            **seconds(r, "stalled_after"),
            projects=list(r["projects"]),
            people=[_person(p) for p in r["people"]],
            stalled=[
                StalledRun(
                    run=DigestRun.of(s), last_event_at=s["last_event_at"], idle_seconds=s["idle_s"]
                )
                for s in r["stalled"]
            ],
            repeated_failures=[
                RepeatedFailure(
                    experiment=strawberry.ID(g["experiment"]),
                    failures=g["failures"],
                    errors=list(g["errors"]),
                    runs=_runs(g["runs"]),
                )
                for g in r["repeated_failures"]
            ],
            conclusion_missing=_runs(r["conclusion_missing"]),
            trained_on_ungated_data=[
                UngatedTraining(
                    run=DigestRun.of(g), data_gates=[DataGateFlag(**f) for f in g["data_gates"]]
                )
                for g in r["trained_on_ungated_data"]
            ],
            **items,
            accelerator_hours_by_person=[
                AcceleratorHours(key=p["person"], accelerator_hours=p["accelerator_hours"])
                for p in acc["by_person"]
            ],
            accelerator_hours_by_project=[
                AcceleratorHours(key=p["project"], accelerator_hours=p["accelerator_hours"])
                for p in acc["by_project"]
            ],
            runs_without_resources=acc["runs_without_resources"],
            markdown=render_digest(r, markdown=True),
        )


_ITEM_KEYS = ("dataset_versions", "model_versions", "status_changes", "deployments", "feedback")


def _person(p: Mapping[str, Any]) -> DigestPerson:
    return DigestPerson(
        person=p["person"],
        basis=p["basis"],
        **{k: _runs(p[k]) for k in ("started", "finished", "failed", "aborted", "running")},
    )


@strawberry.type(description="An interruption of a run the advice counted.")
class CheckpointInterruption:
    run: strawberry.ID
    at: str
    cause: str = strawberry.field(description="failed | aborted | resumed without a recorded "
                                  "end | resumed by another run")  # fmt: skip
    segment_start: str
    last_checkpoint_at: str | None
    end_recorded: bool
    lost_seconds: float = strawberry.field(description="Since the last checkpoint (recorded).")
    devices: Long | None


@strawberry.type(description="Work lost in the recorded interruptions with one interval.")
class LostWork:
    interval_seconds: float | None
    hours: float
    accelerator_hours: float
    interruptions_without_resources: int


def _lost(value: Mapping[str, Any] | None) -> LostWork | None:
    if value is None:
        return None
    counted = picked(value, "hours", "accelerator_hours", "interruptions_without_resources")
    return LostWork(**seconds(value, "interval"), **counted)


@strawberry.type(description="How often to save checkpoints (formulas: docs/practices.md).")
class CheckpointAdvice:
    target: str
    kind: str = strawberry.field(description="run | experiment | project")
    runs: list[strawberry.ID]
    save_cost_seconds: float | None = strawberry.field(description="Median save_seconds.")
    saves_measured: int
    running_hours: float
    interruptions: list[CheckpointInterruption]
    min_interruptions: int = strawberry.field(description="Needed to estimate MTBF.")
    mtbf_seconds: float | None
    max_rework_seconds: float
    current_interval_seconds: float | None
    current_interval_steps: float | None
    young_daly_seconds: float | None = strawberry.field(description="√(2·C·MTBF)")
    rule_of_thumb_seconds: float | None = strawberry.field(description="max_rework - C")
    advised_seconds: float | None = strawberry.field(description="The shorter of the two.")
    lost_current: LostWork | None = strawberry.field(description="As recorded.")
    lost_young_daly: LostWork | None
    lost_rule_of_thumb: LostWork | None
    lost_advised: LostWork | None
    saving_hours_current: float | None
    saving_hours_advised: float | None
    notes: list[str]
    truncated: bool

    @classmethod
    def of(cls, r: Mapping[str, Any]) -> CheckpointAdvice:
        lost, current, saving = r["lost"], r["current"], r["saving_hours"]
        return cls(
            **picked(r, "target", "kind", "saves_measured", "running_hours", "truncated"),
            **seconds(
                r, "save_cost", "mtbf", "max_rework", "young_daly", "rule_of_thumb", "advised"
            ),
            runs=[strawberry.ID(i) for i in r["runs"]],
            interruptions=[_interruption(i) for i in r["interruptions"]],
            min_interruptions=r["min_interruptions"],
            current_interval_seconds=current["seconds"],
            current_interval_steps=current["steps"],
            lost_current=_lost(lost["current"]),
            lost_young_daly=_lost(lost["young_daly"]),
            lost_rule_of_thumb=_lost(lost["rule_of_thumb"]),
            lost_advised=_lost(lost["advised"]),
            saving_hours_current=saving["current"],
            saving_hours_advised=saving["advised"],
            notes=list(r["notes"]),
        )


def _interruption(i: Mapping[str, Any]) -> CheckpointInterruption:
    same = picked(
        i, "at", "cause", "segment_start", "last_checkpoint_at", "end_recorded", "devices"
    )
    return CheckpointInterruption(run=strawberry.ID(i["run"]), **seconds(i, "lost"), **same)


def _questions(info: Info) -> TeamQuestions:
    return info.context.services.team()


@strawberry.type
class TeamQuery:
    @field(
        description="The weekly digest of `projects` over `since` (a duration: 7d, 24h) before "
        "`until` (ISO time, default now): runs by person, stalled runs (running, no event for "
        "`stalledAfter`, default 2h), repeated failures, missing conclusions, new versions, "
        "status changes, deployments, feedback and accelerator-hours."
    )
    def digest(
        self,
        info: Info,
        projects: list[str],
        since: str = "7d",
        until: str | None = None,
        stalled_after: str | None = None,
    ) -> Digest:
        stalled = (
            parse_duration(stalled_after, "stalledAfter") if stalled_after
            else DEFAULT_STALLED_AFTER_S
        )  # fmt: skip
        answer = _questions(info).digest(
            projects,
            info.context.scope,
            since_s=parse_duration(since, "since"),
            until=parse_instant(until, "until"),
            stalled_after_s=stalled,
        )
        return Digest.of(answer)

    @field(
        description="How often to save checkpoints: for a run or an experiment (`id`) or a "
        "`project`, the save cost, interruptions, MTBF, the Young/Daly interval, the interval "
        "keeping lost work within `maxRework` (default 30m) and the work each would have lost."
    )
    def checkpoint_advice(
        self,
        info: Info,
        id: strawberry.ID | None = None,
        project: str | None = None,
        max_rework: str | None = None,
    ) -> CheckpointAdvice:
        rework = parse_duration(max_rework, "maxRework") if max_rework else DEFAULT_MAX_REWORK_S
        answer = _questions(info).advise_checkpoints(
            info.context.scope,
            target=str(id) if id is not None else None,
            project=project,
            max_rework_s=rework,
        )
        return CheckpointAdvice.of(answer)
