"""A run's resources as a setting (pure): machines, devices per machine, the accelerator and
the parallelism degrees, read from the run's stored `resources` record.

`compare`, `diff` and `scale-up` all read them here, so a change of resources is named the same
way everywhere: `num_nodes`, `devices_per_node`, `accelerator`, `parallelism.<degree>`. The
free-form `extra` map is not a setting (it holds notes such as the cluster or the queue).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from provgraph.query.recipes.env_contents import flatten
from provgraph.schemas.storage import decode_json

RESOURCES = "resources"
"""The name of the cause (`diff`) and of the change kind (`compare`)."""
_NOT_A_SETTING = "extra"


def resources_of(props: Mapping[str, Any]) -> dict[str, Any]:
    """The run's resources as dotted names (`parallelism.tensor`), `extra` left out; empty
    when the run recorded none."""
    recorded = decode_json(props, RESOURCES) or {}
    kept = {k: v for k, v in recorded.items() if k != _NOT_A_SETTING}
    return {k: v for k, v in flatten(kept).items() if v not in (None, {})}
