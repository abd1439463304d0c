"""The producers of the chaos run, each a thread: the SDK (Kafka and HTTP transports), HTTP
ingest called directly, and a raw kafka-python producer writing event JSON to the topic.

Every record is entered in the ledger before it is handed over and marked acknowledged only
when the producer's contract says it is: the SDK's `emit` returned, ingest answered 202, the
broker acknowledged the record. A producer retries what was not acknowledged (the same bytes:
receivers dedupe by event_id) for a bounded time, as a well-behaved client does.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import httpx
from kafka import KafkaProducer
from kafka.errors import KafkaError

from provgraph.client import Emitter, HttpTransport, KafkaTransport, Transport
from provgraph.schemas import Event

from .ledger import HTTP, RAW_KAFKA, SDK_HTTP, SDK_KAFKA, Ledger, Sent, of_event
from .plan import ChaosPlan
from .stack import ChaosStack
from .workload import DatasetVersions, Jobs

RETRY_FOR_S = 90.0
"""How long a producer keeps retrying one record (or batch) before giving up on it."""


class RawKafka:
    """A plain kafka-python producer (acks=all): what any Kafka client can write."""

    def __init__(self, bootstrap: str, topic: str, retry_for_s: float = RETRY_FOR_S) -> None:
        self.topic, self.retry_for_s = topic, retry_for_s
        self.producer = KafkaProducer(
            bootstrap_servers=bootstrap,
            acks="all",
            linger_ms=5,
            request_timeout_ms=10_000,
            max_block_ms=10_000,
            reconnect_backoff_max_ms=1000,
        )

    def send(self, key: bytes, value: bytes) -> tuple[int, int] | None:
        """Send until the broker acknowledges (its position) or the retry time runs out (None:
        the record may still reach the log later, unacknowledged)."""
        deadline = time.monotonic() + self.retry_for_s
        while time.monotonic() < deadline:
            try:
                meta = self.producer.send(self.topic, key=key, value=value).get(timeout=15)
                return int(meta.partition), int(meta.offset)
            except KafkaError:
                time.sleep(0.5)
        return None

    def close(self) -> None:
        self.producer.close(timeout=10)


def post(client: httpx.Client, url: str, token: str, body: bytes) -> tuple[int, Any]:
    """One POST /v1/events: (status, JSON answer or text); status 0 when nothing answered."""
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {token}"}
    try:
        answer = client.post(f"{url}/v1/events", content=body, headers=headers)
    except httpx.HTTPError as exc:
        return 0, str(exc)
    try:
        return answer.status_code, answer.json()
    except ValueError:
        return answer.status_code, answer.text


class Producer(threading.Thread):
    """Emits jobs of random projects until stopped."""

    kind = "producer"

    def __init__(self, stack: ChaosStack, plan: ChaosPlan, ledger: Ledger, **deps: Any) -> None:
        super().__init__(name=f"chaos-{self.kind}", daemon=True)
        self.stack, self.ledger = stack, ledger
        self.rng = plan.rng(self.kind)
        self.projects: list[str] = deps["projects"]
        self.jobs = Jobs(self.rng, f"service:chaos-{self.kind}", deps["versions"])
        self.stop_event = threading.Event()
        self.failures: list[str] = []

    def run(self) -> None:
        try:
            while not self.stop_event.is_set():
                project = self.rng.choice(self.projects)
                self.send_job(project, self.jobs.job(project, self.projects))
                self.stop_event.wait(self.rng.uniform(0.05, 0.4))
        except Exception as exc:  # a producer that dies must say so in the report
            self.failures.append(f"{self.kind} stopped: {type(exc).__name__}: {exc}")

    def send_job(self, project: str, events: list[Event]) -> None:
        raise NotImplementedError

    def close(self, timeout_s: float) -> None:
        """Called once the thread has ended: deliver what is left, release clients."""


class Recording(Transport):
    """A transport that notes how each send went, then answers as the one it wraps."""

    def __init__(self, inner: Transport, producer: str, ledger: Ledger) -> None:
        self.inner, self.producer, self.ledger = inner, producer, ledger

    def send(self, batch: list[Event]) -> None:
        try:
            self.inner.send(batch)
        except Exception as exc:
            self.ledger.outcome(self.producer, f"{type(exc).__name__}: {exc}"[:90], len(batch))
            raise
        self.ledger.outcome(self.producer, "delivered", len(batch))

    def close(self) -> None:
        self.inner.close()

    def describe(self) -> str:
        return self.inner.describe()


class SdkProducer(Producer):
    """`provgraph.client.Emitter`: acknowledged is what `emit` accepted."""

    def __init__(self, *args: Any, transport: str, spool: Path, **deps: Any) -> None:
        self.kind = SDK_KAFKA if transport == "kafka" else SDK_HTTP
        super().__init__(*args, **deps)
        self.spool = spool / self.kind
        self.emitters: dict[str, Emitter] = {}
        for project in self.projects if transport == "http" else ["all"]:
            self.emitters[project] = Emitter(
                Recording(self._transport(transport, project), self.kind, self.ledger),
                name=f"chaos-{self.kind}-{project}",
                spool_dir=self.spool / project,
                batch_size=50,
                linger_s=0.05,
                retry_initial_s=0.2,
                retry_max_s=2.0,
            )

    def _transport(self, transport: str, project: str) -> KafkaTransport | HttpTransport:
        s = self.stack.settings
        if transport == "kafka":
            return KafkaTransport(s.kafka_bootstrap, topic=s.events_topic)
        return HttpTransport(self.stack.ingest_url, token=self.stack.tokens[project])

    def send_job(self, project: str, events: list[Event]) -> None:
        emitter = self.emitters.get(project) or self.emitters["all"]
        for event in events:
            entry = self.ledger.add(of_event(self.kind, event))
            emitter.emit(event)
            self.ledger.ack(entry)
            time.sleep(self.rng.uniform(0.0, 0.05))

    def close(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        for project, emitter in self.emitters.items():
            if not emitter.close(timeout=max(1.0, deadline - time.monotonic())):
                self.failures.append(
                    f"{self.kind}: emitter of {project} did not deliver everything in "
                    f"{timeout_s:.0f}s ({emitter.pending} events pending)"
                )
        for rejected in sorted(self.spool.rglob("rejected.jsonl")):
            lines = rejected.read_text(errors="replace").splitlines()
            if lines:
                self.failures.append(
                    f"{self.kind}: {len(lines)} emitted events refused for good "
                    f"({rejected}), the first: {lines[0][:300]}"
                )


class HttpProducer(Producer):
    """POST /v1/events in small batches with the project's writer token."""

    kind = HTTP

    def __init__(self, *args: Any, **deps: Any) -> None:
        super().__init__(*args, **deps)
        self.client = httpx.Client(timeout=15.0)

    def send_job(self, project: str, events: list[Event]) -> None:
        while events:
            size = self.rng.randint(1, 4)
            batch, events = events[:size], events[size:]
            self._send(project, [self.ledger.add(of_event(self.kind, e)) for e in batch])

    def _send(self, project: str, entries: list[Sent]) -> None:
        body = b"[" + b",".join(e.value for e in entries) + b"]"
        deadline = time.monotonic() + RETRY_FOR_S
        while time.monotonic() < deadline:
            token = self.stack.tokens[project]
            status, answer = post(self.client, self.stack.ingest_url, token, body)
            self.ledger.answered(entries, status)
            if status == 202:
                for entry, where in zip(entries, answer["events"], strict=True):
                    self.ledger.ack(entry, (where["partition"], where["offset"]))
                return
            if 400 <= status < 500 and status not in (408, 429):
                self.failures.append(f"http: legitimate batch refused {status}: {answer}")
                return
            time.sleep(0.5)  # 0 (no answer), 5xx, 408, 429: try again

    def close(self, timeout_s: float) -> None:
        self.client.close()


