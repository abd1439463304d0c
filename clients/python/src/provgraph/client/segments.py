"""The spool's files: segment lines, the acknowledgement mark, the rejected file, the lock.

A segment line is ``{"seq":<n>,"event":<the event's canonical JSON>}`` and a newline. The
seq is read from the line's prefix, so skipping lines already acknowledged costs no JSON
parsing. The acknowledgement file holds one decimal seq per line; the largest one counts.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from provgraph.schemas import Event, parse_event

log = logging.getLogger(__name__)

SEGMENT_GLOB = "segment-*.jsonl"
ACK_FILE = "acked"
REJECTED_FILE = "rejected.jsonl"
LOCK_FILE = ".lock"

_PREFIX = b'{"seq":'
_EVENT_KEY = b',"event":'


class SpoolLockedError(OSError):
    """Another live process holds this spool directory."""


@dataclass(frozen=True, slots=True)
class SpoolRecord:
    """One event, its place in the emit order and its canonical JSON (as written)."""

    seq: int
    event: Event
    data: bytes


@dataclass(slots=True)
class Segment:
    """One segment file and what the spool knows about it."""

    number: int
    path: Path
    last_seq: int = 0
    size: int = 0
    sealed: bool = True
    """No more lines will be written to it (an incomplete last line is a torn one)."""
    read_through: bool = False
    """Every line is known to be readable or was read: it may go once `last_seq` is acked."""


def encode(first_seq: int, events: Sequence[bytes]) -> bytes:
    """The segment lines of `events` (canonical JSON), numbered from `first_seq` on."""
    if len(events) == 1:  # the common case: one emit
        return b'{"seq":%d,"event":%s}\n' % (first_seq, events[0])
    return b"".join(
        [b'{"seq":%d,"event":%s}\n' % (first_seq + i, data) for i, data in enumerate(events)]
    )


def line_seq(line: bytes) -> int | None:
    """The seq of a segment line, from its prefix; None when the line is not one."""
    if not line.startswith(_PREFIX):
        return None
    end = line.find(b",", len(_PREFIX))
    try:
        return int(line[len(_PREFIX) : end])
    except ValueError:
        return None


def line_record(seq: int, line: bytes) -> SpoolRecord:
    """The record of a complete segment line; `ContractError` or `ValueError` when unreadable."""
    start = line.find(_EVENT_KEY)
    body = line.rstrip(b"\n")
    if start < 0 or not body.endswith(b"}"):
        raise ValueError("not a spool line")
    data = body[start + len(_EVENT_KEY) : -1]
    return SpoolRecord(seq, parse_event(data), data)


def segment_path(directory: Path, number: int) -> Path:
    return directory / f"segment-{number:09d}.jsonl"


def segment_number(path: Path) -> int:
    try:
        return int(path.stem.removeprefix("segment-"))
    except ValueError:
        return 0


@dataclass(frozen=True, slots=True)
class Scanned:
    """A segment as found on disk when a spool is opened."""

    segment: Segment
    pending: int
    """Lines not acknowledged, or without a readable seq (the reader moves those aside)."""
    first_seq: int
    ordered: bool
    """Its seqs increase line by line."""


def scan(path: Path, acked: int) -> Scanned:
    """What the segment at `path` holds."""
    data = path.read_bytes()
    segment = Segment(segment_number(path), path, size=len(data))
    pending, first, ordered = 0, 0, True
    for line in data.splitlines(keepends=True):
        seq = line_seq(line) if line.endswith(b"\n") else None
        if seq is None or seq > acked:
            pending += 1
        if seq is not None:
            ordered = ordered and seq > segment.last_seq
            first = first or seq
            segment.last_seq = max(segment.last_seq, seq)
    return Scanned(segment, pending, first, ordered)


def in_order(scanned: Sequence[Scanned]) -> bool:
    """Whether the journal's seqs increase from line to line across the segments."""
    last = 0
    for found in scanned:
        if not found.ordered or (found.first_seq and found.first_seq <= last):
            return False
        last = max(last, found.segment.last_seq)
    return True


