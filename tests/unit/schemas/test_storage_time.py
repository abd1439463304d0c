"""`storage.format_time`: the stored text of a time is strftime's, whatever the time."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta, timezone

from provgraph.schemas.storage import format_time

STRFTIME = "%Y-%m-%dT%H:%M:%S.%fZ"


def _times(count: int) -> list[datetime]:
    rng = random.Random(7)
    zones = [None, UTC, timezone(timedelta(hours=5, minutes=30)), timezone(timedelta(hours=-8))]
    edges = [datetime(1, 1, 1), datetime(999, 12, 31, 23, 59, 59, 999999), datetime(1000, 1, 1)]
    edges += [datetime(1970, 1, 1), datetime(9999, 12, 31, 23, 59, 59, 999999)]
    span = (datetime(9999, 12, 31) - datetime(1, 1, 1)).total_seconds()
    found = [edge.replace(tzinfo=zone) for edge in edges for zone in zones]
    for _ in range(count):
        at = datetime(1, 1, 1) + timedelta(seconds=rng.uniform(0, span))
        at = at.replace(microsecond=rng.choice([0, 1, 999999, rng.randrange(1_000_000)]))
        found.append(at.replace(tzinfo=rng.choice(zones)))
    return found


def test_the_text_is_strftimes_for_every_year_zone_and_microsecond() -> None:
    for at in _times(20_000):
        assert format_time(at) == at.strftime(STRFTIME), at


def test_the_text_is_fixed_width_from_year_1000() -> None:
    texts = [format_time(at) for at in _times(2_000) if at.year >= 1000]
    assert {len(text) for text in texts} == {27}
    assert all(text.endswith("Z") and text[19] == "." for text in texts)
