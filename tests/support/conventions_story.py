"""Events of a conventions story (`project.policy.set` v3 with `require_names` and
`require_places`): the policy, runs named by the rule or not, checkpoints in place or not."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from provgraph.schemas import Event
from support.stories import story_event

RULE = "{experiment}-r{run_number}"
ROOT = "s3://lake/x"
AT = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)


def event(project: str, event_type: str, payload: dict[str, Any]) -> Event:
    return story_event(project, event_type, payload, AT)


def conventions_policy(project: str) -> Event:
    """Runs named ``<experiment>-r<number>``, outputs under `ROOT`, both enforced."""
    payload = {"names": {"run": RULE}, "require_names": True, "storage_roots": [ROOT],
               "require_places": True}  # fmt: skip
    return event(project, "project.policy.set", payload)


def run(project: str, key: str, number: int, name: str | None, experiment: str = "sft") -> Event:
    """A run of `experiment` numbered `number`, named `name`."""
    payload = {"run_id": f"{project}-{key}", "experiment": f"experiment:{project}/{experiment}",
               "run_number": number, **({"name": name} if name else {})}  # fmt: skip
    return event(project, "run.started", payload)


def checkpoint(project: str, key: str, step: int, uri: str) -> Event:
    payload = {"run_id": f"{project}-{key}", "step": step, "uri": uri}
    return event(project, "checkpoint.saved", payload)