def sort_journal(directory: Path, paths: Sequence[Path], number: int) -> None:
    """Rewrite segments whose lines are out of seq order (spools of earlier versions of the
    SDK could be) as one segment in seq order; a seq seen twice is kept once. Lines without
    a seq go last, for the reader to move aside."""
    keyed: dict[int, bytes] = {}
    loose: list[bytes] = []
    for path in paths:
        for line in path.read_bytes().splitlines(keepends=True):
            seq = line_seq(line) if line.endswith(b"\n") else None
            if seq is None:
                loose.append(line.rstrip(b"\n") + b"\n")
            else:
                keyed.setdefault(seq, line)
    target = segment_path(directory, number)
    tmp = target.with_suffix(".tmp")
    with open(tmp, "wb") as out:
        out.write(b"".join([keyed[seq] for seq in sorted(keyed)] + loose))
        out.flush()
        os.fsync(out.fileno())
    tmp.replace(target)
    for path in paths:
        path.unlink()
    fsync_dir(directory)


def read_ack(path: Path) -> int:
    """The acknowledged seq recorded in `path` (0 when there is none)."""
    try:
        lines = path.read_bytes().splitlines()
    except FileNotFoundError:
        return 0
    return max((int(line) for line in lines if line.strip().isdigit()), default=0)


def write_ack(path: Path, seq: int) -> None:
    """Replace `path` by one holding just `seq` (atomically: a crash leaves old or new)."""
    tmp = path.with_suffix(".tmp")
    with open(tmp, "wb") as out:
        out.write(b"%d\n" % seq)
        out.flush()
        os.fsync(out.fileno())
    tmp.replace(path)


def rejected_lines(events: list[Event], reason: str) -> bytes:
    """``rejected.jsonl`` lines: ``{"rejected_at", "reason", "event"}``."""
    now = datetime.now(UTC).isoformat().replace("+00:00", "Z")
    out = []
    for event in events:
        data = {"rejected_at": now, "reason": reason, "event": json.loads(event.to_json_bytes())}
        out.append(json.dumps(data, sort_keys=True, ensure_ascii=False) + "\n")
    return "".join(out).encode()


def raw_rejected_line(line: bytes, reason: str) -> bytes:
    """A ``rejected.jsonl`` line for a spool line that cannot be read: ``{"reason", "raw"}``."""
    raw = line.decode("utf-8", errors="replace").rstrip("\n")
    return (json.dumps({"reason": reason, "raw": raw}, ensure_ascii=False) + "\n").encode()


def append_durably(path: Path, data: bytes) -> None:
    """Append `data` to `path` and fsync it (for the rare files: rejected events)."""
    with open(path, "ab") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())


def fsync_dir(directory: Path) -> None:
    """Make created, renamed and deleted names in `directory` survive a machine crash."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_all(fd: int, data: bytes, size: int) -> None:
    """Write all of `data` or nothing: a failure cuts the file back to `size` (whole lines)."""
    try:
        written = os.write(fd, data)
        if written < len(data):  # rare for a regular file (a signal, a full disk): go on
            view = memoryview(data)[written:]
            while view:
                view = view[os.write(fd, view) :]
    except OSError:
        try:
            os.ftruncate(fd, size)
        except OSError:
            log.exception("provgraph: could not cut a spool segment back to whole lines")
        raise


def lock(path: Path, *, create: bool) -> int:
    """Lock `path` (flock: the kernel releases it when the process dies, however it dies)."""
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
        except FileNotFoundError:  # the directory is gone (drained and removed meanwhile)
            if not create:
                raise
            path.parent.mkdir(parents=True, exist_ok=True)
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise SpoolLockedError(f"spool {path.parent} is in use by another process") from None
        if same_file(fd, path):
            return fd
        # A drained directory is removed with its lock file: this lock was on the removed
        # file, not on the one a newcomer would lock. Start again on the current name.
        os.close(fd)
        if not create:
            raise FileNotFoundError(path)
        path.parent.mkdir(parents=True, exist_ok=True)


def same_file(fd: int, path: Path) -> bool:
    try:
        return os.fstat(fd).st_ino == os.stat(path).st_ino
    except FileNotFoundError:
        return False
