"""The demo's pilot and scale-up: run #4 of the sweep, scaled up in exp-003."""

from __future__ import annotations

from provgraph.cli.demo_ids import PROJECT, SCALE_RUN
from provgraph.cli.demo_story import demo_events
from provgraph.schemas import RunStarted


def test_the_scale_up_names_sweep_run_4_as_its_pilot_in_every_project() -> None:
    for project in (PROJECT, "someone-else"):
        started = {e.subject: e for e in demo_events(project) if isinstance(e, RunStarted)}
        prefix = "" if project == PROJECT else f"{project}-"
        scale_up = started[f"run:{prefix}{SCALE_RUN}"].payload
        pilot = started[f"run:{prefix}demo-sft-004"].payload
        assert scale_up.scaled_from == f"run:{prefix}demo-sft-004"
        assert [e.payload.scaled_from for e in started.values()].count(None) == len(started) - 1
        assert pilot.resources is not None and scale_up.resources is not None
        assert (pilot.resources.num_nodes, scale_up.resources.num_nodes) == (1, 4)
        # the batch size grew with the scale: the one other change the answer flags
        changed = {k for k in pilot.params.keys() | scale_up.params.keys()
                   if pilot.params.get(k) != scale_up.params.get(k)}  # fmt: skip
        assert changed == {"batch_size"}
        assert (scale_up.base_model, scale_up.environment) == (pilot.base_model, pilot.environment)
        assert scale_up.inputs == pilot.inputs
