"""The end of a chaos run: the log, the dead letters and the graph, checked against the ledger.

Invariants:
- every acknowledged record is in the event log;
- every record in the log is one the run sent;
- every legitimate event in the log is applied, never dead-lettered; every hostile record in
  the log is dead-lettered with one of its expected reasons and never applied; applied and
  dead-lettered never both, never neither;
- a hostile record refused over HTTP got a 4xx answer (never a 500);
- the Neo4j graph hash equals the in-memory fold of the legitimate, non-dead-lettered records
  (so no hostile record had any effect on any project), and `verify` agrees with Neo4j.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from neo4j import Driver

from provgraph.ingest.graphread import read_graph
from provgraph.ingest.projection.canonical import diff
from provgraph.ingest.projector.loop import parse_records
from provgraph.ingest.settings import IngestSettings
from provgraph.ingest.tools.log_reader import read_log_in_order
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.ingest.tools.verify import graph_hash, verify

from .ledger import Ledger, Sent

Position = tuple[int, int]
_EVENT_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
EXAMPLES = 5


@dataclass(frozen=True)
class Applied:
    """An AppliedEvent node's identity: its payload hash (when stored), actor and time."""

    payload_hash: str | None
    actor: str | None
    occurred_at: str | None


@dataclass
class Findings:
    """Failures by category (each with a few examples) and the counts of what happened."""

    failures: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    counts: Counter[str] = field(default_factory=Counter)
    dead_letters: Counter[str] = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)

    def fail(self, category: str, example: str) -> None:
        self.failures[category].append(example)

    def lines(self) -> list[str]:
        out = []
        for category, examples in sorted(self.failures.items()):
            out.append(f"FAIL {category}: {len(examples)}")
            out += [f"    {e}" for e in examples[:EXAMPLES]]
        return out


def read_all(settings: IngestSettings, topic: str) -> list[Any]:
    """Every record of `topic` from its beginning to its end now."""
    on = settings.model_copy(update={"events_topic": topic})
    return [record for batch in read_log_in_order(on) for record in batch]


def _header(record: Any, word: str) -> str | None:
    """The value of the first header whose name holds `word` (e.g. source.partition)."""
    for key, value in record.headers or ():
        if word in key.lower():
            return bytes(value).decode("utf-8", "replace")
    return None


def dead_letters(records: list[Any]) -> dict[Position, list[str]]:
    """The reasons of the dead letters, by the position of their source record."""
    found: dict[Position, list[str]] = defaultdict(list)
    for record in records:
        partition, offset = _header(record, "partition"), _header(record, "offset")
        reason = _header(record, "provgraph-reason")
        if reason is None:
            reason = f"<no provgraph-reason header; error.class={_header(record, 'class')}>"
        if partition is None or offset is None:
            found[(-1, -1)].append(reason)
        else:
            found[(int(partition), int(offset))].append(reason)
    return found


def applied_events(driver: Driver) -> dict[str, Applied]:
    query = (
        "MATCH (e:AppliedEvent) RETURN e.event_id AS id, e.payload_hash AS hash, "
        "e.actor AS actor, e.occurred_at AS at"
    )
    records, _, _ = driver.execute_query(query)
    return {str(r["id"]): Applied(r["hash"], r["actor"], r["at"]) for r in records}


