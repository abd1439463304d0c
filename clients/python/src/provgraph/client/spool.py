"""The spool: an append-only journal of emitted events, on disk, and how far it was delivered.

Layout of a spool directory::

    segment-<n>.jsonl   the journal, one line per event in emit order: {"seq":17,"event":{...}}
    acked               the largest seq delivered (one decimal per line; the largest counts)
    rejected.jsonl      events the receiver refused for good: {"rejected_at", "reason", "event"}
    .lock               held (flock) by the one process using this directory

Events are written with `os.write`: once that returns the bytes are the kernel's, and a
process killed right after (SIGKILL, the OOM killer) loses nothing. A sync thread fsyncs
the files in groups, every `fsync_interval_s`, against machine crashes. The sender reads the
journal forward from the acknowledged seq; segments wholly acknowledged are deleted.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path

from provgraph.client import segments as files
from provgraph.client.group_sync import GroupSync
from provgraph.client.segments import REJECTED_FILE, Segment, SpoolLockedError, SpoolRecord
from provgraph.schemas import ContractError, Event

log = logging.getLogger(__name__)

SEGMENT_BYTES = 16 * 1024 * 1024
"""A segment is sealed and a new one started beyond this size."""
_ACK_FILE_BYTES = 64 * 1024
"""The acknowledgement file is rewritten to one line beyond this size."""
_APPEND = os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_CLOEXEC", 0)

__all__ = ["REJECTED_FILE", "Spool", "SpoolLockedError", "SpoolRecord"]


class Spool:
    """One spool directory, owned by this process while it holds the directory's lock.

    Writers keep emit order themselves (one writer at a time, seqs increasing); `read`,
    `ack` and `reject` are the sender's. `create=False` opens only an existing directory
    (to drain what another process left). Thread-safe.
    """

    def __init__(
        self,
        directory: Path,
        *,
        create: bool = True,
        fsync_interval_s: float | None = 0.005,
        segment_bytes: int = SEGMENT_BYTES,
    ) -> None:
        self.directory = directory
        if create:
            directory.mkdir(parents=True, exist_ok=True)
        self._lock_fd = files.lock(directory / files.LOCK_FILE, create=create)
        self._mutex = threading.Lock()
        self._segment_bytes = segment_bytes
        self._fd: int | None = None  # the segment being written
        self._ack_fd: int | None = None
        self._retired: list[int] = []  # fds of sealed segments, fsync'd then closed
        self._dir_dirty = False
        self.acked = files.read_ack(directory / files.ACK_FILE)
        self._segments, self._pending = self._scan()
        self._next_number = 1 + max((s.number for s in self._segments), default=0)
        self.max_seq = max([self.acked, *(s.last_seq for s in self._segments)])
        self._cursor = (self._segments[0].number if self._segments else 0, 0)
        self._syncer = (
            GroupSync(self.sync, fsync_interval_s, str(directory)) if fsync_interval_s else None
        )

    @property
    def pending(self) -> int:
        """Lines written and not yet acknowledged (nor moved aside as unreadable)."""
        return self._pending

    def write(self, first_seq: int, events: Sequence[bytes]) -> None:
        """Append events (their canonical JSON) as the seqs from `first_seq` on, which are
        above every seq written before."""
        if not events:
            return
        data = files.encode(first_seq, events)
        with self._mutex:
            segment, fd = self._writable()
            files.write_all(fd, data, segment.size)
            segment.size += len(data)
            segment.last_seq = self.max_seq = first_seq + len(events) - 1
            self._pending += len(events)
            if segment.size >= self._segment_bytes:
                self._seal()
        if self._syncer is not None:
            self._syncer.poke()

    def read(self, from_seq: int, before_seq: int | None, limit: int) -> list[SpoolRecord]:
        """Up to `limit` records with `from_seq` <= seq < `before_seq`, in journal order.

        Reading goes forward from where the last read started; lines that cannot be read
        (torn by a crash, or an event this version cannot parse) are moved to the rejected
        file once they come first.
        """
        out: list[SpoolRecord] = []
        with self._mutex:
            todo = [s for s in self._segments if s.number >= self._cursor[0]]
        for segment in todo:
            offset = self._cursor[1] if segment.number == self._cursor[0] else 0
            if self._read_segment(segment, offset, (from_seq, before_seq, limit), out):
                break
        return out

    def ack(self, seq: int, count: int) -> None:
        """Record that every record up to `seq` (`count` lines of the journal) was delivered,
        and delete the segments that holds wholly."""
        with self._mutex:
            self.acked = max(self.acked, seq)
            self._pending = max(self._pending - count, 0)
            self._write_ack()
            for segment in [s for s in self._segments if self._done(s)]:
                self._segments.remove(segment)
                segment.path.unlink(missing_ok=True)
        if self._syncer is not None:
            self._syncer.poke()

    def reject(self, events: list[Event], reason: str) -> None:
        """Keep refused events in ``rejected.jsonl`` so nothing is lost silently."""
        data = files.rejected_lines(events, reason)
        with self._mutex:
            files.append_durably(self.directory / files.REJECTED_FILE, data)

    def sync(self) -> None:
        """fsync what was written since the last sync (segments, acknowledgements, names)."""
        with self._mutex:
            fds = [*self._retired, *(fd for fd in (self._fd, self._ack_fd) if fd is not None)]
            retired, self._retired = self._retired, []
            dir_dirty, self._dir_dirty = self._dir_dirty, False
        for fd in fds:
            os.fsync(fd)
        for fd in retired:
            os.close(fd)
        if dir_dirty:
            files.fsync_dir(self.directory)

    def close(self, *, remove: bool = False) -> None:
        """Sync and release the directory; when nothing is pending, delete the journal (and
        with `remove` the directory too, unless a rejected file keeps it)."""
        if self._syncer is not None:
            self._syncer.stop()
        with self._mutex:
            self._seal()
        self.sync()
        with self._mutex:
            if self._ack_fd is not None:
                os.close(self._ack_fd)
                self._ack_fd = None
            if self._pending == 0:
                self._clear(remove)
            os.close(self._lock_fd)

    # -- writing ----------------------------------------------------------------------------

    def _writable(self) -> tuple[Segment, int]:
        if self._fd is not None:
            return self._segments[-1], self._fd
        number, self._next_number = self._next_number, self._next_number + 1
        segment = Segment(number, files.segment_path(self.directory, number), sealed=False)
        segment.read_through = True  # written here: every line is readable
        self._segments.append(segment)
        self._fd = os.open(segment.path, _APPEND, 0o644)
        self._dir_dirty = True
        return segment, self._fd

    def _seal(self) -> None:
        if self._fd is None:
            return
        self._segments[-1].sealed = True
        self._retire(self._fd)
        self._fd = None

    def _retire(self, fd: int) -> None:
        if self._syncer is not None:
            self._retired.append(fd)  # fsync'd and closed by the next sync
        else:
            os.close(fd)

    def _write_ack(self) -> None:
        path = self.directory / files.ACK_FILE
        if self._ack_fd is not None and os.fstat(self._ack_fd).st_size > _ACK_FILE_BYTES:
            self._retire(self._ack_fd)
            self._ack_fd = None
            files.write_ack(path, self.acked)
            self._dir_dirty = True
        if self._ack_fd is None:
            self._ack_fd = os.open(path, _APPEND, 0o644)
        os.write(self._ack_fd, b"%d\n" % self.acked)

    def _done(self, segment: Segment) -> bool:
        return segment.sealed and segment.read_through and segment.last_seq <= self.acked

    def _clear(self, remove: bool) -> None:
        for segment in self._segments:
            segment.path.unlink(missing_ok=True)
        self._segments = []
        (self.directory / files.ACK_FILE).unlink(missing_ok=True)
        if remove:
            (self.directory / files.LOCK_FILE).unlink(missing_ok=True)
            with contextlib.suppress(OSError):  # a rejected file keeps the directory
                self.directory.rmdir()

    # -- reading ----------------------------------------------------------------------------

    def _scan(self) -> tuple[list[Segment], int]:
        for stale in self.directory.glob("segment-*.tmp"):
            stale.unlink(missing_ok=True)  # a rewrite that crashed before its rename
        paths = sorted(self.directory.glob(files.SEGMENT_GLOB), key=files.segment_number)
        scanned = [files.scan(path, self.acked) for path in paths]
        if not files.in_order(scanned):
            files.sort_journal(self.directory, paths, 1 + files.segment_number(paths[-1]))
            return self._scan()
        for found in scanned:
            if not found.pending:
                found.segment.path.unlink(missing_ok=True)  # wholly delivered before a crash
        kept = [found for found in scanned if found.pending]
        return [found.segment for found in kept], sum(found.pending for found in kept)

    def _read_segment(
        self,
        segment: Segment,
        offset: int,
        bounds: tuple[int, int | None, int],
        out: list[SpoolRecord],
    ) -> bool:
        """Read `segment` from `offset` into `out`; True when reading should stop here."""
        from_seq, before_seq, limit = bounds
        try:
            handle = open(segment.path, "rb")  # noqa: SIM115  (closed below)
        except FileNotFoundError:
            return False
        with handle:
            handle.seek(offset)
            while line := handle.readline():
                at, offset = offset, offset + len(line)
                if not line.endswith(b"\n") and not segment.sealed:
                    return True  # being written: the rest comes with a later read
                seq = files.line_seq(line) if line.endswith(b"\n") else None
                if seq is not None and before_seq is not None and seq >= before_seq:
                    return True
                if seq is not None and seq < from_seq:
                    self._move_cursor(out, segment, offset)
                    continue
                record = self._record(seq, line, first=not out)
                if record is None:
                    if out:
                        return True  # moved aside by the next read, once it comes first
                    self._move_cursor(out, segment, offset)
                    continue
                self._move_cursor(out, segment, at)
                out.append(record)
                if len(out) >= limit:
                    return True
        if segment.sealed:
            segment.read_through = True
            self._move_cursor(out, segment, offset)
        return False

    def _move_cursor(self, out: list[SpoolRecord], segment: Segment, offset: int) -> None:
        if not out:  # the cursor stays on the first record handed out: it may be read again
            self._cursor = (segment.number, offset)

    def _record(self, seq: int | None, line: bytes, *, first: bool) -> SpoolRecord | None:
        try:
            if seq is None:
                raise ValueError("no seq: a torn or foreign line")
            return files.line_record(seq, line)
        except (ContractError, ValueError) as exc:
            if first:
                self._move_aside(line, exc)
            return None

    def _move_aside(self, line: bytes, exc: Exception) -> None:
        log.error("spool %s: an unreadable line moved to %s: %s", self.directory, "rejected", exc)
        data = files.raw_rejected_line(line, f"unreadable spool line: {exc}")
        with self._mutex:
            files.append_durably(self.directory / files.REJECTED_FILE, data)
            self._pending = max(self._pending - 1, 0)
