"""A seeded, realistic LLM-training lineage workload of (about) S events, for the benchmarks.

Each project holds: a base and a trainer environment image; raw web datasets with version
chains, cleaned versions derived from them (with cleaning rules and quality gates, some of
which fail and are re-cleaned), a weighted mix and an evaluation set; experiments whose runs
log step metrics and save checkpoints every N steps, some failing (and restarted from their
last checkpoint), some preempted and resumed; the best run of each experiment becomes a model
version that is evaluated, approved, delivered and deployed, and the next experiment
fine-tunes from it; the second run of each experiment scales up the first (`scaled_from`).
Last, the project's naming rules (`project.policy.set`: runs and model versions; none
enforced), which the queries' `lint-names` checks. Projects repeat until S events exist; the
stream is cut at exactly S.
"""

from __future__ import annotations

import hashlib
import random
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from benchmarks.workload_data import Corpus
from benchmarks.workload_release import Release
from provgraph.schemas import (
    CheckpointSaved,
    Event,
    ExperimentCreated,
    Payload,
    ProjectPolicySet,
    RunCompleted,
    RunFailed,
    RunMetricsLogged,
    RunResumed,
    RunStarted,
    checkpoint_id,
    model_version_id,
    run_id,
)
from provgraph.schemas.events.checkpoint import CheckpointSavedPayload
from provgraph.schemas.events.data import DatasetVersionCreatedPayload
from provgraph.schemas.events.experiment import (
    CodeRef,
    ExperimentCreatedPayload,
    RunInput,
    RunStartedPayload,
)
from provgraph.schemas.events.policy import policy_payload
from provgraph.schemas.events.run import (
    MetricPoint,
    RunCompletedPayload,
    RunError,
    RunFailedPayload,
    RunMetricsLoggedPayload,
    RunResumedPayload,
)

EPOCH = datetime(2025, 1, 6, tzinfo=UTC)
PRODUCER = "https://provgraph.dev/benchmarks/llm-workload"
NAME_RULES = {"run": "{experiment}-r{run_number}", "model_version": "*.0.0"}
"""The naming rules every project declares last (runs have no name: each breaks its rule)."""


@dataclass(frozen=True)
class Shape:
    """How one project looks; the defaults give about 1,600 events per project."""

    raw_datasets: int = 4
    raw_versions: int = 3
    experiments: int = 4
    runs_per_experiment: int = 8
    steps: int = 2000
    metric_every: int = 50
    checkpoint_every: int = 500
    fail_rate: float = 0.15
    preempt_rate: float = 0.15
    gate_fail_rate: float = 0.25


