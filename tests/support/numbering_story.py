"""Events that number experiments and runs (`projection.numbering`): experiments created and
runs started with or without a number, in an experiment or in none, resumed or not."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from provgraph.schemas import Event, ExperimentCreated, RunStarted, checkpoint_id, run_id
from provgraph.schemas.events.experiment import ExperimentCreatedPayload, RunStartedPayload
from provgraph.schemas.ids import experiment_id

T0 = datetime(2024, 6, 1, tzinfo=UTC)


class Numbering:
    """Builds the events of one project; each event one second after the one before."""

    def __init__(self, project: str) -> None:
        self.project = project
        self._tag = uuid.uuid4().hex[:8]  # run ids are global: keep tests apart
        self._n = 0

    def _event(self, cls: type[Event], payload: object) -> Event:
        self._n += 1
        return cls.create(
            project=self.project,
            producer="https://t/1",
            actor="user:t",
            payload=payload,
            occurred_at=T0 + timedelta(seconds=self._n),
        )

    def experiment(self, key: str) -> str:
        """The id of experiment `key`."""
        return experiment_id(self.project, key)

    def run(self, key: str) -> str:
        """The id of run `key` (made unique to this story)."""
        return run_id(self.run_key(key))

    def run_key(self, key: str) -> str:
        return f"{self.project}-{self._tag}-{key}"

    def created(self, key: str, number: int | None = None) -> Event:
        payload = ExperimentCreatedPayload(key=key, number=number, goal=f"goal of {key}")
        return self._event(ExperimentCreated, payload)

    def started(
        self,
        key: str,
        experiment: str | None = None,
        number: int | None = None,
        resumes: str | None = None,
    ) -> Event:
        """run.started of run `key`, in `experiment` (a key), resumed from step 100 of run
        `resumes` (a key)."""
        payload = RunStartedPayload(
            run_id=self.run_key(key),
            experiment=self.experiment(experiment) if experiment else None,
            run_number=number,
            resumed_from=checkpoint_id(self.run_key(resumes), 100) if resumes else None,
        )
        return self._event(RunStarted, payload)