class Audit:
    """Checks one finished run; `run()` returns the findings."""

    def __init__(self, settings: IngestSettings, driver: Driver, ledger: Ledger) -> None:
        self.settings, self.driver, self.ledger = settings, driver, ledger
        self.findings = Findings()
        self.log = read_all(settings, settings.events_topic)
        self.dead = dead_letters(read_all(settings, settings.dead_letter_topic))
        self.applied = applied_events(driver)
        self.where: dict[int, list[Any]] = defaultdict(list)  # id(entry) -> its records
        self.entry_of: dict[Position, Sent] = {}

    def run(self) -> Findings:
        self._place_records()
        for entry in self.ledger.entries:
            self._check_entry(entry)
        self._check_applied_ids()
        self._check_graph()
        return self.findings

    def _place_records(self) -> None:
        for record in self.log:
            entry = self.ledger.find(record.value or b"")
            if entry is None:
                excerpt = (record.value or b"")[:160]
                self.findings.fail("a record in the log that nobody sent", repr(excerpt))
                continue
            self.where[id(entry)].append(record)
            self.entry_of[(record.partition, record.offset)] = entry
        for position, reasons in self.dead.items():
            for reason in reasons:
                self.findings.dead_letters[reason] += 1
            if position not in self.entry_of:
                self.findings.fail("a dead letter of no record of the log", f"{position} {reasons}")

    def _is_applied(self, entry: Sent) -> bool:
        node = self.applied.get(entry.event_id or "")
        if node is None:
            return False
        if entry.hash is None:
            return True  # no valid event: any node under its id came from it
        if node.payload_hash is not None:
            return node.payload_hash == entry.hash
        return (node.actor, node.occurred_at) == (entry.actor, entry.occurred_at)

    def _check_entry(self, entry: Sent) -> None:
        records = self.where.get(id(entry), [])
        f = self.findings
        if entry.acked and not records:
            f.fail(f"acknowledged but not in the log ({entry.producer})", entry.label())
        if not records:
            if entry.hostile and not entry.acked:
                self._check_refusal(entry)
            return
        reasons = sorted({r for rec in records for r in self.dead.get(_pos(rec), [])})
        applied = self._is_applied(entry)
        outcome = "applied" if applied and not reasons else "dead-lettered" if reasons else ""
        f.counts[f"{'hostile' if entry.hostile else 'legit'} {outcome or 'neither'}"] += 1
        if applied and reasons:
            f.fail("both applied and dead-lettered", f"{entry.label()} {reasons}")
        elif not applied and not reasons:
            f.fail(f"neither applied nor dead-lettered ({entry.kind})", entry.label())
        elif not entry.hostile and reasons:
            f.fail(f"legitimate event dead-lettered {reasons}", entry.label())
        elif entry.hostile and applied:
            f.fail(f"hostile record applied ({entry.kind})", entry.label())
        elif entry.hostile and not set(reasons) <= entry.expected_reasons:
            want = sorted(entry.expected_reasons)
            f.fail(f"{entry.kind} dead-lettered as {reasons}, not one of {want}", entry.label())

    def _check_refusal(self, entry: Sent) -> None:
        status = entry.statuses[-1] if entry.statuses else 0
        self.findings.counts[f"hostile refused {status}"] += 1
        if status >= 500 and status != 503:
            self.findings.fail(f"ingest answered {status} to {entry.kind}", entry.label())
        elif status in (0, 503):
            self.findings.notes.append(f"{entry.label()}: no answer but {entry.statuses}")
        elif status not in entry.expected_statuses:
            want = sorted(entry.expected_statuses)
            self.findings.notes.append(f"{entry.kind} refused with {status}, expected {want}")

    def _check_applied_ids(self) -> None:
        sent = {e.event_id for e in self.ledger.entries}
        for event_id in sorted(set(self.applied) - sent):
            self.findings.fail("an applied event that nobody sent", event_id)
        hashes = sum(1 for a in self.applied.values() if a.payload_hash is not None)
        if hashes < len(self.applied):
            self.findings.notes.append(
                f"{len(self.applied) - hashes} of {len(self.applied)} AppliedEvent nodes have no "
                "payload_hash: a reused event_id is told apart by actor and time only"
            )

    def _expected(self) -> MemoryGraph:
        """The fold of the legitimate records that were not dead-lettered, in log order."""
        keep = [
            r
            for r in sorted(self.log, key=_pos)
            if (e := self.entry_of.get(_pos(r))) is not None
            and not e.hostile
            and _pos(r) not in self.dead
        ]
        parsed = parse_records(keep)
        for record, error in parsed.poison:
            self.findings.fail(
                "a legitimate record the projection refuses", f"{_pos(record)} {error}"
            )
        graph = MemoryGraph()
        graph.write(parsed.changes)
        return graph

    def _check_graph(self) -> None:
        expected = self._expected()
        want, got = expected.canonical().digest(), graph_hash(self.driver)
        self.findings.notes.append(f"graph hash {got} (fold of the legitimate records: {want})")
        if want != got:
            projects = sorted({e.project or "" for e in self.ledger.entries})
            for project in projects:
                lines = diff(expected.canonical(project), read_graph(self.driver, project))
                for line in lines[:EXAMPLES]:
                    self.findings.fail(
                        f"graph of {project} differs from the fold", self._kinds(line)
                    )
            if not any(k.startswith("graph of") for k in self.findings.failures):
                for line in diff(expected.canonical(), read_graph(self.driver))[:EXAMPLES]:
                    self.findings.fail("graph differs from the fold", line)
        try:
            differences = verify(self.settings, self.driver)
        except Exception as exc:  # the audit tool failing on the log is a finding too
            self.findings.fail("`verify` fails on this log", f"{type(exc).__name__}: {exc}")
            return
        for line in differences:
            self.findings.fail("`verify` (the log's fold) differs from Neo4j", self._kinds(line))

    def _kinds(self, line: str) -> str:
        """`line` with the kinds of the records its event ids belong to (what they were)."""
        found = _EVENT_ID.findall(line)
        kinds = sorted({e.kind for e in self.ledger.entries if e.event_id in found})
        return f"{line}  [{', '.join(kinds)}]" if kinds else line


def _pos(record: Any) -> Position:
    return int(record.partition), int(record.offset)