class RawKafkaProducer(Producer):
    """Event JSON written straight to the topic, keyed by subject, one record at a time."""

    kind = RAW_KAFKA

    def __init__(self, *args: Any, **deps: Any) -> None:
        super().__init__(*args, **deps)
        s = self.stack.settings
        self.raw = RawKafka(s.kafka_bootstrap, s.events_topic)

    def send_job(self, project: str, events: list[Event]) -> None:
        for event in events:
            entry = self.ledger.add(of_event(self.kind, event))
            where = self.raw.send(event.kafka_key(), entry.value)
            if where is not None:
                self.ledger.ack(entry, where)

    def close(self, timeout_s: float) -> None:
        self.raw.close()


def start_producers(
    stack: ChaosStack, plan: ChaosPlan, ledger: Ledger, projects: list[str], spool: Path
) -> list[Producer]:
    """One producer of each kind, started."""
    deps: dict[str, Any] = {"projects": projects, "versions": DatasetVersions()}
    producers: list[Producer] = [
        SdkProducer(stack, plan, ledger, transport="kafka", spool=spool, **deps),
        SdkProducer(stack, plan, ledger, transport="http", spool=spool, **deps),
        HttpProducer(stack, plan, ledger, **deps),
        RawKafkaProducer(stack, plan, ledger, **deps),
    ]
    for producer in producers:
        producer.start()
    return producers


def stop_producers(producers: list[Producer], budget_s: float = RETRY_FOR_S + 30) -> list[str]:
    """Stop every producer and let it deliver what it holds, all within `budget_s`; what went
    wrong on the way."""
    deadline = time.monotonic() + budget_s
    for producer in producers:
        producer.stop_event.set()
    for producer in producers:
        producer.join(timeout=max(1.0, deadline - time.monotonic()))
        if producer.is_alive():
            producer.failures.append(f"{producer.kind}: still sending after {budget_s:.0f}s")
        producer.close(max(1.0, deadline - time.monotonic()))
    return [f for p in producers for f in p.failures]
