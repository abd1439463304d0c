"""The SDK's helpers for resumes, evaluations and status changes, emitted through the Kafka
transport to the real broker: every event is read back from the topic, keyed by its subject,
exactly as emitted and in order per subject."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from client_kafka_helpers import assert_exactly_as_emitted, read_topic

from provgraph.client import Emitter, KafkaTransport, Transport
from provgraph.schemas import Event

PROJECT = "client-helpers"
MODEL = f"model:{PROJECT}/assistant@1.0.0"
REJECTED = f"model:{PROJECT}/assistant@1.0.1"
EVAL_DATA = [f"dataset:{PROJECT}/eval-suite@v1"]


class RecordingEmitter(Emitter):
    """An emitter that keeps a copy of every event it is handed, to compare with the topic."""

    def __init__(self, transport: Transport, **options: Any) -> None:
        super().__init__(transport, **options)
        self.emitted: list[Event] = []

    def emit(self, event: Event) -> None:
        self.emitted.append(event)
        super().emit(event)


def test_every_helper_reaches_the_topic_as_emitted(
    kafka_bootstrap: str, kafka_topic: str, tmp_path: Path
) -> None:
    transport = KafkaTransport(kafka_bootstrap, topic=kafka_topic, timeout_s=10.0)
    emitter = RecordingEmitter(transport, spool_dir=tmp_path / "spool", project=PROJECT)
    with emitter.resume(
        "pretrain-7",
        from_checkpoint=1000,
        interruption_cause="node failure",
        steps_lost=120,
        resumed_at_step=1000,
    ) as run:
        run.log_metrics(1001, loss=2.5)
        saved = run.checkpoint(2000, "s3://bucket/ckpt/2000")
        on_set = run.evaluate_checkpoint(saved, suite="mmlu", datasets=EVAL_DATA, passed=False)
        in_run = run.evaluate(MODEL, suite="mmlu", datasets=EVAL_DATA, passed=True)
        run.conclusion = "converged after one restart"
    alone = emitter.evaluate(
        MODEL, suite="safety", datasets=EVAL_DATA, metrics={"toxicity": 0.002}, passed=True
    )
    emitter.approve_model(MODEL, from_status="candidate", reason="passed mmlu and safety")
    emitter.set_model_status(MODEL, "delivered", from_status="approved")
    emitter.retire_model(MODEL, from_status="delivered", reason="superseded")
    emitter.reject_model(REJECTED, from_status="candidate", reason="failed safety")
    emitter.abort_run("pretrain-8", reason="preempted by the scheduler", final_step=40)
    assert emitter.close(timeout=30)

    emitted = emitter.emitted
    received = read_topic(kafka_bootstrap, kafka_topic, expected=len(emitted))
    assert_exactly_as_emitted(emitted, received)
    once = list({event.event_id: event for _, event in received}.values())  # resends: once
    by_subject: dict[str, list[str]] = {}
    for event in once:
        by_subject.setdefault(event.subject, []).append(event.event_type)
    assert by_subject["run:pretrain-7"] == ["run.resumed", "run.metrics.logged", "run.completed"]
    assert by_subject[in_run] == by_subject[alone] == ["model.version.evaluated"]
    assert by_subject[on_set] == ["checkpoint.evaluated"]
    assert by_subject[MODEL] == ["model.version.status.changed"] * 3
    assert by_subject[REJECTED] == ["model.version.status.changed"]
    assert by_subject["run:pretrain-8"] == ["run.aborted"]
    statuses = [e.payload.model_dump(mode="json")["to_status"] for e in once if e.subject == MODEL]
    assert statuses == ["approved", "delivered", "retired"]
