"""The ways the same events reach Neo4j: end to end through Kafka and the projector, the raw
UNWIND limit, the naive one-transaction-per-event projector; and the graph check.

A reference is given the same inputs as the side it checks. A side fed through the log
(end to end, replay, the projector through a backlog, W1) is compared with the fold of that
log exactly as `provgraph verify` folds it (`log_digest`: every record with its log stamp,
`logged_at` and `principal`, through the projector's screens), computed after the timed part
(or, for the memory part, which times nothing, beside it). Only the sides that never pass
through the log (the UNWIND limit, the naive projector) are compared with the fold of the
bare events."""

from __future__ import annotations

import itertools
import multiprocessing as mp
import pickle
import re
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar

from benchmarks.servers import PrivateInfra
from benchmarks.workload import QueryRoots
from provgraph.ingest.projection import EventMutations, project_event
from provgraph.ingest.projector.run import build_projector
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.ingest.settings import IngestSettings
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.ingest.tools.spilled_graph import SpilledGraph
from provgraph.ingest.tools.verify import graph_hash, log_digest, summary_of, verify
from provgraph.schemas import Event

BATCH = 5000  # events per writer call on the limit side: the projector's max poll batch


class BenchmarkError(Exception):
    """A benchmark's result failed its check: no time is reported for it."""


FOLD_OF_LOG = "equal to the fold of the log"
FOLD_BUT_NUMBERS = "equal to the fold of the log, numbers apart"
FOLD_OF_EVENTS = "equal to the fold of the events"


@dataclass(frozen=True)
class Reference:
    """The graph a side must leave in Neo4j: its digest, what it is the fold of, and for the
    fold of a log, that log's settings (a difference is then explained as `verify` does)."""

    digest: str
    what: str
    log: IngestSettings | None = None


T = TypeVar("T")


class Spilled(Generic[T]):
    """Items written once to a file in pickled chunks and read back a chunk at a time: what
    is held is one chunk, whatever the workload's size (10M records do not fit beside Neo4j)."""

    def __init__(self, items: Iterable[T] = (), chunk: int = BATCH) -> None:
        handle = tempfile.NamedTemporaryFile(prefix="bench-", suffix=".pkl", delete=False)  # noqa: SIM115
        self.path, self.count, self._chunk = Path(handle.name), 0, chunk
        self._file = handle
        weakref.finalize(self, self.path.unlink, missing_ok=True)
        self.extend(items)

    def extend(self, items: Iterable[T]) -> None:
        buffer: list[T] = []
        for item in items:
            buffer.append(item)
            if len(buffer) == self._chunk:
                self._flush(buffer)
        self._flush(buffer)

    def _flush(self, buffer: list[T]) -> None:
        if buffer:
            pickle.dump(buffer, self._file, protocol=pickle.HIGHEST_PROTOCOL)
            self.count += len(buffer)
            buffer.clear()
        self._file.flush()

    def __len__(self) -> int:
        return self.count

    def chunks(self) -> Iterator[list[T]]:
        """The items in their chunks, in order."""
        yield from read_chunks(self.path)

    def __iter__(self) -> Iterator[T]:
        for chunk in self.chunks():
            yield from chunk

    def head(self, count: int) -> list[T]:
        """The first `count` items."""
        return list(itertools.islice(self, count))


def _batched(items: Iterable[Event], size: int) -> Iterator[list[Event]]:
    iterator = iter(items)
    while chunk := list(itertools.islice(iterator, size)):
        yield chunk


def read_chunks(path: Path) -> Iterator[list[Any]]:
    """The chunks of a `Spilled` file (also read by the producer process)."""
    with path.open("rb") as file:
        while True:
            try:
                yield pickle.load(file)
            except EOFError:
                return


