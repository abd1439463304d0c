"""`provgraph deadletters list | show | redrive`: what the dead-letter topic holds, and
appending letters back to the event log once they can be applied."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from typing import TYPE_CHECKING, Any

from provgraph.client.eventlog import PRINCIPAL_HEADER
from provgraph.ingest.settings import IngestSettings
from provgraph.schemas import issued_name

if TYPE_CHECKING:  # the Kafka clients load only when a command runs
    from provgraph.ingest.projector.redrive import DeadLetter, Redriven

_VALUE_CHARS = 300


def _list(args: argparse.Namespace) -> int:
    from provgraph.ingest.projector.redrive import DeadLetterReader

    settings = IngestSettings()
    reader = DeadLetterReader(settings)
    counts: Counter[str] = Counter()
    try:
        for batch in reader.batches():
            counts.update(letter.reason for letter in batch)
    finally:
        reader.close()
    for reason, count in sorted(counts.items()):
        print(f"{reason:<24}{count:>8}")
    print(f"{sum(counts.values())} dead letters in {settings.dead_letter_topic}")
    return 0


def _show(args: argparse.Namespace) -> int:
    from provgraph.ingest.projector.redrive import DeadLetterReader

    reader = DeadLetterReader(IngestSettings())
    shown = 0
    try:
        for batch in reader.batches():
            for letter in batch:
                if shown < args.limit and args.reason in (None, letter.reason):
                    print(describe_letter(letter))
                    shown += 1
    finally:
        reader.close()
    return 0


def describe_letter(letter: DeadLetter) -> str:
    """A dead letter in a few lines: position, reason, error, key, principal, value."""
    stamp = letter.header.get(PRINCIPAL_HEADER, b"-").decode("utf-8", "replace")
    principal = issued_name(stamp)  # as the token was issued, like everywhere it is shown
    key = (letter.key or b"-").decode("utf-8", "replace")
    value = (letter.value or b"").decode("utf-8", "replace")
    if len(value) > _VALUE_CHARS:
        value = value[:_VALUE_CHARS] + f"… ({len(letter.value or b'')} bytes)"
    return (
        f"{letter.partition}@{letter.offset} from {letter.source}: {letter.reason}\n"
        f"  error: {letter.error}\n"
        f"  key: {key}  principal: {principal}\n"
        f"  value: {value}\n"
    )


def _redrive(args: argparse.Namespace) -> int:
    from provgraph.ingest.projector.redrive import Appender, DeadLetterReader, redrive
    from provgraph.ingest.projector.rejections import PARKED

    settings = IngestSettings()
    reasons = frozenset(args.reason or PARKED)
    reader, append = DeadLetterReader(settings), Appender(settings)
    total = sum(reader.ends[tp] - reader.consumer.position(tp) for tp in reader.tps)
    try:
        done = redrive(reader.batches(), reasons, append, lambda d: _progress(d, total))
    finally:
        append.close()
        reader.close()
    print(
        f"\nredrive: {done.appended} of {done.matched} dead letters ({', '.join(sorted(reasons))})"
        f" appended to {settings.events_topic} again, {done.left} not understood yet; "
        f"{done.read} read"
    )
    return 0


def _progress(done: Redriven, total: int) -> None:
    sys.stderr.write(f"\r{done.read}/{total} dead letters read, {done.appended} appended")
    sys.stderr.flush()


def register(sub: Any) -> None:
    """Add `provgraph deadletters` and its commands."""
    from provgraph.ingest.projector.rejections import PARKED, Reason

    group = sub.add_parser("deadletters", help="inspect the dead-letter topic; redrive letters")
    commands = group.add_subparsers(dest="deadletters_command", required=True)
    p = commands.add_parser("list", help="count the dead letters by reason")
    p.set_defaults(func=_list)
    p = commands.add_parser("show", help="print dead letters: position, reason, error, value")
    p.add_argument("--reason", choices=[r.value for r in Reason], help="only this reason")
    p.add_argument("--limit", type=int, default=20, help="at most this many (default 20)")
    p.set_defaults(func=_show)
    parked = ", ".join(sorted(PARKED))
    p = commands.add_parser(
        "redrive", help="append the letters that can be read now to the event log again"
    )
    p.add_argument(
        "--reason",
        action="append",
        choices=[r.value for r in Reason],
        help=f"letters of this reason (repeatable; default: the parked ones, {parked})",
    )
    p.set_defaults(func=_redrive)
