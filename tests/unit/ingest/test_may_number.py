"""`numbering.may_number`: which log records a projector group orders across its members, told
by their bytes before they are parsed; never False for a record that numbers something."""

from __future__ import annotations

import json

import pytest
from support.numbering_story import Numbering
from support.projection_workload import Workload

from provgraph.ingest.openlineage.wrap import decode_log_value
from provgraph.ingest.projection import project_event
from provgraph.ingest.projection.numbering import may_number, numbered

pytestmark = pytest.mark.unit

NUMBERING_TYPES = {"experiment.created", "run.started"}


def test_every_event_that_numbers_something_may_number_and_most_others_may_not() -> None:
    events = Workload("p", 3).build(runs=40, datasets=3)
    s = Numbering("p")
    events += [s.created("x"), *(s.started(f"r{i}", "x") for i in range(40))]
    raws = [e.to_json_bytes() for e in events]
    numbering = [numbered(project_event(decode_log_value(raw))) is not None for raw in raws]
    assert sum(numbering) == 41
    kinds = [e.event_type for e in events]  # runs in no experiment number nothing, yet may
    assert all(may_number(r) for r, k in zip(raws, kinds, strict=True) if k in NUMBERING_TYPES)
    others = [r for r, k in zip(raws, kinds, strict=True) if k not in NUMBERING_TYPES]
    assert len(others) > 100 and not any(may_number(r) for r in others)


def test_an_event_type_written_with_escapes_may_number() -> None:
    raw = Numbering("p").started("a", "x").to_json_bytes()
    data = json.loads(raw)
    escaped = json.dumps(data).replace('"run.started"', '"run\\u002estarted"').encode()
    assert b"run.started" not in escaped
    assert numbered(project_event(decode_log_value(escaped))) is not None
    assert may_number(escaped)


def test_a_record_without_a_value_numbers_nothing() -> None:
    assert not may_number(None)
    assert not may_number(b"")
    assert not may_number(b'{"event_type": "run.completed"}')