@dataclass
class Prepared:
    """The workload in every form the sides need, built in one pass over the event stream
    before any clock starts: records and projected changes spilled to files (`Spilled`), the
    fold of the bare events, the queries' start nodes and the first events (the naive side's
    sample). No form holds every event at once. Without `fold` (no side bypasses the log),
    the bare events are not folded: at 10M events that fold alone takes most of an hour."""

    records: Spilled[tuple[bytes, bytes]]
    changes: Spilled[EventMutations]
    bare: Reference | None  # the fold of the bare events: for the sides that bypass the log
    roots: tuple[list[str], list[str]]
    events: list[Event]  # the first HEAD events only

    HEAD: ClassVar[int] = 10_000

    @classmethod
    def of(cls, events: Iterable[Event], fold: bool = True, project: bool = True) -> Prepared:
        """Without `project` (no side writes projected changes: the parts that only produce
        the log and project it themselves), the events are neither projected nor spilled as
        changes, and `changes` stays empty: at 10M events that is most of the preparation."""
        records: Spilled[tuple[bytes, bytes]] = Spilled()
        changes: Spilled[EventMutations] = Spilled()
        roots, head = QueryRoots(), list[Event]()
        with SpilledGraph() as graph:  # the fold of S events, its events and series on disk
            for chunk in _batched(events, BATCH):
                records.extend((e.kafka_key(), e.to_json_bytes()) for e in chunk)
                listed = [roots.add(e) for e in chunk]
                projected = [project_event(e) for e in listed] if project or fold else []
                if project:
                    changes.extend(projected)
                for change in projected if fold else ():
                    graph.apply(change)
                head.extend(chunk[: cls.HEAD - len(head)])
            bare = Reference(summary_of(graph).digest(), FOLD_OF_EVENTS) if fold else None
        return cls(records, changes, bare, roots.result(), head)


def events_reference(events: Sequence[Event]) -> Reference:
    """The fold of the bare events, as written straight to Neo4j (no log, no stamps)."""
    return Reference(summary_of(MemoryGraph().fold(events)).digest(), FOLD_OF_EVENTS)


def log_reference(infra: PrivateInfra, topic: str) -> Reference:
    """The fold of the log in `topic`, by `provgraph verify`'s own function: never timed."""
    settings = infra.ingest_settings(topic)
    return Reference(log_digest(settings), FOLD_OF_LOG, settings)


def log_reference_beside(infra: PrivateInfra, topic: str) -> Callable[[], Reference]:
    """`log_reference` folded in a thread of its own while the caller works on; the returned
    callable waits for it (raising what the fold raised). A daemon thread: a benchmark that
    fails meanwhile stops at once, its private servers with it."""
    outcome: list[Reference | BaseException] = []

    def fold() -> None:
        try:
            outcome.append(log_reference(infra, topic))
        except BaseException as exc:  # handed to the waiting caller
            outcome.append(exc)

    thread = threading.Thread(target=fold, name="log-reference", daemon=True)
    thread.start()

    def result() -> Reference:
        thread.join()
        if isinstance(outcome[0], BaseException):
            raise outcome[0]
        return outcome[0]

    return result


def check_graph(infra: PrivateInfra, reference: Reference, what: str) -> str:
    """The Neo4j graph must equal the reference, or nothing counts; returns what it equals."""
    actual = graph_hash(infra.driver)
    if actual != reference.digest:
        detail = ""
        if reference.log is not None:  # the first differences, as `provgraph verify` lists them
            detail = ":\n  " + "\n  ".join(verify(reference.log, infra.driver)[:10])
        raise BenchmarkError(
            f"{what}: Neo4j graph {actual[:12]} is not {reference.what}"
            f" ({reference.digest[:12]}){detail}"
        )
    return reference.what


# A difference `verify` lists in an experiment's or a run's number (or the number it claimed).
_NUMBER_DIFFERENCE = re.compile(r"^node \S+: (_v_)?(run_)?number(_claimed)? = ")


def beyond_numbers(differences: Sequence[str]) -> list[str]:
    """Those of `verify`'s `differences` that are not in an experiment's or a run's number."""
    return [d for d in differences if not _NUMBER_DIFFERENCE.match(d)]


def check_graph_but_numbers(infra: PrivateInfra, reference: Reference, what: str) -> str:
    """The Neo4j graph must equal the reference but for experiment and run numbers, which a
    projector group gives in its members' own order unless told otherwise (operations.md,
    the scale-out paragraph); returns what it equals (the same whether numbers differ or not:
    how many do depends on the members' pace)."""
    if graph_hash(infra.driver) == reference.digest:
        return FOLD_BUT_NUMBERS
    if reference.log is None:
        raise BenchmarkError(f"{what}: no log to tell numbers from other differences")
    others = beyond_numbers(verify(reference.log, infra.driver, limit=10**9))
    if others:
        raise BenchmarkError(
            f"{what}: Neo4j graph is not {reference.what} beyond its numbers:\n  "
            + "\n  ".join(others[:10])
        )
    return FOLD_BUT_NUMBERS


# -- producing --------------------------------------------------------------------------------


