"""The spool: a durable, ordered backlog of events the transport could not take yet.

Layout of a spool directory::

    segment-<n>.jsonl   pending events, one JSON object per line: {"seq": 17, "event": {...}}
    rejected.jsonl      events the receiver refused for good: {"rejected_at", "reason", "event"}
    .lock               held (flock) by the one emitter using this directory

Every append is flushed and fsync'd before it returns. `seq` is the emitter's global emit
order; readers sort by it, so the order of lines and files does not matter and a batch
that failed mid-flight may be appended after newer events. Replay hands out a snapshot of
the sealed segments; `commit` deletes them once sent, or first rewrites the unsent rest.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from provgraph.schemas import ContractError, Event, parse_event

log = logging.getLogger(__name__)

SEGMENT_GLOB = "segment-*.jsonl"
REJECTED_FILE = "rejected.jsonl"
LOCK_FILE = ".lock"


@dataclass(frozen=True, slots=True)
class SpoolRecord:
    """One pending event and its place in the emit order."""

    seq: int
    event: Event


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The sealed segments handed out for replay and their records in emit order."""

    segments: tuple[Path, ...]
    records: tuple[SpoolRecord, ...]
    lines: int


class SpoolLockedError(OSError):
    """Another live emitter holds this spool directory."""


class Spool:
    """Pending events on disk (JSON lines, fsync'd), read back in emit order. Thread-safe."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)
        self._lock_file = _acquire(directory / LOCK_FILE)
        self._mutex = threading.Lock()
        self._active: IO[str] | None = None
        self._next_segment = 1 + max((_number(p) for p in self._segments()), default=0)
        self._pending, self.max_seq = self._scan()

    @property
    def pending(self) -> int:
        """How many events wait on disk (including those handed out and not committed)."""
        return self._pending

    def append(self, records: list[SpoolRecord]) -> None:
        """Durably add records (fsync'd before returning)."""
        if not records:
            return
        lines = "".join(_line(r) for r in records)
        with self._mutex:
            active = self._active or self._open_segment()
            active.write(lines)
            active.flush()
            os.fsync(active.fileno())
            self._pending += len(records)
            self.max_seq = max(self.max_seq, *(r.seq for r in records))

    def snapshot(self) -> Snapshot:
        """Seal the segments written so far and return them with their records sorted."""
        with self._mutex:
            self._seal()
            segments = tuple(sorted(self._segments(), key=_number))
        records = sorted(
            (r for path in segments for r in self._read(path, report=True)), key=lambda r: r.seq
        )
        return Snapshot(segments, tuple(_unique(records)), len(records))

    def commit(self, snapshot: Snapshot, unsent: list[SpoolRecord]) -> None:
        """Replace the snapshot's segments by the records not sent (none: just delete)."""
        with self._mutex:
            if unsent:
                self._write_segment(unsent)
            for path in snapshot.segments:
                path.unlink(missing_ok=True)
            _fsync_dir(self.directory)
            self._pending = max(self._pending + len(unsent) - snapshot.lines, 0)

    def reject(self, events: list[Event], reason: str) -> None:
        """Keep refused events in ``rejected.jsonl`` so nothing is lost silently."""
        now = datetime.now(UTC).isoformat().replace("+00:00", "Z")
        lines = "".join(_rejected_line(e, reason, now) for e in events)
        with self._mutex, open(self.directory / REJECTED_FILE, "a", encoding="utf-8") as out:
            out.write(lines)
            out.flush()
            os.fsync(out.fileno())

    def close(self) -> None:
        """Seal the active segment and release the directory lock."""
        with self._mutex:
            self._seal()
            self._lock_file.close()

    def _segments(self) -> list[Path]:
        return list(self.directory.glob(SEGMENT_GLOB))

    def _open_segment(self) -> IO[str]:
        path = self.directory / f"segment-{self._next_segment:09d}.jsonl"
        self._next_segment += 1
        self._active = open(path, "a", encoding="utf-8")  # noqa: SIM115  (kept open)
        return self._active

    def _seal(self) -> None:
        if self._active is not None:
            self._active.close()
            self._active = None

    def _write_segment(self, records: list[SpoolRecord]) -> None:
        path = self.directory / f"segment-{self._next_segment:09d}.jsonl"
        self._next_segment += 1
        tmp = path.with_suffix(".tmp")
        with open(tmp, "w", encoding="utf-8") as out:
            out.write("".join(_line(r) for r in records))
            out.flush()
            os.fsync(out.fileno())
        tmp.replace(path)

    def _scan(self) -> tuple[int, int]:
        for stale in self.directory.glob("segment-*.tmp"):
            stale.unlink(missing_ok=True)  # a rewrite that crashed before its rename
        records = [r for path in self._segments() for r in self._read(path, report=False)]
        return len(records), max((r.seq for r in records), default=0)

    def _read(self, path: Path, *, report: bool) -> list[SpoolRecord]:
        records: list[SpoolRecord] = []
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return records
        for number, line in enumerate(text.splitlines(), 1):
            record = self._parse_line(path, number, line, report)
            if record is not None:
                records.append(record)
        return records

    def _parse_line(self, path: Path, number: int, line: str, report: bool) -> SpoolRecord | None:
        if not line.strip():
            return None
        try:
            data: dict[str, Any] = json.loads(line)
            return SpoolRecord(int(data["seq"]), parse_event(data["event"]))
        except (ContractError, ValueError, KeyError, TypeError) as exc:
            # A torn last line (a crash mid-write) or an event this reader cannot parse:
            # move it aside (replay rewrites or deletes the segment), never drop it silently.
            if report:
                log.error(
                    "spool %s line %d is unreadable, moved to %s: %s",
                    path,
                    number,
                    REJECTED_FILE,
                    exc,
                )
                self._reject_raw(line, f"unreadable spool line: {exc}")
            return None

    def _reject_raw(self, line: str, reason: str) -> None:
        with open(self.directory / REJECTED_FILE, "a", encoding="utf-8") as out:
            out.write(json.dumps({"reason": reason, "raw": line}) + "\n")
            out.flush()
            os.fsync(out.fileno())


def _line(record: SpoolRecord) -> str:
    event = record.event.to_json_bytes().decode("utf-8")
    return f'{{"seq":{record.seq},"event":{event}}}\n'


def _rejected_line(event: Event, reason: str, now: str) -> str:
    data = {"rejected_at": now, "reason": reason, "event": json.loads(event.to_json_bytes())}
    return json.dumps(data, sort_keys=True, ensure_ascii=False) + "\n"


def _unique(records: list[SpoolRecord]) -> list[SpoolRecord]:
    seen: set[int] = set()
    out: list[SpoolRecord] = []
    for record in records:
        if record.seq not in seen:
            seen.add(record.seq)
            out.append(record)
    return out


def _number(path: Path) -> int:
    try:
        return int(path.stem.removeprefix("segment-"))
    except ValueError:
        return 0


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _acquire(path: Path) -> IO[str]:
    handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115  (held for the spool's life)
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise SpoolLockedError(f"spool {path.parent} is in use by another emitter") from None
    return handle
