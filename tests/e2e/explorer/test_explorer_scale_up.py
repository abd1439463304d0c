"""The explorer's Scale-up page against the API's answer, in a real browser: reached from the
card of the demo's scale-up (`run:<demo>-demo-scale-001`, the sweep's run #4 on four nodes),
it shows exactly what `scaleUp` answers; a run that names no pilot shows the API's error."""

from __future__ import annotations

from typing import Any

from explorer_helpers import WAIT_MS, Api, Explorer, Stories, js_text, node_route, page_route

_SCALE_UP = """query ($run: ID!) { scaleUp(run: $run) {
  run flagged flag unverifiable trendHeld
  pilot { id name experiment status resources accelerators }
  scaleUp { id name experiment status resources accelerators }
  scale { factor changes { kind name before after } }
  otherChanges { kind name before after }
  metrics { name verdict why sharedSteps { start end }
    pilot { final { step value } trend { direction change } }
    scaleUp { final { step value } trend { direction change } } }
} }"""


def _num(value: Any) -> str:
    """A value as the page's `num` (the CLI's `cell`): `-` for none."""
    return "-" if value is None else js_text(value)


def _change(change: dict[str, Any]) -> str:
    before, after = _num(change["before"]), _num(change["after"])
    return f"{change['kind'].lower()} {change['name']}: {before} -> {after}"


def _resources(run: dict[str, Any]) -> str:
    res = run["resources"]
    if not res:
        return "no resources recorded"
    head = f"{_num(res.get('num_nodes'))} x {_num(res.get('devices_per_node'))}"
    head += f" {res['accelerator']}" if res.get("accelerator") else ""
    head += f" = {run['accelerators']}" if run["accelerators"] is not None else ""
    degrees = [f"{k.removeprefix('parallelism.')} {_num(v)}" for k, v in sorted(res.items())
               if k.startswith("parallelism.")]  # fmt: skip
    return f"{head} ({', '.join(degrees)})" if degrees else head


def _metric_cells(metric: dict[str, Any]) -> dict[str, str]:
    p, s, shared = metric["pilot"], metric["scaleUp"], metric["sharedSteps"]
    final = (
        f"pilot {_num(p['final']['value'])} at step {p['final']['step']}, "
        f"scale-up {_num(s['final']['value'])} at step {s['final']['step']}"
    )
    trend = "—"
    if shared and p["trend"] and s["trend"]:
        trend = (
            f"steps {shared['start']}-{shared['end']}: pilot {p['trend']['direction']} "
            f"{_num(p['trend']['change'])}, scale-up {s['trend']['direction']} "
            f"{_num(s['trend']['change'])}"
        )
    verdict = f"{metric['verdict'].upper()}: {metric['why']}"
    return {"name": metric["name"], "final": final, "trend": trend, "verdict": verdict}


def _check(explorer: Explorer, answer: dict[str, Any]) -> None:
    """The page shows exactly the answer: both sides, the scale, the flag and the trend."""
    explorer.page.locator('[data-testid="trend-held"]').wait_for(timeout=WAIT_MS)
    for testid, side in (("pilot", answer["pilot"]), ("scale-up", answer["scaleUp"])):
        (row,) = explorer.rows(f'tr[data-testid="{testid}"]', "data-col")
        assert row["attrs"]["data-run"] == side["id"]
        cells = row["cells"]
        assert (cells["name"], cells["status"]) == (js_text(side["name"]), js_text(side["status"]))
        assert row["links"] == [f"#{node_route(side['id'])}", f"#{node_route(side['experiment'])}"]
        assert cells["resources"] == _resources(side)
        assert cells["accelerators"] == js_text(side["accelerators"])
    factor = answer["scale"]["factor"]
    expected = f"x{_num(factor)} accelerators" if factor is not None else "unknown"
    assert explorer.texts('[data-testid="factor"]') == [f"Scale: {expected}"]
    items = explorer.texts('[data-testid="resource-changes"] li')
    assert items == [_change(c) for c in answer["scale"]["changes"]]
    if answer["flagged"]:
        assert explorer.texts('[data-testid="flag"]') == [f"FLAGGED, {answer['flag']}:"]
        others = explorer.texts('[data-testid="other-changes"] li')
        assert others == [_change(c) for c in answer["otherChanges"]]
    else:
        assert explorer.texts('[data-testid="flag"]') == ["No other setting differs."]
    held = explorer.texts('[data-testid="trend-held"]')
    assert held == [f"Metric trend: {answer['trendHeld'].upper()}"]
    rows = explorer.rows('[data-testid="metrics"] tbody tr', "data-col")
    assert [r["attrs"]["data-metric"] for r in rows] == [m["name"] for m in answer["metrics"]]
    for metric, row in zip(answer["metrics"], rows, strict=True):
        assert row["cells"] == _metric_cells(metric), metric["name"]


def test_the_scale_up_page_is_the_answer(explorer: Explorer, api: Api, stories: Stories) -> None:
    run = f"run:{stories.demo}-demo-scale-001"
    explorer.signed_in(stories.reader, node_route(run))
    actions = explorer.page.get_by_role("navigation", name="About this node")
    actions.get_by_role("link", name="Scale-up vs pilot", exact=True).click()
    explorer.page.locator('[data-testid="sides"]').wait_for(timeout=WAIT_MS)
    assert explorer.page.url.endswith(page_route("scale-up", run))
    answer = api.data(stories.reader, _SCALE_UP, {"run": run})["scaleUp"]
    _check(explorer, answer)
    explorer.shot("scale-up")
    # The demo's answer, so that an empty one cannot pass: run #4 on four nodes, the batch size
    # raised too (flagged), val/loss held.
    assert answer["pilot"]["id"] == f"run:{stories.demo}-demo-sft-004"
    assert (answer["scale"]["factor"], answer["flagged"], answer["trendHeld"]) == (4, True, "held")
    assert [c["name"] for c in answer["otherChanges"]] == ["batch_size"]
    assert not explorer.errors


def test_a_run_without_a_pilot_has_no_link_and_shows_the_apis_error(
    explorer: Explorer, stories: Stories
) -> None:
    pilot = f"run:{stories.demo}-demo-sft-004"
    explorer.signed_in(stories.reader, node_route(pilot))
    actions = explorer.page.get_by_role("navigation", name="About this node")
    actions.get_by_role("link", name="Upstream lineage").wait_for(timeout=WAIT_MS)
    assert actions.get_by_role("link", name="Scale-up vs pilot").count() == 0
    # The pilot's card names the run that scales it up, linked to the page.
    scaled = explorer.page.locator('[data-field="scaleUps"]')
    assert f"{stories.demo}-demo-scale-001" in scaled.text_content()
    explorer.go(page_route("scale-up", pilot))
    alert = explorer.page.get_by_role("alert")
    alert.wait_for(timeout=WAIT_MS)
    assert "invalid_argument" in alert.text_content()
    assert f"{pilot} is not a scale-up" in alert.text_content()
