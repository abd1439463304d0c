"""An Airflow-style OpenLineage pipeline as the openlineage-python client emits it: a DAG run,
its task runs (each with a ParentRunFacet naming the DAG run), a failed attempt and its retry
(a new runId), and no `version` facets anywhere, so every input's version has to be resolved
by provgraph (docs/openlineage.md, "Versions of inputs without a version facet").

    export_tokens  ─▶ raw/tokens ─▶ ingest_raw ─▶ raw/corpus ─▶ clean ─▶ corpus/clean
    export (late)  ─▶ raw/tokens   (a newer version, written while ingest_raw runs)
    corpus/clean ─▶ dedup (attempt 1: FAIL; attempt 2: COMPLETE) ─▶ corpus/dedup
    corpus/dedup ─▶ tokenize ─▶ corpus/tokenized

Times are minutes after `base`; every run starts after the version it must resolve to was
written, and the late export starts after ingest_raw did, so the right version of raw/tokens
for ingest_raw is the first export's even though the late one exists when ingest_raw ends.
Used by the end-to-end test (sent through the real client) and by the order test (wrapped
as ingest wraps them).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from openlineage.client.event_v2 import (
    InputDataset,
    Job,
    OutputDataset,
    Run,
    RunEvent,
    RunState,
)
from openlineage.client.facet_v2 import error_message_run, job_type_job, parent_run
from openlineage.client.serde import Serde

from provgraph.ingest.openlineage import NamespaceMap
from provgraph.schemas.events.openlineage import ol_name, run_version
from provgraph.schemas.ids import dataset_id, dataset_version_id, job_id

PRODUCER = "https://github.com/apache/airflow/tree/providers-openlineage/2.7.0"
DAG = "tokens_pipeline"
RAW_TOKENS, RAW_CORPUS = "raw/tokens", "raw/corpus"
CLEAN, DEDUP, FINAL = "corpus/clean", "corpus/dedup", "corpus/tokenized"
DATASETS = (RAW_TOKENS, RAW_CORPUS, CLEAN, DEDUP, FINAL)


@dataclass(frozen=True)
class Task:
    """One run of the pipeline: its job, what it reads and writes, when, and how it ends."""

    key: str
    job: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    start: int
    end: int
    state: RunState = RunState.COMPLETE
    in_dag: bool = True


TASKS = (
    Task("export", "lake.export_tokens", (), (RAW_TOKENS,), 0, 5, in_dag=False),
    Task("dag", DAG, (), (), 10, 70, in_dag=False),
    Task("ingest_raw", f"{DAG}.ingest_raw", (RAW_TOKENS,), (RAW_CORPUS,), 12, 20),
    Task("export_late", "lake.export_tokens", (), (RAW_TOKENS,), 14, 16, in_dag=False),
    Task("clean", f"{DAG}.clean", (RAW_CORPUS,), (CLEAN,), 22, 30),
    Task("dedup_1", f"{DAG}.dedup", (CLEAN,), (DEDUP,), 32, 35, RunState.FAIL),
    Task("dedup_2", f"{DAG}.dedup", (CLEAN,), (DEDUP,), 40, 50),
    Task("tokenize", f"{DAG}.tokenize", (DEDUP,), (FINAL,), 52, 60),
)
BY_KEY = {task.key: task for task in TASKS}
PIPELINE_TASKS = ("ingest_raw", "clean", "dedup_2", "tokenize")
"""The runs whose outputs the final dataset is made of, first to last."""


def _run_ids() -> dict[str, str]:
    return {task.key: str(uuid.uuid4()) for task in TASKS}


@dataclass(frozen=True)
class OlPipeline:
    """One instance of the pipeline: its namespaces (unique per `tag`) and run ids."""

    tag: str = field(default_factory=lambda: uuid.uuid4().hex[:8])
    base: datetime = field(
        default_factory=lambda: (datetime.now(UTC) - timedelta(hours=3)).replace(microsecond=0)
    )
    run_ids: dict[str, str] = field(default_factory=_run_ids)

    @property
    def data_namespace(self) -> str:
        """Where the datasets live: a namespace with `:` and `/`, as object stores have."""
        return f"s3://lake-{self.tag}"

    @property
    def job_namespace(self) -> str:
        """The Airflow instance's namespace."""
        return f"airflow-{self.tag}"

    def run_id(self, key: str) -> str:
        """The OpenLineage runId of the task run `key`."""
        return self.run_ids[key]

    def at(self, minutes: int) -> str:
        """The eventTime `minutes` after the base."""
        return (self.base + timedelta(minutes=minutes)).isoformat()

    def event(self, key: str, state: RunState) -> RunEvent:
        """The START or end event of the run `key`, inputs and outputs on both (as Airflow)."""
        task = BY_KEY[key]
        when = task.start if state is RunState.START else task.end
        return RunEvent(
            eventType=state,
            eventTime=self.at(when),
            producer=PRODUCER,
            run=Run(self.run_id(key), facets=self._run_facets(task, state)),
            job=Job(self.job_namespace, task.job, facets=_job_facets(task)),
            inputs=[InputDataset(self.data_namespace, name) for name in task.inputs],
            outputs=[OutputDataset(self.data_namespace, name) for name in task.outputs],
        )

    def _run_facets(self, task: Task, state: RunState) -> dict[str, Any]:
        facets: dict[str, Any] = {}
        if task.in_dag:
            facets["parent"] = parent_run.ParentRunFacet(
                run=parent_run.Run(runId=self.run_id("dag")),
                job=parent_run.Job(namespace=self.job_namespace, name=DAG),
            )
        if state is RunState.FAIL:
            facets["errorMessage"] = error_message_run.ErrorMessageRunFacet(
                message="duplicate shard index 17", programmingLanguage="python"
            )
        return facets

    def chronological(self) -> list[RunEvent]:
        """Every event once, in the order the runs happened."""
        events = [self.event(t.key, s) for t in TASKS for s in (RunState.START, t.state)]
        return sorted(events, key=lambda e: (e.eventTime, e.eventType != RunState.START))

    def as_sent(self) -> list[RunEvent]:
        """Out of order, one event twice: ends before starts, the third task before the
        second, the late export before the run it must not be resolved for."""
        e, end = self.event, RunState.COMPLETE
        return [
            e("export", end),
            e("export", RunState.START),
            e("dag", RunState.START),
            e("dedup_2", end),
            e("dedup_1", RunState.START),
            e("dedup_2", RunState.START),
            e("dedup_1", RunState.FAIL),
            e("export_late", RunState.START),
            e("export_late", end),
            e("ingest_raw", end),
            e("tokenize", RunState.START),
            e("clean", end),
            e("ingest_raw", RunState.START),
            e("clean", RunState.START),
            e("tokenize", end),
            e("tokenize", end),  # a resend: the same event again
            e("dag", end),
        ]

    def reversed_order(self) -> list[RunEvent]:
        """Every event once, the last first."""
        return list(reversed(self.chronological()))