class Stream:
    """The events of the project being built, with a deterministic clock and event ids
    (`LlmWorkload.stream` hands them out and empties the list after each project)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.events: list[Event] = []
        self.clock = EPOCH

    def emit(self, cls: type[Event], project: str, payload: Payload) -> None:
        self.clock += timedelta(milliseconds=self.rng.randrange(1, 2000))
        event_id = uuid.UUID(int=self.rng.getrandbits(128), version=4)
        self._append(cls, project, payload, event_id)

    def emit_unseeded(self, cls: type[Event], project: str, payload: Payload) -> None:
        """An event at the clock's time whose id is named from its project and type: the rng
        is not drawn, so every other event stays what it was without it."""
        name = f"{PRODUCER}/{project}/{cls.model_fields['event_type'].default}"
        self._append(cls, project, payload, uuid.uuid5(uuid.NAMESPACE_URL, name))

    def _append(
        self, cls: type[Event], project: str, payload: Payload, event_id: uuid.UUID
    ) -> None:
        self.events.append(
            cls.create(
                project=project,
                producer=PRODUCER,
                actor="service:trainer",
                payload=payload,
                occurred_at=self.clock,
                event_id=event_id,
            )
        )

    def emit_for(self, project: str) -> Callable[[type[Event], Payload], None]:
        return lambda cls, payload: self.emit(cls, project, payload)

    def digest(self, text: str) -> str:
        return "sha256:" + hashlib.sha256(f"{text}:{self.rng.random()}".encode()).hexdigest()


class LlmWorkload:
    """`LlmWorkload(seed).build(scale)`: the same events for the same seed, scale and shape."""

    def __init__(self, seed: int = 7, shape: Shape | None = None) -> None:
        self.shape = shape or Shape()
        self.rng = random.Random(seed)
        self.stream = Stream(self.rng)

    EVENT_TYPES = (
        "environment.snapshot.recorded",
        "dataset.registered",
        "dataset.version.created",
        "experiment.created",
        "run.started",
        "run.metrics.logged",
        "checkpoint.saved",
        "run.resumed",
        "run.failed",
        "run.completed",
        "model.version.registered",
        "model.version.evaluated",
        "model.version.status.changed",
        "deployment.created",
        "deployment.updated",
        "project.policy.set",
    )
    """Every event type the workload produces (one project holds them all)."""

    def build(self, scale: int) -> list[Event]:
        """Whole projects until `scale` events exist, cut at exactly `scale`."""
        return list(self.stream_events(scale))

    def stream_events(self, scale: int) -> Iterator[Event]:
        """The events of `build(scale)`, one project at a time: what is held is one project's
        events (about 1,600), whatever `scale` is. The generator draws from the same seeded
        rng in the same order, so the events are the same, byte for byte."""
        number = emitted = 0
        while emitted < scale:
            self._project(f"llm-{number:05d}")
            number += 1
            events = self.stream.events[: scale - emitted]
            self.stream.events = []
            emitted += len(events)
            yield from events

    def _emit(self, project: str) -> Callable[[type[Event], Payload], None]:
        return self.stream.emit_for(project)

    def _project(self, project: str) -> None:
        release = Release(self.stream, project, self.rng)
        environment = release.environments()
        shape = self.shape
        corpus = Corpus(
            self.stream, self.rng, shape.raw_datasets, shape.raw_versions, shape.gate_fail_rate
        )
        train, evaluation = corpus.build(project)
        base: str | None = None
        for e in range(self.shape.experiments):
            best = self._experiment(project, e, environment, (train, evaluation), base)
            base = release.ship(best, e, evaluation)
        policy = policy_payload(names=NAME_RULES, reason="naming rules of the benchmark")
        self.stream.emit_unseeded(ProjectPolicySet, project, policy)

    # -- experiments and runs ----------------------------------------------------------------

    def _experiment(
        self, project: str, e: int, env: str, data: tuple[str, str], base: str | None
    ) -> tuple[str, str]:
        key = f"exp-{e}"
        goal = "pretrain" if base is None else "fine-tune from the previous release"
        self._emit(project)(
            ExperimentCreated, ExperimentCreatedPayload(key=key, number=e + 1, goal=goal)
        )
        best: tuple[float, str, str] | None = None
        for r in range(self.shape.runs_per_experiment):
            key_r = f"{project}-e{e}-r{r}"
            done = self._run(project, key_r, e, r, env, data, base, None)
            if done is None:
                continue
            if best is None or done[0] < best[0]:
                best = done
        assert best is not None, "every experiment ends with at least one completed run"
        return best[1], best[2]

    def _run(
        self,
        project: str,
        key: str,
        e: int,
        r: int,
        env: str,
        data: tuple[str, str],
        base: str | None,
        resumed_from: str | None,
    ) -> tuple[float, str, str] | None:
        """Start, log, checkpoint, end; a failed run restarts from its last checkpoint."""
        shape, emit = self.shape, self._emit(project)
        inputs = (
            RunInput(dataset_version=data[0], role="train"),
            RunInput(dataset_version=data[1], role="validation"),
        )
        params = {"lr": self.rng.choice([1e-4, 2e-4, 3e-4]), "batch": 512, "warmup": 100}
        code = CodeRef(
            repo="https://git.example/llm", commit=f"{self.rng.getrandbits(40):010x}", dirty=False
        )
        start = RunStartedPayload(
            run_id=key,
            experiment=f"experiment:{project}/exp-{e}",
            run_number=r + 1,
            params=params,
            code=code,
            environment=env,
            inputs=inputs,
            base_model=base,
            resumed_from=resumed_from,
            scaled_from=run_id(f"{project}-e{e}-r0") if r == 1 and not resumed_from else None,
        )
        emit(RunStarted, start)
        fails = resumed_from is None and self.rng.random() < shape.fail_rate
        stop_at = self.rng.randrange(shape.checkpoint_every, shape.steps) if fails else shape.steps
        last_ckpt, loss = "", 3.0
        for step in range(shape.metric_every, stop_at + 1, shape.metric_every):
            loss *= self.rng.uniform(0.97, 0.999)
            points = tuple(
                MetricPoint(name=n, step=step, value=v)
                for n, v in (("loss", loss), ("lr", params["lr"]), ("grad_norm", self.rng.random()))
            )
            emit(RunMetricsLogged, RunMetricsLoggedPayload(run_id=key, points=points))
            if step % shape.checkpoint_every == 0:
                last_ckpt = self._checkpoint(emit, key, step)
                if step < stop_at and self.rng.random() < shape.preempt_rate / 4:
                    resumed = RunResumedPayload(
                        run_id=key,
                        from_checkpoint=last_ckpt,
                        interruption_cause="preempted",
                        steps_lost=self.rng.randrange(0, shape.checkpoint_every),
                    )
                    emit(RunResumed, resumed)
        if fails:
            error = RunError(type="CUDAOutOfMemory", message="CUDA out of memory")
            emit(
                RunFailed,
                RunFailedPayload(run_id=key, conclusion="oom", error=error, final_step=stop_at),
            )
            if not last_ckpt:
                return None
            return self._run(project, f"{key}-retry", e, r, env, data, base, last_ckpt)
        done = RunCompletedPayload(
            run_id=key, conclusion="converged", final_metrics={"loss": loss}, final_step=stop_at
        )
        emit(RunCompleted, done)
        return loss, run_id(key), last_ckpt

    def _checkpoint(self, emit: Callable[[type[Event], Payload], None], key: str, step: int) -> str:
        payload = CheckpointSavedPayload(
            run_id=key,
            step=step,
            uri=f"s3://ckpt/{key}/{step}",
            checksum=self.stream.digest(f"{key}/{step}"),
            size_bytes=2 * 10**9,
            format="safetensors",
        )
        emit(CheckpointSaved, payload)
        return checkpoint_id(key, step)


def build(scale: int, seed: int = 7) -> list[Event]:
    """The default workload of `scale` events."""
    return LlmWorkload(seed).build(scale)


def stream(scale: int, seed: int = 7) -> Iterator[Event]:
    """The default workload of `scale` events, one project at a time (bounded memory)."""
    return LlmWorkload(seed).stream_events(scale)


def first_project_events(seed: int = 7) -> int:
    """Events in the workload's first whole project: the smallest scale with a shipped model."""
    workload = LlmWorkload(seed)
    workload._project("llm-00000")
    return len(workload.stream.events)