def _produce_child(path: str, settings: dict[str, Any], go: Any, out: Any) -> None:
    from kafka import KafkaProducer

    from provgraph.client.kafka_log import producer_config

    s = IngestSettings(**settings)
    config = producer_config(
        s.kafka_bootstrap,
        timeout_s=s.produce_timeout_s,
        compression=s.produce_compression,
        linger_ms=s.produce_linger_ms,
        client_id="bench-producer",
    )
    producer = KafkaProducer(**config)
    topic = settings["events_topic"]
    go.wait()
    start = time.perf_counter()
    for chunk in read_chunks(Path(path)):  # a chunk at a time: 10M records do not fit
        for key, value in chunk:
            producer.send(topic, key=key, value=value)
    producer.flush()
    out.put(time.perf_counter() - start)
    producer.close()


class ProducerProcess:
    """The producer in its own process (as producers are), released by `go()`."""

    def __init__(self, records: Spilled[tuple[bytes, bytes]], settings: IngestSettings) -> None:
        ctx = mp.get_context("spawn")
        self._go, self._out = ctx.Event(), ctx.Queue()
        # Throughput settings: a longer linger fills batches; the timeout covers a backlog.
        values = {**settings.model_dump(), "produce_linger_ms": 20, "produce_timeout_s": 120.0}
        self.process = ctx.Process(
            target=_produce_child, args=(str(records.path), values, self._go, self._out)
        )
        self.process.start()

    def go(self) -> None:
        self._go.set()

    def check(self) -> None:
        """Raise when the producer died without finishing."""
        code = self.process.exitcode
        if code not in (None, 0):
            raise BenchmarkError(f"the producer process failed (exit code {code})")

    def seconds(self) -> float:
        value = float(self._out.get(timeout=600))
        self.process.join(30)
        return value


def fill_topic(infra: PrivateInfra, data: Prepared, stem: str) -> str:
    """A new topic holding every event of `data` (a backlog)."""
    topic = infra.new_topic(stem)
    producer = ProducerProcess(data.records, infra.ingest_settings(topic))
    producer.go()
    producer.seconds()
    return topic


# -- the sides ------------------------------------------------------------------------------------


def end_to_end(
    infra: PrivateInfra, data: Prepared, settings: IngestSettings | None = None
) -> tuple[float, str]:
    """Produce while a live projector applies it; seconds until the last event is committed in
    Neo4j (and so queryable). Returns (seconds, topic). Without `settings`, into a fresh topic
    on an emptied graph; with them, onto their topic and their group's graph as left by the
    earlier calls (a service that keeps running), whose log then folds to the whole graph."""
    if settings is None:
        infra.clear_graph()
        settings = infra.ingest_settings(infra.new_topic("e2e"))
    topic, expected = settings.events_topic, infra.count_applied() + len(data.records)
    producer = ProducerProcess(data.records, settings)
    projector = build_projector(settings, infra.driver)
    try:
        while not projector.source.assigned():  # a running projector has joined already
            projector.step()
        time.sleep(1.0)  # the child process has started and connected
        producer.go()
        start = time.perf_counter()
        while projector.stats.records < len(data.records):
            if projector.step() == 0:
                producer.check()
        seconds = time.perf_counter() - start
        producer.seconds()
    finally:
        projector.close()
    if infra.count_applied() != expected:
        raise BenchmarkError("end to end: not every event was applied")
    return seconds, topic


def _changes(data: Prepared) -> Spilled[EventMutations]:
    """The projected changes; a workload prepared without them (`project=False`) has none."""
    if data.changes.count != data.records.count:
        raise BenchmarkError("the workload was prepared without its projected changes")
    return data.changes


def limit(infra: PrivateInfra, data: Prepared) -> float:
    """The same graph written straight with the UNWIND writer: no Kafka, no parsing."""
    infra.clear_graph()
    return _write_batches(infra, _changes(data).chunks())


def warm_up(infra: PrivateInfra, data: Prepared, count: int = 20_000) -> None:
    """Write the first `count` events with the writer, then empty the graph again."""
    infra.clear_graph()
    _write_batches(infra, itertools.islice(_changes(data).chunks(), -(-count // BATCH)))
    infra.clear_graph()


def _write_batches(infra: PrivateInfra, batches: Iterable[list[EventMutations]]) -> float:
    """Seconds in the writer alone: reading the next chunk from its file is not the limit's."""
    writer, seconds = GraphWriter(infra.driver), 0.0
    for batch in batches:  # chunks of BATCH events, read from the spill file
        start = time.perf_counter()
        writer.write(batch)
        seconds += time.perf_counter() - start
    return seconds


def naive(infra: PrivateInfra, data: Prepared, count: int) -> float:
    """Each of the first `count` events applied in its own transaction; seconds per event."""
    infra.clear_graph()
    writer = GraphWriter(infra.driver)
    start = time.perf_counter()
    for change in _changes(data).head(count):
        writer.write([change])
    return (time.perf_counter() - start) / count