def _job_facets(task: Task) -> dict[str, Any]:
    kind = "DAG" if task.key == "dag" else "TASK"
    facet = job_type_job.JobTypeJobFacet(
        processingType="BATCH", integration="AIRFLOW", jobType=kind
    )
    return {"jobType": facet}


def as_dicts(events: list[RunEvent]) -> list[dict[str, Any]]:
    """The events as the HTTP transport sends them (JSON objects)."""
    return [Serde.to_dict(event) for event in events]


DISTINCT_EVENTS = 2 * len(TASKS)
"""How many distinct events the pipeline has (`as_sent` has one more: the resend)."""


@dataclass(frozen=True)
class Ids:
    """The ids the pipeline's nodes get: provgraph's (under a namespace map) and Marquez's."""

    pipeline: OlPipeline
    names: NamespaceMap = field(default_factory=NamespaceMap)

    @property
    def data_project(self) -> str:
        return self.names.project(self.pipeline.data_namespace)

    @property
    def job_project(self) -> str:
        return self.names.project(self.pipeline.job_namespace)

    def dataset(self, name: str) -> str:
        """``dataset:<project>/<name>`` (a name with `/` gets a slug and a hash)."""
        return dataset_id(self.data_project, ol_name(name))

    def version(self, name: str, writer: str) -> str:
        """The version of dataset `name` that the run `writer` wrote: ``...@run-<runId>``."""
        run = run_version(self.pipeline.run_id(writer))
        return dataset_version_id(self.data_project, ol_name(name), run)

    def run(self, key: str) -> str:
        return f"run:{self.pipeline.run_id(key)}"

    def job(self, key: str) -> str:
        return job_id(self.job_project, ol_name(BY_KEY[key].job))

    def marquez_dataset(self, name: str) -> str:
        """Marquez's id: ``dataset:<namespace>:<name>``, the OpenLineage names verbatim."""
        return f"dataset:{self.pipeline.data_namespace}:{name}"

    def marquez_job(self, key: str) -> str:
        return f"job:{self.pipeline.job_namespace}:{BY_KEY[key].job}"


READS_OF = {
    "ingest_raw": (RAW_TOKENS, "export"),
    "clean": (RAW_CORPUS, "ingest_raw"),
    "dedup_1": (CLEAN, "clean"),
    "dedup_2": (CLEAN, "clean"),
    "tokenize": (DEDUP, "dedup_2"),
}
"""Each reading run: (the dataset it reads, the run whose version it must be resolved to)."""