class QueryRoots:
    """Start nodes of the queries, collected while the events stream past (`add` each one):
    from projects whose last experiment shipped, the shipped model version (upstream) and
    the raw web-0 version the first cleaning read (downstream: it feeds the cleaned versions,
    the mix, the runs, models and deployments). Holds one id per project, not the events."""

    def __init__(self, most: int = 5) -> None:
        self.most = most
        self.shipped: set[str] = set()
        self.cleaned_from: dict[str, str] = {}

    def add(self, event: Event) -> Event:
        """Note what `event` tells; returns it (so `map(roots.add, events)` passes events on)."""
        payload = event.payload
        if event.subject.endswith("/chat-7b@4.0.0"):
            self.shipped.add(event.project)
        elif (
            isinstance(payload, DatasetVersionCreatedPayload)
            and payload.name == "web-0-clean"
            and payload.derived_from
        ):
            self.cleaned_from.setdefault(event.project, payload.derived_from[0].dataset_version)
        return event

    def result(self) -> tuple[list[str], list[str]]:
        """(upstream start nodes, downstream start nodes), at most `most` of each."""
        projects = sorted(self.shipped)[: self.most]
        tops = [model_version_id(p, "chat-7b", "4.0.0") for p in projects]
        return tops, [self.cleaned_from[p] for p in projects]


def query_roots(events: Iterable[Event], most: int = 5) -> tuple[list[str], list[str]]:
    """The queries' start nodes (`QueryRoots`) of `events`, read once."""
    roots = QueryRoots(most)
    for event in events:
        roots.add(event)
    return roots.result()
