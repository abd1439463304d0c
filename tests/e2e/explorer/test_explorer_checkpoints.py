"""The explorer's Checkpoints page against the API's answer, in a real browser: reached from the
card of the demo's pretraining (`run:<demo>-demo-pretrain-001`, two checkpoints evaluated on
eval-suite v1), it shows exactly what `checkpointStages` answers; `--metric`'s form keeps one
metric, and a metric no checkpoint records shows the API's error."""

from __future__ import annotations

from typing import Any

from explorer_helpers import WAIT_MS, Api, Explorer, Stories, js_text, node_route, page_route

_STAGES = """query ($run: ID!, $metric: String) { checkpointStages(run: $run, metric: $metric) {
  run total limit truncated
  checkpoints { id step savedAt status metrics { name value } evaluations }
  results { checkpoint step evaluation suite suiteVersion evaluationSet passed metric value
    previousStep change }
} }"""


def _num(value: Any) -> str:
    """A value as the page's `num` (the CLI's `cell`): `-` for none."""
    return "-" if value is None else js_text(value)


def _value(result: dict[str, Any]) -> str:
    if result["change"] is None:
        return _num(result["value"])
    sign = "+" if result["change"] >= 0 else ""
    since = f"since step {result['previousStep']}"
    return f"{_num(result['value'])} ({sign}{_num(result['change'])} {since})"


def _suite(result: dict[str, Any]) -> str:
    version = result["suiteVersion"]
    return f"{_num(result['suite'])}@{version}" if version else _num(result["suite"])


def _check(explorer: Explorer, answer: dict[str, Any]) -> None:
    """The page shows exactly the answer: the checkpoints, then every evaluation metric."""
    explorer.page.locator('[data-testid="count"]').wait_for(timeout=WAIT_MS)
    shown = len(answer["checkpoints"])
    count = f"{shown} of {answer['total']}" if answer["truncated"] else str(shown)
    (text,) = explorer.texts('[data-testid="count"]')
    assert text.startswith(f"{count} checkpoints, in step order")
    stages = explorer.rows('[data-testid="stages"] tbody tr', "data-col")
    assert [r["attrs"]["data-checkpoint"] for r in stages] == [
        c["id"] for c in answer["checkpoints"]
    ]
    for stage, row in zip(answer["checkpoints"], stages, strict=True):
        saved = ", ".join(f"{m['name']} {_num(m['value'])}" for m in stage["metrics"]) or "-"
        assert row["cells"] == {
            "step": f"step {stage['step']}",
            "saved": js_text(stage["savedAt"]),
            "status": js_text(stage["status"]),
            "metrics": saved,
            "evaluations": str(stage["evaluations"]),
        }
        assert row["links"] == [f"#{node_route(stage['id'])}"]
    results = explorer.rows('[data-testid="results"] tbody tr', "data-col")
    assert [r["attrs"]["data-evaluation"] for r in results] == [
        r["evaluation"] for r in answer["results"]
    ]
    for result, row in zip(answer["results"], results, strict=True):
        data = row["cells"].pop("set")  # each a node link: its type's badge and its id
        assert all(d in data for d in result["evaluationSet"]) and data.count(",") == max(
            len(result["evaluationSet"]) - 1, 0
        )
        assert row["cells"] == {
            "step": js_text(result["step"]),
            "suite": _suite(result),
            "metric": result["metric"] or "—",
            "value": _value(result),
            "passed": js_text(result["passed"]),
        }
        assert row["links"] == [f"#{node_route(d)}" for d in result["evaluationSet"]]


def test_the_checkpoints_page_is_the_answer(explorer: Explorer, api: Api, stories: Stories) -> None:
    run = f"run:{stories.demo}-demo-pretrain-001"
    explorer.signed_in(stories.reader, node_route(run))
    card = explorer.page.locator('[data-field="checkpointStages"]')
    card.get_by_role("link", name="Compare the checkpoints stage by stage").click()
    explorer.page.locator('[data-testid="results"]').wait_for(timeout=WAIT_MS)
    assert explorer.page.url.endswith(page_route("checkpoints", run))
    answer = api.data(stories.reader, _STAGES, {"run": run})["checkpointStages"]
    _check(explorer, answer)
    explorer.shot("checkpoints")
    # The demo's answer, so that an empty one cannot pass: two checkpoints on eval-suite v1,
    # the second 0.09 better than the first.
    assert [c["step"] for c in answer["checkpoints"]] == [1000, 2000]
    assert [(r["value"], r["change"]) for r in answer["results"]] == [(0.42, None), (0.51, 0.09)]
    assert not explorer.errors


def test_one_metric_and_a_metric_no_checkpoint_records(
    explorer: Explorer, api: Api, stories: Stories
) -> None:
    run = f"run:{stories.demo}-demo-pretrain-001"
    explorer.signed_in(stories.reader, page_route("checkpoints", run))
    explorer.page.locator('[data-testid="results"]').wait_for(timeout=WAIT_MS)
    explorer.page.locator("input#checkpoints-metric").fill("train/loss")
    explorer.page.get_by_role("button", name="Compare").click()
    explorer.page.locator('[data-testid="no-results"]').wait_for(timeout=WAIT_MS)
    assert explorer.page.url.endswith(page_route("checkpoints", run, metric="train/loss"))
    answer = api.data(stories.reader, _STAGES, {"run": run, "metric": "train/loss"})
    _check(explorer, answer["checkpointStages"])
    explorer.go(page_route("checkpoints", run, metric="bleu"))
    alert = explorer.page.get_by_role("alert")
    alert.wait_for(timeout=WAIT_MS)
    assert "invalid_argument" in alert.text_content()
    assert "'bleu' is recorded on none of" in alert.text_content()


def test_a_checkpoint_and_its_evaluation_link_to_each_other(
    explorer: Explorer, api: Api, stories: Stories
) -> None:
    checkpoint = f"checkpoint:{stories.demo}-demo-pretrain-001/2000"
    query = """query ($id: ID!) { node(id: $id) { ... on Checkpoint { evaluations { id } } } }"""
    (evaluation,) = api.data(stories.reader, query, {"id": checkpoint})["node"]["evaluations"]
    explorer.signed_in(stories.reader, node_route(checkpoint))
    listed = explorer.page.locator('[data-field="evaluations"]')
    listed.wait_for(timeout=WAIT_MS)
    assert explorer.rows('[data-field="evaluations"] li')[0]["links"] == [
        f"#{node_route(evaluation['id'])}"
    ]
    explorer.go(node_route(evaluation["id"]))
    back = explorer.page.locator('[data-field="checkpoint"] a')
    back.wait_for(timeout=WAIT_MS)
    assert back.get_attribute("href") == f"#{node_route(checkpoint)}"
    assert back.text_content() and "step 2000" in back.text_content()
    # an evaluation of a checkpoint is no evaluation of a model version
    assert explorer.texts('[data-field="modelVersion"]') == ["—"]
