"""Search and the node card, in Chromium: what the page shows is what the graph holds."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

from explorer_helpers import WAIT_MS, Api, Explorer, Stories, js_text, node_route
from neo4j import Driver
from support.numbering_story import Numbering

from provgraph.cli.demo_story import FINETUNE, PRETRAIN
from provgraph.ingest.projection import project_event
from provgraph.ingest.projector.writer import GraphWriter

_SEARCH = "query ($text: String!) { search(text: $text, first: 100) { id } }"

_RUN = """query ($id: ID!) { node(id: $id) {
  id project firstSeenAt lastEventAt
  ... on Run {
    name runNumber status startedAt endedAt finalStep conclusion params
    code { repo commit dirty }
    experiment { id }
    environment { id pythonVersion }
    inputs { role datasetVersion { id } }
  }
} }"""

_VERSION = """query ($id: ID!) { node(id: $id) {
  id project firstSeenAt lastEventAt
  ... on DatasetVersion {
    name version storageUri checksum recordCount changeNote sourceUri sourceLicence
    sourceObtainedBy sourceComplianceNote
    dataset { id }
  }
} }"""


_CLAIMED = "query ($id: ID!) { node(id: $id) { ... on Run { runNumber runNumberClaimed } } }"

_SERIES = """query ($id: ID!) { node(id: $id) {
  ... on Run { metricSeries { name points { step value } } checkpoints { step metrics } }
} }"""


def _node(api: Api, token: str, query: str, node: str) -> dict[str, Any]:
    body = api.graphql(token, query, {"id": node})
    assert "errors" not in body, body
    found: dict[str, Any] = body["data"]["node"]
    assert found is not None
    return found


def _link(explorer: Explorer, field: str) -> str | None:
    """Where the link inside a `data-field` value leads."""
    href = explorer.page.locator(f'[data-field="{field}"] a').first.get_attribute("href")
    return href


def _open_card(explorer: Explorer, token: str, node: str) -> dict[str, str]:
    explorer.signed_in(token, node_route(node))
    explorer.page.locator(f'[data-node-card="{node}"]').wait_for(timeout=WAIT_MS)
    explorer.shot("card")
    return explorer.fields()


def test_search_finds_a_run_by_its_name(explorer: Explorer, api: Api, stories: Stories) -> None:
    run = f"run:{stories.demo}-{FINETUNE}"
    explorer.signed_in(stories.reader, "/search")
    explorer.page.locator("input#q").fill("chat-sft")
    explorer.page.get_by_role("button", name="Search", exact=True).click()
    results = explorer.page.get_by_test_id("search-results")
    results.wait_for(state="attached", timeout=WAIT_MS)
    explorer.shot("results")
    found = explorer.page.eval_on_selector_all(
        "[data-result-id]", "els => els.map(e => e.getAttribute('data-result-id'))"
    )
    answer = api.graphql(stories.reader, _SEARCH, {"text": "chat-sft"})["data"]["search"]
    assert found == [run]
    assert {n["id"] for n in answer} == {run}
    assert explorer.page.url.endswith("#/search?q=chat-sft")
    # The hit leads to the node's card.
    explorer.page.locator(f'[data-result-id="{run}"] a.node-link').click()
    explorer.page.locator(f'[data-node-card="{run}"]').wait_for(timeout=WAIT_MS)
    explorer.shot("card")


def test_a_run_card_shows_the_graphs_values(explorer: Explorer, api: Api, stories: Stories) -> None:
    run = f"run:{stories.demo}-{FINETUNE}"
    node = _node(api, stories.reader, _RUN, run)
    fields = _open_card(explorer, stories.reader, run)
    params = node["params"] if isinstance(node["params"], dict) else json.loads(node["params"])
    expected = {
        "id": node["id"],
        "project": node["project"],
        "firstSeenAt": node["firstSeenAt"],
        "lastEventAt": node["lastEventAt"],
        "label": f"{node['name']} #{node['runNumber']}",
        "status": node["status"],
        "startedAt": node["startedAt"],
        "endedAt": node["endedAt"],
        "finalStep": js_text(node["finalStep"]),
        "runNumber": js_text(node["runNumber"]),
        "conclusion": node["conclusion"],
        "code.repo": node["code"]["repo"],
        "code.commit": node["code"]["commit"],
        "code.dirty": "no",
        "environment.pythonVersion": node["environment"]["pythonVersion"],
        **{f"params.{key}": js_text(value) for key, value in params.items()},
    }
    assert {name: fields.get(name) for name in expected} == expected
    # The values that the demo story wrote, so that an empty graph cannot pass.
    assert (expected["status"], expected["code.commit"], expected["params.lr"]) == (
        "completed",
        "9b1d0e2",
        "0.00001",
    )
    assert _link(explorer, "experiment") == f"#/node/{quote(node['experiment']['id'], safe='')}"
    assert (
        _link(explorer, "environment.id") == f"#/node/{quote(node['environment']['id'], safe='')}"
    )
    (train,) = [i for i in node["inputs"] if i["role"] == "train"]
    assert (
        _link(explorer, "inputs.train") == f"#/node/{quote(train['datasetVersion']['id'], safe='')}"
    )


def _chart(explorer: Explorer, field: str) -> tuple[list[str], dict[str, int]] | None:
    """What the chart `data-field` says it draws: its metrics and their point counts."""
    chart = explorer.page.locator(f'[data-field="{field}"]')
    if not chart.count():
        return None
    metrics, counts = chart.get_attribute("data-metrics"), chart.get_attribute("data-point-counts")
    return json.loads(metrics or "null"), json.loads(counts or "null")


def test_a_run_card_draws_the_logged_metric_series_by_step(
    explorer: Explorer, api: Api, stories: Stories
) -> None:
    run = f"run:{stories.demo}-{PRETRAIN}"
    node = _node(api, stories.reader, _SERIES, run)
    _open_card(explorer, stories.reader, run)
    chart = explorer.page.locator('figure[data-field="metric-series"]')
    chart.locator("path.recharts-line-curve").first.wait_for(timeout=WAIT_MS)
    explorer.page.locator("figure.chart").first.scroll_into_view_if_needed()
    explorer.shot("metric-series")
    series = {s["name"]: s["points"] for s in node["metricSeries"]}
    assert _chart(explorer, "metric-series") == (
        sorted(series),
        {name: len(points) for name, points in sorted(series.items())},
    )
    # The demo's pretraining: a loss logged every 50 steps to 2000, downsampled (16 buckets per
    # doubling of the step), and a validation loss every 250 steps.
    assert {name: len(points) for name, points in series.items()} == {
        "train/loss": 37,
        "val/loss": 8,
    }
    assert series["train/loss"][0] == {"step": 0, "value": 10.8}
    assert series["train/loss"][-1] == {"step": 2000, "value": 2.4}
    assert chart.locator("path.recharts-line-curve").count() == 2  # overlaid, one line each
    assert "Logged metrics by step" in (chart.locator("figcaption").text_content() or "")
    # Its checkpoints saved train/loss too: the logged series draws it, no second chart.
    assert any(c["metrics"] for c in node["checkpoints"])
    assert _chart(explorer, "checkpoint-metrics") is None


def test_a_run_card_without_a_logged_series_says_so(
    explorer: Explorer, api: Api, stories: Stories
) -> None:
    run = f"run:{stories.demo}-{FINETUNE}"
    assert _node(api, stories.reader, _SERIES, run)["metricSeries"] == []
    fields = _open_card(explorer, stories.reader, run)
    assert _chart(explorer, "metric-series") == ([], {})
    assert fields["metric-series"] == "No metric series logged."


def test_a_dataset_version_card_shows_the_graphs_values(
    explorer: Explorer, api: Api, stories: Stories
) -> None:
    version = f"dataset:{stories.demo}/web-corpus@v1"
    node = _node(api, stories.reader, _VERSION, version)
    fields = _open_card(explorer, stories.reader, version)
    expected = {
        "id": node["id"],
        "project": node["project"],
        "label": f"{node['name']} {node['version']}",
        "storageUri": node["storageUri"],
        "checksum": node["checksum"],
        "recordCount": js_text(node["recordCount"]),
        "sourceUri": node["sourceUri"],
        "sourceLicence": js_text(node["sourceLicence"]),
        "sourceObtainedBy": js_text(node["sourceObtainedBy"]),
        "sourceComplianceNote": js_text(node["sourceComplianceNote"]),
        "changeNote": js_text(node["changeNote"]),
    }
    assert {name: fields.get(name) for name in expected} == expected
    # The demo's source of web-corpus v1, as its story records it: each shown on its own.
    assert (
        expected["sourceLicence"],
        expected["sourceObtainedBy"],
        expected["sourceComplianceNote"],
    ) == ("CC-BY-4.0", "crawl", "robots.txt honoured")
    assert (expected["recordCount"], expected["storageUri"]) == (
        "1000000",
        "s3://demo/web-corpus/v1/",
    )
    assert _link(explorer, "dataset") == f"#/node/{quote(node['dataset']['id'], safe='')}"


def test_a_renumbered_run_card_shows_the_number_it_claimed(
    explorer: Explorer, api: Api, stories: Stories, neo4j_driver: Driver
) -> None:
    # Two runs of a new experiment of the demo project both claim number 1: the second is
    # renumbered, and its card says what it claimed; the first's card says nothing of it.
    s = Numbering(stories.demo)
    events = [s.created("renumbered"), s.started("first", "renumbered", number=1)]
    events.append(s.started("second", "renumbered", number=1))
    GraphWriter(neo4j_driver).write([project_event(e) for e in events])
    first, second = s.run("first"), s.run("second")
    nodes = {run: _node(api, stories.reader, _CLAIMED, run) for run in (first, second)}
    cards = {first: _open_card(explorer, stories.reader, first)}
    explorer.go(node_route(second))  # the same page, signed in: the next card
    explorer.page.locator(f'[data-node-card="{second}"]').wait_for(timeout=WAIT_MS)
    cards[second] = explorer.fields()
    shown = {
        run: (cards[run].get("runNumber"), cards[run].get("runNumberClaimed")) for run in cards
    }
    assert nodes[first] == {"runNumber": 1, "runNumberClaimed": None}
    assert shown[first] == ("1", None)
    assert nodes[second] == {"runNumber": 2, "runNumberClaimed": 1}
    assert shown[second][0] == "2"
    claimed = shown[second][1]
    assert claimed is not None and claimed.startswith("1 (held by another run")
