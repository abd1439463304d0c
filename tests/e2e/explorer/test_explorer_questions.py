"""The question pages and the model-version card, in Chromium: each shows the GraphQL answer.

Impact, diff, reproduce, compare, best version, digest, effects, cost, the search page's lessons
and the model-version card are opened on the demo story (the chain story where it fits); every
expectation is the answer of the same GraphQL question with the same arguments, asked with the
same token.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

import pytest
from explorer_helpers import (
    WAIT_MS,
    Api,
    Explorer,
    Stories,
    chain_id,
    failed_run_id,
    js_text,
    lineage_route,
    node_route,
    page_route,
)
from playwright.sync_api import expect

from provgraph.cli.demo_story import demo_events

_IMPACT = """query ($id: ID!) {
  impact(id: $id) {
    node { id type ... on ModelVersion { status } ... on Deployment { status } }
    path { nodes { id } edges { from to type } }
    evaluationResults { evaluation suite suiteVersion datasets metric value passed evaluatedAt }
  }
  runs: lineage(id: $id, direction: DOWNSTREAM, depth: 20, types: [RUN]) {
    nodes { id type ... on Run { status } } truncated depths
  }
}"""

_DIFF = "query ($a: ID!, $b: ID!) { diff(a: $a, b: $b) }"

_REPRODUCE = "query ($id: ID!) { reproduce(id: $id) }"

_COMPARE = """query ($experiment: ID!) {
  compare(experiment: $experiment, all: false) {
    params flagged
    runs {
      id status params { name value }
      check { against flagged unverifiable changes { kind name before after } }
    }
  }
}"""

_BEST = """query ($model: String!, $project: String, $datasets: [ID!]) {
  bestModelVersion(model: $model, metric: "acc", project: $project, datasets: $datasets,
                   higherIsBetter: true) {
    ambiguous delta diff
    evaluationSet { datasets suite suiteVersion }
    evaluationSets { datasets }
    best { modelVersion label value status evaluatedAt }
    previousBest { modelVersion label value status evaluatedAt }
    ranking { modelVersion value }
  }
}"""

_DIGEST = """query ($projects: [String!]!, $since: String!) {
  digest(projects: $projects, since: $since) {
    runsWithoutResources markdown
    people { person started { id } finished { id } failed { id } aborted { id } running { id } }
    stalled { run { id } }
    repeatedFailures { experiment }
    conclusionMissing { id }
    datasetVersions { ...Item } modelVersions { ...Item } statusChanges { ...Item }
    deployments { ...Item } feedback { ...Item }
    acceleratorHoursByPerson { key acceleratorHours }
    acceleratorHoursByProject { key acceleratorHours }
  }
}
fragment Item on DigestItem { id modelVersion }"""

_EFFECTS = """query ($project: String!, $metric: String!, $groupBy: EffectGrouping!) {
  effects(project: $project, metric: $metric, groupBy: $groupBy) {
    metric { key } since groupBy runsRead truncated pairs flaggedPairs repeatPairs
    effects {
      kind label pairs measured meanDelta spread minDelta maxDelta failed running
      failures { error count }
      runs { experiment before after status delta startedAt }
    }
  }
}"""

_COST = """query ($id: ID!, $includeBase: Boolean!) {
  cost(id: $id, includeBase: $includeBase) {
    target kind run experiment truncated
    runs {
      id name status role hours accelerators acceleratorHours interruptions
      lostHours lostAcceleratorHours checkpointBytes checkpointsWithoutSize checkpointsCapped
    }
    totals {
      hours acceleratorHours lostHours lostAcceleratorHours checkpointBytes runsWithoutResources
      byRole { role runs hours acceleratorHours }
    }
    base {
      modelVersion run hours acceleratorHours users share shareHours shareAcceleratorHours
      runsWithoutResources
    }
    withBase { hours acceleratorHours }
  }
}"""

# Every filter the explorer sends, null when not given; `first` the API's default, as the page's.
_LESSONS = """query ($text: String!, $project: String, $kinds: [LessonKind!], $status: String,
                    $metric: String, $param: String, $uses: ID) {
  lessons(text: $text, project: $project, kinds: $kinds, status: $status, metric: $metric,
          param: $param, uses: $uses) {
    text truncated candidates
    hits { id type project status experiment score matches { field text } }
  }
}"""

_MODEL_VERSION = """query ($id: ID!) { node(id: $id) {
  id
  ... on ModelVersion {
    status statusReason registeredAt validationPassed fitFor uri checksum
    model { id } producedBy { id } exportedFrom { id }
    evaluations { id passed metrics evaluatedAt datasets { id } }
    deployments { id endpoint environment status }
    feedback(first: 20) { eventId metrics deployment { id } }
  }
} }"""

# The digest's sections in the page's order: the answer's field and the page's title.
_DIGEST_SECTIONS = {
    "people": "People",
    "stalled": "Stalled runs",
    "repeatedFailures": "Repeated failures",
    "conclusionMissing": "Conclusion missing",
    "datasetVersions": "New dataset versions",
    "modelVersions": "New model versions",
    "statusChanges": "Status changes",
    "deployments": "Deployments",
    "feedback": "Feedback",
    "acceleratorHoursByPerson": "Accelerator-hours by person",
    "acceleratorHoursByProject": "Accelerator-hours by project",
}
_PEOPLE_COLUMNS = ("started", "finished", "failed", "aborted", "running")


def _href(route: str) -> str:
    return f"#{route}"


def _node_href(node: str) -> str:
    return _href(node_route(node))


def _links(explorer: Explorer, selector: str) -> list[str | None]:
    return explorer.attrs(f"{selector} a.node-link", "href")


# ---------------------------------------------------------------------------------- impact


@pytest.mark.parametrize("story", ["demo", "chain"])
def test_impact_lists_exactly_what_depends_on_the_version(
    explorer: Explorer, api: Api, stories: Stories, story: str
) -> None:
    if story == "demo":
        token, root = stories.reader, f"dataset:{stories.demo}/web-corpus@v1"
    else:
        token, root = stories.chain_reader, chain_id(stories.chain, 0)
    explorer.signed_in(token, page_route("impact", root))
    explorer.page.get_by_test_id("impact-runs").wait_for(timeout=WAIT_MS)
    explorer.shot(f"impact-{story}")
    answer = api.data(token, _IMPACT, {"id": root})

    groups: dict[str, list[dict[str, Any]]] = {"Deployment": [], "ModelVersion": [], "other": []}
    for item in answer["impact"]:
        groups.get(item["node"]["type"], groups["other"]).append(item)
    depths = answer["runs"]["depths"]
    runs = {n["id"]: n for n in answer["runs"]["nodes"] if n["type"] == "Run" and n["id"] != root}
    shown = {
        group: explorer.attrs(f'[data-testid="{test_id}"] [data-impact-id]', "data-impact-id")
        for group, test_id in (
            ("Deployment", "impact-deployments"),
            ("ModelVersion", "impact-model-versions"),
            ("Run", "impact-runs"),
            ("other", "impact-other"),
        )
    }
    # Grouped as the page groups them, each group exactly the answer's (runs nearest first).
    assert shown["Deployment"] == [i["node"]["id"] for i in groups["Deployment"]]
    assert shown["ModelVersion"] == [i["node"]["id"] for i in groups["ModelVersion"]]
    assert shown["other"] == [i["node"]["id"] for i in groups["other"]]
    assert set(shown["Run"]) == set(runs)
    assert [depths[r] for r in shown["Run"]] == sorted(depths[r] for r in runs)
    titles = explorer.texts('[data-testid^="impact-"] > h3')
    assert titles[:3] == [
        f"Live deployments ({len(groups['Deployment'])})",
        f"Model versions ({len(groups['ModelVersion'])})",
        f"Runs ({len(runs)})",
    ]
    truncated = explorer.page.get_by_text("Truncated: more runs depend on it than shown.")
    assert truncated.count() == (1 if answer["runs"]["truncated"] else 0)

    # Each entry: its status, the path back to the root, a lineage link as deep as the path.
    entries = {r["attrs"]["data-impact-id"]: r for r in explorer.rows("[data-impact-id]")}
    for item in answer["impact"]:
        node, path = item["node"], item["path"]
        entry = entries[node["id"]]
        if node.get("status"):
            assert f" — {node['status']}" in entry["text"]
        assert entry["cells"] == {"path": " → ".join(n["id"] for n in path["nodes"])}
        hops = max(len(path["edges"]), 1)
        results = item["evaluationResults"]
        assert entry["links"] == [
            _node_href(node["id"]),
            _href(lineage_route(node["id"], "up", min(hops, 20))),
            *(_node_href(i) for r in results for i in (r["evaluation"], *r["datasets"])),
        ]
        _check_evaluation_results(explorer, node, results)
    for run, node in runs.items():
        entry = entries[run]
        assert f" — {node['status']}" in entry["text"]
        assert entry["cells"] == {}  # the runs come from the lineage answer: no path
        assert entry["links"] == [
            _node_href(run),
            _href(lineage_route(run, "up", min(depths[run], 20))),
        ]

    # What the stories hold, so that an empty answer cannot pass.
    if story == "demo":
        assert shown["Deployment"] == [f"deployment:{stories.demo}/chat-api"]
        # 8 runs: pretraining, fine-tuning, the sweep's five and the scale-up of its run #4
        assert len(shown["ModelVersion"]) == 3 and len(shown["Run"]) == 8
        # chat-1b 1.1.0 was evaluated on eval-suite v1 (acc 0.66) and v2 (acc 0.55).
        [newer] = [i for i in answer["impact"] if i["node"]["id"].endswith("/chat-1b@1.1.0")]
        scores = [(r["datasets"], r["metric"], r["value"]) for r in newer["evaluationResults"]]
        assert scores == [
            ([f"dataset:{stories.demo}/eval-suite@v1"], "acc", 0.66),
            ([f"dataset:{stories.demo}/eval-suite@v2"], "acc", 0.55),
        ]
    else:
        assert shown["Deployment"] == shown["ModelVersion"] == []
        assert shown["Run"] == [failed_run_id(stories.chain)]
        assert depths[failed_run_id(stories.chain)] == 13
        assert "No live deployment depends on it." in (
            explorer.page.get_by_test_id("impact-deployments").text_content() or ""
        )
    assert not explorer.errors


def _check_evaluation_results(
    explorer: Explorer, node: dict[str, Any], results: list[dict[str, Any]]
) -> None:
    """A model version's entry shows exactly its evaluation results, a row per metric in the
    answer's order (suite, data, score, verdict, when); a deployment's shows none."""
    entry = f"[data-impact-id={json.dumps(node['id'])}]"
    rows = explorer.rows(f"{entry} [data-evaluation-id]", "data-col")
    if node["type"] != "ModelVersion":
        assert rows == []
        return
    none = explorer.page.locator(f'{entry} [data-testid="no-evaluations"]').count()
    assert none == (0 if results else 1)
    assert [(r["attrs"]["data-evaluation-id"], r["attrs"]["data-metric"]) for r in rows] == [
        (r["evaluation"], r["metric"] or "") for r in results
    ]
    verdicts = {True: "✔ pass", False: "✘ fail", None: "? unknown"}
    for result, row in zip(results, rows, strict=True):
        suite = " ".join(s for s in (result["suite"], result["suiteVersion"]) if s)
        score = (
            "no metric"
            if result["metric"] is None
            else (f"{result['metric']} = {js_text(result['value'])}")
        )
        assert {k: _words(v) for k, v in row["cells"].items()} == {
            "suite": suite or "no suite",
            "datasets": ", ".join(result["datasets"]) or "no dataset",
            "score": score,
            "passed": verdicts[result["passed"]],
            "evaluatedAt": js_text(result["evaluatedAt"]),
        }


# ------------------------------------------------------------------------------------ diff

Row = tuple[str, str, str, str, str]  # section, name, change, a, b (as the page shows them)


def _change(a: Any, b: Any) -> str:
    return "added" if a is None else "removed" if b is None else "changed"


def _changed_fields(diff: dict[str, Any]) -> list[Row]:
    """The rows the page must highlight: every field the `diff` answer reports as changed
    (params, inputs, and environment, code and base when the answer says they changed, the
    resources when it has them), and the final metrics whose values differ."""
    rows: list[Row] = []

    def add(section: str, name: str, a: Any, b: Any) -> None:
        rows.append((section, name, _change(a, b), js_text(a), js_text(b)))

    def add_map(section: str, found: dict[str, Any]) -> None:
        for name, value in found["added"].items():
            add(section, name, None, value)
        for name, value in found["removed"].items():
            add(section, name, value, None)
        for name, pair in found["changed"].items():
            add(section, name, pair["a"], pair["b"])

    add_map("params", diff["params"])
    for role, io in diff["inputs"].items():
        for removed in io["removed"]:
            add("inputs", role, removed, None)
        for added in io["added"]:
            add("inputs", role, None, added)
    env = diff["environment"]
    if env["changed"]:
        if env["a"] != env["b"]:
            add("environment", "snapshot", env["a"], env["b"])
        if env["image"]["a"] != env["image"]["b"]:
            add("environment", "image", env["image"]["a"], env["image"]["b"])
        add_map("packages", env["packages"])
        for c in env["changes"]:  # the image and the packages have their own rows above
            if c["section"] not in ("image", "packages"):
                name = c["section"] if c["section"] == c["name"] else f"{c['section']}.{c['name']}"
                add("environment", name, c["a"], c["b"])
    code = diff["code"]
    if code["changed"]:
        a, b = code["a"] or {}, code["b"] or {}
        for key in sorted(a.keys() | b.keys()):
            if a.get(key) != b.get(key):
                add("code", key, a.get(key), b.get(key))
    base = diff["base"]
    if base["changed"]:
        started, resumed = base["started_from"], base["resumed_from"]
        if started["a"] != started["b"]:
            add("base", "started from", started["a"], started["b"])
        if resumed["a"] != resumed["b"]:
            add("base", "resumed from", ", ".join(resumed["a"]), ", ".join(resumed["b"]))
    if "resources" in diff:  # only when they differ
        add_map("resources", diff["resources"])
    for name, metric in diff["metrics"].items():
        if metric["a"] != metric["b"]:
            add("metrics", name, metric["a"], metric["b"])
    return sorted(rows)


_DIFF_ROWS = """els => els.map(e => [
  e.getAttribute('data-section'), e.getAttribute('data-name'), e.getAttribute('data-change'),
  e.querySelector('.side-a') ? e.querySelector('.side-a').textContent : e.cells[2].textContent,
  e.querySelector('.side-b') ? e.querySelector('.side-b').textContent : e.cells[3].textContent,
  e.textContent])"""


def _rows(explorer: Explorer, table: str) -> list[tuple[Row, str]]:
    """(row, its whole text) of every row of a diff table."""
    found = explorer.page.eval_on_selector_all(f"{table} tbody tr", _DIFF_ROWS)
    return [((s, n, c, a, b), text) for s, n, c, a, b, text in found]


def _compact(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(", ", ": "), ensure_ascii=False)


def _fact_text(value: Any) -> str:
    """One side of a version fact as `provgraph diff` prints it (`step_lines`)."""
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        parts = []
        for v in value:
            if "dataset_version" in v:
                weight = "" if v["weight"] is None else f" x{js_text(v['weight'])}"
                how = f" ({v['transform']})" if v["transform"] else ""
                parts.append(f"{v['dataset_version']}{weight}{how}")
            else:
                extra = f" {_compact(v['params'])}" if v.get("params") else ""
                parts.append(f"{v['kind']} {v['name']}{extra}")
        return "; ".join(parts)
    return _compact(value)


def _check_version_steps(explorer: Explorer, diff: dict[str, Any]) -> None:
    """The page opens exactly the answer's dataset version steps: per step its head (as the
    CLI prints it) and a row per fact, both sides and the mark of those that differ."""
    steps = diff.get("dataset_versions", [])
    shown = explorer.rows('[data-testid="version-step"]')
    assert [(r["attrs"]["data-dataset"], r["attrs"]["data-role"]) for r in shown] == [
        (s["dataset"], s["role"]) for s in steps
    ]
    for step, row in zip(steps, shown, strict=True):
        changed = ", ".join(step["changed"]) or "nothing recorded differs"
        assert row["cells"]["step-head"] == (
            f"dataset {step['dataset']} ({step['role']}): {step['a']} -> {step['b']}: {changed}"
        )
        assert row["links"] == [_node_href(step["a"]), _node_href(step["b"])]
        selector = f'[data-testid="version-step"][data-dataset="{step["dataset"]}"] tbody tr'
        facts = explorer.rows(selector, "data-col")
        assert [(f["attrs"]["data-fact"], f["attrs"]["data-changed"]) for f in facts] == [
            (f["name"], "true" if f["changed"] else "false") for f in step["facts"]
        ]
        assert [f["cells"] for f in facts] == [
            {
                "name": f["name"],
                "a": _fact_text(f["a"]),
                "b": _fact_text(f["b"]),
                "change": "≠ changed" if f["changed"] else "",
            }
            for f in step["facts"]
        ]


@dataclass(frozen=True)
class DiffCase:
    a: str  # ids in the demo project, `{p}` for its name
    b: str
    # Rows whose values differ in an aspect the answer says did not change: shown, not
    # highlighted (section, name).
    noted: tuple[tuple[str, str], ...] = ()


DIFFS = {
    # Two sweep runs: lr, the training data and the image changed at once.
    "runs": DiffCase("run:{p}-demo-sft-001", "run:{p}-demo-sft-003"),
    # The best version against the deployed one: compared through the runs that made them; the
    # newer one resumed from its own checkpoint, which is not a change of recipe.
    "model-versions": DiffCase(
        "model:{p}/chat-1b@1.0.0", "model:{p}/chat-1b@1.1.0", noted=(("base", "resumed from"),)
    ),
}


@pytest.mark.parametrize("name", list(DIFFS))
def test_diff_highlights_exactly_the_changed_fields(
    explorer: Explorer, api: Api, stories: Stories, name: str
) -> None:
    case = DIFFS[name]
    a, b = case.a.format(p=stories.demo), case.b.format(p=stories.demo)
    explorer.signed_in(stories.reader, page_route("diff", a, b))
    explorer.page.get_by_test_id("diff-table").wait_for(timeout=WAIT_MS)
    explorer.shot(f"diff-{name}")
    diff = api.data(stories.reader, _DIFF, {"a": a, "b": b})["diff"]

    rows = _rows(explorer, '[data-testid="diff-table"]')
    highlighted = sorted(row for row, _ in rows if row[2] != "same")
    expected = _changed_fields(diff)
    assert highlighted == expected
    assert expected, "the two have no difference: the case tests nothing"
    assert explorer.texts('[data-testid="diff-count"]') == [f"{len(expected)} difference(s)."]
    # A row shown as the same although its values differ is one the answer does not count,
    # and says why.
    noted = [(row, text) for row, text in rows if row[2] == "same" and row[3] != row[4]]
    assert sorted((row[0], row[1]) for row, _ in noted) == sorted(case.noted)
    for (section, *_), text in noted:
        assert diff["environment" if section == "environment" else "base"]["changed"] is False
        assert "not a change" in text
    # The metric rows give the answer's delta.
    for metric, values in diff["metrics"].items():
        if values["delta"] is not None:
            (text,) = [t for row, t in rows if row[:2] == ("metrics", metric)]
            delta = values["delta"]
            assert f"Δ {'+' if delta > 0 else ''}{js_text(delta)}" in text
    chain = explorer.texts('[data-testid="diff-chain"] li')
    assert chain == [
        f"{'≠' if level['differs'] else '='} {level['a']} vs {level['b']}: {level['summary']}"
        for level in diff["chain"]
    ]
    _check_version_steps(explorer, diff)
    if name == "runs":  # sft-001 trained on instruct v1-clean, sft-003 on v2: one step
        assert [s["b"] for s in diff["dataset_versions"]] == [f"dataset:{stories.demo}/instruct@v2"]
    runs = diff["runs"]
    if (runs["a"], runs["b"]) != (a, b):
        assert _links(explorer, '[data-testid="diff-runs"]') == [
            _node_href(runs["a"]),
            _node_href(runs["b"]),
        ]
    else:
        assert explorer.page.get_by_test_id("diff-runs").count() == 0
    assert not explorer.errors


# ------------------------------------------------------------------------------- reproduce

Step = tuple[str, str | None]  # what a checklist item is about, and the node it links to


def _recipe_steps(recipe: dict[str, Any]) -> list[Step]:
    """The recipe's items in the order one follows them: the base first (and how it was
    made), then per run its code, image, packages, data (and what each version was derived
    from), params, resources and resumes; the export; the checksum to verify."""
    steps: list[Step] = []

    def data(version: dict[str, Any]) -> None:
        steps.append(("data", version.get("id")))
        for parent in version.get("derived_from") or []:
            data(parent)

    def run(recipe_run: dict[str, Any] | None) -> None:
        if not recipe_run:
            return
        base = recipe_run.get("base")
        if base:
            steps.append(("base", base["id"]))
            run(base.get("run_recipe") or base.get("run"))
        steps.append(("code", recipe_run["id"]))
        env = recipe_run.get("environment")
        if env:
            steps.append(("image", env.get("id")))
            if env.get("packages"):
                steps.append(("packages", None))
        for version in recipe_run.get("inputs") or []:
            data(version)
        steps.append(("params", None))
        if recipe_run.get("resources") is not None:
            steps.append(("resources", None))
        for resume in recipe_run.get("resumed_from") or []:
            steps.append(("resume", resume["id"]))
            run(resume.get("run_recipe"))

    run(recipe.get("run"))
    if recipe.get("exported_from"):
        steps.append(("export", recipe["exported_from"]["id"]))
    if recipe["target"].get("checksum") is not None:
        steps.append(("verify", recipe["target"]["id"]))
    return steps


def test_reproduce_checklist_is_the_recipe(explorer: Explorer, api: Api, stories: Stories) -> None:
    target = f"model:{stories.demo}/chat-1b@1.1.0"
    explorer.allow_clipboard()
    explorer.signed_in(stories.reader, page_route("reproduce", target))
    explorer.page.get_by_test_id("recipe").wait_for(timeout=WAIT_MS)
    explorer.shot("reproduce")
    recipe = api.data(stories.reader, _REPRODUCE, {"id": target})["reproduce"]

    items = '[data-testid="recipe"] > li'
    shown = list(
        zip(explorer.attrs(items, "data-step"), explorer.attrs(items, "data-step-id"), strict=True)
    )
    assert shown == _recipe_steps(recipe)
    # Every dataset version of the recipe is one of its data items (and no other is).
    assert {i for kind, i in shown if kind == "data"} == set(recipe["datasets"])
    # Everything with something to paste has its copy button; the resources have none.
    for kind in {kind for kind, _ in shown}:
        count = explorer.page.locator(f'{items}[data-step="{kind}"]').count()
        buttons = explorer.page.locator(f'{items}[data-step="{kind}"] button.copy').count()
        assert buttons == (0 if kind == "resources" else count), kind
    assert explorer.page.get_by_test_id("recipe-gaps").count() == (1 if recipe["gaps"] else 0)
    assert explorer.texts('[data-testid="recipe-gaps"] li') == [
        f"{gap['at']}: {gap['issue']}" for gap in recipe["gaps"]
    ]
    # What the demo holds: the base model and how it was made, a resume, an export.
    assert {"base", "resume", "export", "verify"} <= {kind for kind, _ in shown}

    # The copy buttons copy the commit to check out, and the whole recipe.
    run = recipe["run"]
    code = explorer.page.locator(f'{items}[data-step="code"][data-step-id="{run["id"]}"]')
    code.locator("button.copy").click()
    expect(code.locator("button.copy")).to_have_text("Copied ✔", timeout=WAIT_MS)
    assert explorer.clipboard() == f"git checkout {run['code']['commit']}"
    explorer.page.get_by_text("The recipe as JSON").click()
    copy_json = explorer.page.get_by_role("button", name=re.compile("^Copy JSON"))
    copy_json.click()
    expect(copy_json).to_have_text("Copied ✔", timeout=WAIT_MS)
    assert json.loads(explorer.clipboard()) == recipe
    assert not explorer.errors


# --------------------------------------------------------------------------------- compare


def _check_text(run: dict[str, Any]) -> str:
    """The page's one-change-at-a-time cell of a run (`ComparePage`), from the answer."""
    check = run["check"]
    changes = check["changes"]
    if check["flagged"]:
        prefix = "⚑ FLAGGED: "
    elif changes:
        prefix = "✔ one change: "
    else:
        prefix = "✔ no change" if check["against"] else "—"
    listed = "; ".join(
        f"{c['kind'].lower()} {c['name']} ({js_text(c['before'])} → {js_text(c['after'])})"
        for c in changes
    )
    against = f" vs {check['against']}" if check["against"] else ""
    unverifiable = check["unverifiable"]
    cannot = f"cannot compare: {', '.join(unverifiable)}" if unverifiable else ""
    return f"{prefix}{listed}{against}{cannot}"


def test_compare_shows_the_experiments_runs_and_flags(
    explorer: Explorer, api: Api, stories: Stories
) -> None:
    experiment = f"experiment:{stories.demo}/exp-002"
    explorer.signed_in(stories.reader, page_route("compare", experiment))
    explorer.page.get_by_test_id("compare-table").wait_for(timeout=WAIT_MS)
    explorer.shot("compare")
    answer = api.data(stories.reader, _COMPARE, {"experiment": experiment})["compare"]

    rows = explorer.rows("[data-testid=compare-table] tbody tr")
    assert [r["attrs"]["data-run-id"] for r in rows] == [r["id"] for r in answer["runs"]]
    flagged = [r["attrs"]["data-run-id"] for r in rows if r["attrs"]["data-flagged"] == "true"]
    assert flagged == answer["flagged"]
    assert explorer.texts('[data-field="flaggedCount"]') == [str(len(answer["flagged"]))]
    headers = explorer.texts("[data-testid=compare-table] thead th")
    assert [h.removeprefix("param ") for h in headers if h.startswith("param ")] == answer["params"]
    for run, row in zip(answer["runs"], rows, strict=True):
        cells = row["cells"]
        assert cells["check"] == _check_text(run)
        assert cells["status"].startswith(run["status"])
        values = {p["name"]: p["value"] for p in run["params"]}
        for param in answer["params"]:
            assert cells[f"params.{param}"] == js_text(values.get(param))
        assert row["links"][0] == _node_href(run["id"])
        against = run["check"]["against"]
        diff_links = [link for link in row["links"] if link.startswith("#/diff/")]
        assert diff_links == ([_href(page_route("diff", against, run["id"]))] if against else [])
    # The sweep's run #3 changed its data and its image at once: the only flagged one.
    assert answer["flagged"] == [f"run:{stories.demo}-demo-sft-003"]
    assert len(answer["runs"]) == 5
    assert not explorer.errors


# ------------------------------------------------------------------------------------ best


def _scored(explorer: Explorer, field: str, scored: dict[str, Any] | None) -> None:
    """A best / previous-best / ranking entry shows the version's link and value."""
    selector = f'[data-field="{field}"]'
    if scored is None:
        assert explorer.texts(selector) == ["—"]
        return
    assert explorer.attrs(f"{selector} a.node-link", "href") == [_node_href(scored["modelVersion"])]
    assert explorer.texts(f"{selector} strong") == [js_text(scored["value"])]
    text = explorer.texts(selector)[0]
    assert f"({scored['status']}, evaluated {scored['evaluatedAt']})" in text


def _check_best(explorer: Explorer, best: dict[str, Any]) -> None:
    evaluation_set = best["evaluationSet"]
    suite = " ".join(filter(None, (evaluation_set["suite"], evaluation_set["suiteVersion"])))
    label = " + ".join(evaluation_set["datasets"]) + (f" · {suite}" if suite else "")
    assert explorer.texts('[data-field="evaluationSet"]') == [label]
    _scored(explorer, "best", best["best"])
    _scored(explorer, "previousBest", best["previousBest"])
    delta = best["delta"]
    assert explorer.texts('[data-field="delta"]') == [
        f"{'+' if delta > 0 else ''}{js_text(delta)} (higher is better)"
    ]
    ranking = explorer.attrs('[data-testid="ranking"] [data-field="ranking"] a.node-link', "href")
    assert ranking == [_node_href(v["modelVersion"]) for v in best["ranking"]]
    assert explorer.texts('[data-testid="ranking"] strong') == [
        js_text(v["value"]) for v in best["ranking"]
    ]
    previous, winner = best["previousBest"]["modelVersion"], best["best"]["modelVersion"]
    assert explorer.attrs('[data-testid="best-diff-link"] a', "href") == [
        _href(page_route("diff", previous, winner))
    ]
    # What changed from the previous best: exactly the changed fields of the answer's diff.
    rows = _rows(explorer, '[data-testid="best-diff"]')
    assert sorted(row for row, _ in rows) == _changed_fields(best["diff"])


def test_best_version_is_the_answers(explorer: Explorer, api: Api, stories: Stories) -> None:
    model, eval_v1 = f"model:{stories.demo}/chat-1b", f"dataset:{stories.demo}/eval-suite@v1"
    explorer.signed_in(
        stories.reader, page_route("best", model, metric="acc", dataset=eval_v1, higher="1")
    )
    explorer.page.locator('[data-field="best"] a.node-link').wait_for(timeout=WAIT_MS)
    explorer.shot("best")
    best = api.data(stories.reader, _BEST, {"model": model, "datasets": [eval_v1]})
    best = best["bestModelVersion"]
    _check_best(explorer, best)
    # The demo's answer: the sweep's 1.1.0 beats the deployed 1.0.0; lr changed, and the
    # sweep's run recorded its resources where the deployed model's run recorded none.
    assert best["best"]["modelVersion"] == f"{model}@1.1.0"
    assert best["previousBest"]["modelVersion"] == f"{model}@1.0.0"
    assert [row[:2] for row in _changed_fields(best["diff"])] == [
        ("metrics", "val/loss"),
        ("params", "lr"),
        ("resources", "accelerator"),
        ("resources", "devices_per_node"),
        ("resources", "num_nodes"),
    ]

    # By name within the project, without an evaluation set: two sets, so no answer but a
    # choice; choosing one keeps the project and gives the answer for that set.
    explorer.go(page_route("best", "chat-1b", metric="acc", project=stories.demo, higher="1"))
    sets = explorer.page.get_by_test_id("evaluation-sets")
    sets.wait_for(timeout=WAIT_MS)
    explorer.shot("best-ambiguous")
    ambiguous = api.data(stories.reader, _BEST, {"model": "chat-1b", "project": stories.demo})
    ambiguous = ambiguous["bestModelVersion"]
    assert ambiguous["ambiguous"] and ambiguous["best"] is None
    assert explorer.attrs('[data-testid="evaluation-sets"] li', "data-datasets") == [
        " ".join(s["datasets"]) for s in ambiguous["evaluationSets"]
    ]
    assert explorer.texts('[data-field="best"]') == ["—"]
    # The form shows the question now asked (no evaluation set), not the last one.
    assert explorer.page.locator("input#best-dataset").input_value() == ""
    sets.locator(f'li[data-datasets="{eval_v1}"] a').click()
    explorer.page.locator(
        f'[data-field="best"] a.node-link[href="{_node_href(best["best"]["modelVersion"])}"]'
    ).wait_for(timeout=WAIT_MS)
    explorer.page.get_by_test_id("evaluation-sets").wait_for(state="detached", timeout=WAIT_MS)
    chosen = api.data(
        stories.reader, _BEST, {"model": "chat-1b", "project": stories.demo, "datasets": [eval_v1]}
    )["bestModelVersion"]
    _check_best(explorer, chosen)
    chosen_route = page_route(
        "best", "chat-1b", metric="acc", dataset=eval_v1, project=stories.demo, higher="1"
    )
    assert explorer.page.url.endswith(_href(chosen_route))
    assert explorer.page.locator("input#best-dataset").input_value() == eval_v1
    assert not explorer.errors


# ---------------------------------------------------------------------------------- digest


def _section_items(name: str, digest: dict[str, Any]) -> list[str]:
    """What each row of a digest section is about, as the answer lists them."""
    values: list[dict[str, Any]] = digest[name]
    if name == "people":
        return [p["person"] for p in values]
    if name == "stalled":
        return [s["run"]["id"] for s in values]
    if name == "repeatedFailures":
        return [f["experiment"] for f in values]
    if name.startswith("acceleratorHours"):
        return [a["key"] for a in values]
    return [v["id"] or v["modelVersion"] for v in values]


_STAMPS = (
    # The window's ends and an idle time move with the clock between two askings.
    (re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d → \d{4}-\d\d-\d\d \d\d:\d\d UTC"), "<window>"),
    (re.compile(r"no event for [\d.]+ h"), "no event for <idle> h"),
)


def _without_stamps(markdown: str) -> str:
    for pattern, replacement in _STAMPS:
        markdown = pattern.sub(replacement, markdown)
    return markdown


def test_digest_sections_are_the_answers(explorer: Explorer, api: Api, stories: Stories) -> None:
    # The demo happened on one day: a window from before it to now.
    first = min(e.occurred_at for e in demo_events(stories.demo))
    since = f"{(datetime.now(UTC) - first).days + 2}d"
    explorer.allow_clipboard()
    explorer.signed_in(stories.reader, page_route("digest", stories.demo, since=since))
    explorer.page.locator('[data-digest-section="people"]').wait_for(timeout=WAIT_MS)
    explorer.shot("digest")
    digest = api.data(stories.reader, _DIGEST, {"projects": [stories.demo], "since": since})
    digest = digest["digest"]

    sections = explorer.rows("[data-digest-section]")
    assert [s["attrs"]["data-digest-section"] for s in sections] == list(_DIGEST_SECTIONS)
    assert [s["attrs"]["data-count"] for s in sections] == [
        str(len(digest[name])) for name in _DIGEST_SECTIONS
    ]
    assert explorer.texts("[data-digest-section] > h3") == [
        f"{title} ({len(digest[name])})" for name, title in _DIGEST_SECTIONS.items()
    ]
    for name in _DIGEST_SECTIONS:
        cell = "data-count-of" if name == "people" else "data-field"
        rows = explorer.rows(f'[data-digest-section="{name}"] tr[data-item]', cell)
        assert [r["attrs"]["data-item"] for r in rows] == _section_items(name, digest), name
        for item, row in zip(digest[name], rows, strict=True):
            if name == "people":
                counts = {column: str(len(item[column])) for column in _PEOPLE_COLUMNS}
                assert row["cells"] == counts
            elif name.startswith("acceleratorHours"):
                assert row["cells"] == {"acceleratorHours": js_text(item["acceleratorHours"])}
            elif name == "feedback":
                # A feedback row names its deployment and the model version it was about.
                assert _node_href(item["id"]) in row["links"]
                assert _node_href(item["modelVersion"]) in row["links"]
    assert explorer.texts('[data-field="runsWithoutResources"]') == [
        str(digest["runsWithoutResources"])
    ]
    # What the demo holds: something in every section.
    assert all(digest[name] for name in _DIGEST_SECTIONS)
    assert _section_items("stalled", digest) == [f"run:{stories.demo}-demo-sft-005"]
    # A person has one name: the principal ingest stamped is shown as its token was issued
    # (never the Principal's node id `principal:service:...`), like the actor others claim.
    assert explorer.texts('[data-digest-section="people"] tr[data-item] > td:first-child') == [
        f"{stories.trainer} (principal)",
        "user:demo (actor)",
    ]
    assert "principal:" not in explorer.page.inner_text("body")

    # "Copy as Markdown" copies the digest's own text.
    copy = explorer.page.get_by_role("button", name=re.compile("^Copy as Markdown"))
    copy.click()
    expect(copy).to_have_text("Copied ✔", timeout=WAIT_MS)
    assert _without_stamps(explorer.clipboard()) == _without_stamps(digest["markdown"])
    assert not explorer.errors


# --------------------------------------------------------------------------------- effects

_EFFECTS_TABLE = '[data-testid="effects-table"]'
_EFFECT_ROWS = f"{_EFFECTS_TABLE} > tbody > tr[data-effect]"
# The page shows the answer once its rows are exactly these changes, in this order.
_EFFECTS_SHOWN = """labels => JSON.stringify([...document.querySelectorAll(
  '[data-testid="effects-table"] > tbody > tr[data-effect]')]
  .map(e => e.getAttribute('data-effect'))) === JSON.stringify(labels)"""


def _signed(delta: float | None) -> str:
    """A change of the metric as the page shows it (`lib/effects.ts`): signed, `—` for none."""
    if delta is None:
        return "—"
    return f"{'+' if delta > 0 else ''}{js_text(delta)}"


def _effect_cells(effect: dict[str, Any]) -> dict[str, str]:
    """The page's cells of one change's row (`EffectsPage`), from the answer: the columns of
    `provgraph effects` (change, kind, pairs, measured, mean Δ ± sd, min Δ, max Δ, failed,
    running)."""
    mean, spread = effect["meanDelta"], effect["spread"]
    mean_text = "—" if mean is None else _signed(mean)
    if mean is not None and spread is not None:
        mean_text += f" ± {js_text(spread)}"
    errors = ", ".join(
        f["error"] if f["count"] == 1 else f"{f['error']} x{f['count']}" for f in effect["failures"]
    )
    failed = f"{effect['failed']} of {effect['pairs']}: {errors}" if effect["failed"] else "—"
    return {
        "label": effect["label"],
        "kind": effect["kind"].lower(),
        "pairs": str(effect["pairs"]),
        "measured": str(effect["measured"]),
        "mean": mean_text,
        "minDelta": _signed(effect["minDelta"]),
        "maxDelta": _signed(effect["maxDelta"]),
        "failed": failed,
        "running": str(effect["running"]) if effect["running"] else "—",
    }


def _counted_text(answer: dict[str, Any]) -> str:
    return (
        f"Counted: {answer['pairs']} pairs with exactly one change, of {answer['runsRead']} "
        f"runs. Left out: {answer['flaggedPairs']} flagged (more than one change), "
        f"{answer['repeatPairs']} with nothing changed."
    )


def _check_effects(explorer: Explorer, answer: dict[str, Any]) -> None:
    """The page shows exactly the `effects` answer: a row per change with its cells, what was
    counted and left out, and, once each row's pairs are shown, exactly its pairs of runs."""
    effects = answer["effects"]
    labels = [e["label"] for e in effects]
    explorer.page.wait_for_function(_EFFECTS_SHOWN, arg=labels, timeout=WAIT_MS)
    rows = explorer.rows(_EFFECT_ROWS, "data-col")
    assert [r["attrs"]["data-effect"] for r in rows] == labels
    assert [r["attrs"]["data-kind"] for r in rows] == [e["kind"] for e in effects]
    for effect, row in zip(effects, rows, strict=True):
        assert row["cells"] == _effect_cells(effect), effect["label"]
    assert explorer.texts('[data-testid="effects-counted"]') == [_counted_text(answer)]
    assert explorer.texts('[data-field="metric"]') == [answer["metric"]["key"]]
    truncated = explorer.page.get_by_text("Truncated: the latest")
    assert truncated.count() == (1 if answer["truncated"] else 0)

    # Each row's pairs: the runs before and after (and a diff of the two), the experiment, the
    # later run's status, the delta.
    buttons = explorer.page.locator(f"{_EFFECT_ROWS} button")
    for n in range(buttons.count()):
        button = buttons.nth(n)
        if button.get_attribute("aria-expanded") == "false":
            button.click()
        expect(button).to_have_attribute("aria-expanded", "true", timeout=WAIT_MS)
    expect(explorer.page.locator(f"{_EFFECTS_TABLE} > tbody > tr[data-pairs-of]")).to_have_count(
        len(effects), timeout=WAIT_MS
    )
    for effect in effects:
        label = json.dumps(effect["label"], ensure_ascii=False)  # as a CSS string
        pairs = explorer.rows(f"tr[data-pairs-of={label}] tbody tr", "data-col")
        assert [(p["attrs"]["data-before"], p["attrs"]["data-after"]) for p in pairs] == [
            (r["before"], r["after"]) for r in effect["runs"]
        ]
        for pair, row in zip(effect["runs"], pairs, strict=True):
            cells = {name: text for name, text in row["cells"].items() if name != "runs"}
            assert cells == {
                "experiment": pair["experiment"] or "—",
                "status": js_text(pair["status"]),
                "delta": _signed(pair["delta"]),
                "startedAt": js_text(pair["startedAt"]),
            }
            experiment = [_node_href(pair["experiment"])] if pair["experiment"] else []
            assert row["links"] == [
                _node_href(pair["before"]),
                _node_href(pair["after"]),
                *experiment,
                _href(page_route("diff", pair["before"], pair["after"])),
            ]


def test_effects_table_is_the_answers(explorer: Explorer, api: Api, stories: Stories) -> None:
    metric = "final:val/loss"
    # Reached from a project, as the digest is; the page asks for a metric first.
    explorer.signed_in(stories.reader, page_route("search", project=stories.demo))
    explorer.page.get_by_role("link", name="what worked (effects)").click()
    explorer.page.get_by_text("Name a metric").wait_for(timeout=WAIT_MS)
    assert explorer.page.url.endswith(_href(page_route("effects", stories.demo, by="value")))
    assert explorer.page.locator(_EFFECTS_TABLE).count() == 0
    explorer.page.locator("input#effects-metric").fill(metric)
    explorer.page.get_by_role("button", name="Show", exact=True).click()
    explorer.page.locator(_EFFECTS_TABLE).wait_for(timeout=WAIT_MS)
    route = page_route("effects", stories.demo, metric=metric, by="value")
    assert explorer.page.url.endswith(_href(route))
    by_value = api.data(
        stories.reader, _EFFECTS, {"project": stories.demo, "metric": metric, "groupBy": "VALUE"}
    )["effects"]
    _check_effects(explorer, by_value)
    explorer.shot("effects")
    # What the demo holds, so that an empty answer cannot pass: exp-002's one-change pairs
    # (the lr, the batch size, the epochs of a run still running); the sweep's run #3
    # changed its data and its image at once, so it is left out as flagged.
    found = {e["label"]: e for e in by_value["effects"]}
    assert {"lr: 1e-05 -> 2e-05", "batch_size: 64 -> 32", "epochs: 3 -> 5"} <= set(found)
    assert found["lr: 1e-05 -> 2e-05"]["measured"] == found["lr: 1e-05 -> 2e-05"]["pairs"]
    assert found["epochs: 3 -> 5"]["running"] == found["epochs: 3 -> 5"]["pairs"]
    assert by_value["flaggedPairs"] >= 1

    # The form asks again grouped by factor: the route says so, and the page shows that answer.
    explorer.page.locator("select#effects-by").select_option("factor")
    explorer.page.get_by_role("button", name="Show", exact=True).click()
    by_factor = api.data(
        stories.reader, _EFFECTS, {"project": stories.demo, "metric": metric, "groupBy": "FACTOR"}
    )["effects"]
    _check_effects(explorer, by_factor)
    explorer.shot("effects-by-factor")
    route = page_route("effects", stories.demo, metric=metric, by="factor")
    assert explorer.page.url.endswith(_href(route))
    assert by_factor["groupBy"] == "FACTOR"
    assert [e["label"] for e in by_factor["effects"]] != [e["label"] for e in by_value["effects"]]
    assert explorer.page.locator("input#effects-metric").input_value() == metric
    assert not explorer.errors


def _words(text: str) -> str:
    return " ".join(text.split())


def _error_text(error: dict[str, Any]) -> str:
    """A GraphQL error as the page's error view shows it (`ErrorView`)."""
    return _words(f"Error ({error['extensions']['code']}): {error['message']}")


def test_effects_shows_the_apis_errors(explorer: Explorer, api: Api, stories: Stories) -> None:
    # A metric no run has: the API's invalid_argument names the metrics it knows.
    variables = {"project": stories.demo, "metric": "acc", "groupBy": "VALUE"}
    [error] = api.graphql(stories.reader, _EFFECTS, variables)["errors"]
    assert error["extensions"]["code"] == "invalid_argument"
    explorer.signed_in(stories.reader, page_route("effects", stories.demo, metric="acc"))
    shown = explorer.page.locator('.error[role="alert"]')
    shown.wait_for(timeout=WAIT_MS)
    explorer.shot("effects-invalid-metric")
    assert _words(shown.inner_text()) == _error_text(error)
    assert explorer.page.locator(_EFFECTS_TABLE).count() == 0

    # A project the token may not read: not_found, as for one that does not exist.
    explorer.page.get_by_role("button", name="Sign out").click()
    variables = {"project": stories.demo, "metric": "final:val/loss", "groupBy": "VALUE"}
    [error] = api.graphql(stories.chain_reader, _EFFECTS, variables)["errors"]
    assert error["extensions"]["code"] == "not_found"
    explorer.signed_in(
        stories.chain_reader, page_route("effects", stories.demo, metric="final:val/loss")
    )
    shown.wait_for(timeout=WAIT_MS)
    assert _words(shown.inner_text()) == _error_text(error)
    assert explorer.page.locator(_EFFECTS_TABLE).count() == 0
    assert not explorer.errors


# ------------------------------------------------------------------------------------ cost

_COST_RUNS = '[data-testid="cost-runs"] tbody tr[data-run]'
# The page shows an answer once it is loaded, its rows are exactly these runs, in this order,
# and its base line is this text (null: none).
_COST_SHOWN = """([runs, base]) => {
  if (document.querySelector('.loading')) return false;
  const shown = [...document.querySelectorAll('[data-testid="cost-runs"] tbody tr[data-run]')]
    .map(e => e.getAttribute('data-run'));
  const line = document.querySelector('[data-testid="cost-base"]');
  const text = line ? line.textContent.replace(/\\s+/g, ' ').trim() : null;
  return JSON.stringify(shown) === JSON.stringify(runs) && text === base;
}"""


def _size(n: int) -> str:
    """Bytes as the page writes them (`lib/costs.ts`, as `provgraph cost`): `4 GB`, `512 B`."""
    value = float(n)
    for unit in ("B", "kB", "MB", "GB", "TB"):
        if value < 1000 or unit == "TB":
            return f"{n} B" if unit == "B" else f"{js_text(float(f'{value:.3g}'))} {unit}"
        value /= 1000
    return f"{n} B"


def _runs_text(n: int) -> str:
    return f"{n} run{'' if n == 1 else 's'}"


def _cost_cells(run: dict[str, Any]) -> dict[str, str]:
    """The page's cells of one run's row (`CostPage`), from the answer: the columns of
    `provgraph cost` (run, name, status, role, hours, accelerators, acc-hours, interruptions,
    lost acc-hours, checkpoints)."""
    storage = [_size(run["checkpointBytes"])] if run["checkpointBytes"] else []
    if run["checkpointsWithoutSize"]:
        storage.append(f"{run['checkpointsWithoutSize']} without a size")
    checkpoints = ", ".join(storage) or "—"
    if storage and run["checkpointsCapped"]:
        checkpoints = f"≥ {checkpoints}"
    return {
        "run": run["id"],
        "name": js_text(run["name"]),
        "status": js_text(run["status"]),
        "role": run["role"],
        "hours": js_text(run["hours"]),
        "accelerators": js_text(run["accelerators"]),
        "acceleratorHours": js_text(run["acceleratorHours"]),
        "interruptions": str(run["interruptions"]),
        "lostAcceleratorHours": js_text(run["lostAcceleratorHours"]),
        "checkpoints": checkpoints,
    }


def _sum_cells(role: str, runs: int | None, hours: float, acc_hours: float) -> dict[str, str]:
    return {
        "role": role,
        "runs": js_text(runs),
        "hours": js_text(hours),
        "acceleratorHours": js_text(acc_hours),
    }


def _role_rows(answer: dict[str, Any]) -> list[dict[str, str]]:
    """The sums table's rows: each role, the total, and with a base its share and the sum."""
    totals, base, with_base = answer["totals"], answer["base"], answer["withBase"]
    rows = [
        _sum_cells(r["role"], r["runs"], r["hours"], r["acceleratorHours"])
        for r in totals["byRole"]
    ]
    rows.append(
        _sum_cells("total", len(answer["runs"]), totals["hours"], totals["acceleratorHours"])
    )
    if base is not None:
        rows.append(
            _sum_cells("base's share", None, base["shareHours"], base["shareAcceleratorHours"])
        )
    if with_base is not None:
        rows.append(
            _sum_cells(
                "with the base's share", None, with_base["hours"], with_base["acceleratorHours"]
            )
        )
    return rows


def _base_line(answer: dict[str, Any]) -> str | None:
    """The base line as `provgraph cost --include-base` prints it; None without a base."""
    base = answer["base"]
    if base is None:
        return None
    unknown = len(base["runsWithoutResources"])
    hours = f"{js_text(base['hours'])} hours" + (
        f", {_runs_text(unknown)} without recorded resources" if unknown else ""
    )
    return (
        f"base {base['modelVersion']}: {js_text(base['acceleratorHours'])} accelerator-hours "
        f"({hours}), shared by {_runs_text(base['users'])}: "
        f"{js_text(base['shareAcceleratorHours'])}; "
        f"with it: {js_text(answer['withBase']['acceleratorHours'])} accelerator-hours"
    )


def _check_cost(explorer: Explorer, answer: dict[str, Any]) -> None:
    """The page shows exactly the `cost` answer: a row per run with its cells and link, the
    sums by role, the lines of accelerator-hours, lost work and storage, the runs without
    resources and the base's share."""
    runs = answer["runs"]
    base_line = _base_line(answer)
    ids = [r["id"] for r in runs]
    explorer.page.wait_for_function(_COST_SHOWN, arg=[ids, base_line], timeout=WAIT_MS)
    rows = explorer.rows(_COST_RUNS, "data-col")
    assert [r["attrs"]["data-run"] for r in rows] == ids
    assert [r["attrs"]["data-role"] for r in rows] == [r["role"] for r in runs]
    for run, row in zip(runs, rows, strict=True):
        assert row["cells"] == _cost_cells(run), run["id"]
        assert row["links"] == [_node_href(run["id"])]
    sums = explorer.rows('[data-testid="cost-roles"] tbody tr', "data-col")
    assert [row["cells"] for row in sums] == _role_rows(answer)

    totals = answer["totals"]
    roles = ", ".join(
        f"{r['role']} {js_text(r['acceleratorHours'])} ({_runs_text(r['runs'])})"
        for r in totals["byRole"]
    )
    accelerator_hours = f"accelerator-hours: {js_text(totals['acceleratorHours'])}"
    assert explorer.texts('[data-testid="cost-acceleratorHours"]') == [
        accelerator_hours + (f": {roles}" if roles else "")
    ]
    assert explorer.texts('[data-testid="cost-lost"]') == [
        f"lost to interruptions: {js_text(totals['lostAcceleratorHours'])} accelerator-hours "
        f"({js_text(totals['lostHours'])} hours)"
    ]
    assert explorer.texts('[data-testid="cost-storage"]') == [
        f"checkpoint storage: {_size(totals['checkpointBytes'])}"
    ]
    unmeasured = totals["runsWithoutResources"]
    without = '[data-testid="cost-without-resources"]'
    if unmeasured:
        assert [_words(t) for t in explorer.texts(without)] == [
            f"without recorded resources (hours only): {', '.join(unmeasured)}"
        ]
        assert _links(explorer, without) == [_node_href(r) for r in unmeasured]
    else:
        assert explorer.page.locator(without).count() == 0

    base = answer["base"]
    if base is None:
        assert explorer.page.locator('[data-testid="cost-base"]').count() == 0
    else:
        assert [_words(t) for t in explorer.texts('[data-testid="cost-base"]')] == [base_line]
        assert _links(explorer, '[data-testid="cost-base"]') == [_node_href(base["modelVersion"])]
        origin = '[data-testid="cost-base-origin"]'
        made_by = [_node_href(base["run"])] if base["run"] else []
        assert _links(explorer, origin) == made_by
        assert f"each carrying {js_text(base['share'])} of its cost" in explorer.texts(origin)[0]
    truncated = explorer.page.get_by_text("Truncated: the experiment")
    assert truncated.count() == (1 if answer["truncated"] else 0)


def _cost(api: Api, stories: Stories, target: str, include_base: bool) -> dict[str, Any]:
    variables = {"id": target, "includeBase": include_base}
    answer: dict[str, Any] = api.data(stories.reader, _COST, variables)["cost"]
    return answer


def _open_cost_from_the_card(explorer: Explorer, stories: Stories, target: str) -> None:
    """Sign in on `target`'s node card and follow its Cost link."""
    explorer.signed_in(stories.reader, node_route(target))
    actions = explorer.page.get_by_role("navigation", name="About this node")
    actions.get_by_role("link", name="Cost", exact=True).click()
    explorer.page.locator(f"{_COST_RUNS}, [data-testid='cost-none']").first.wait_for(
        timeout=WAIT_MS
    )
    assert explorer.page.url.endswith(_href(page_route("cost", target)))


def test_cost_of_a_model_version_is_the_answers(
    explorer: Explorer, api: Api, stories: Stories
) -> None:
    version = f"model:{stories.demo}/chat-1b@1.1.0"
    _open_cost_from_the_card(explorer, stories, version)
    checkbox = explorer.page.locator("input#cost-base")
    assert not checkbox.is_checked()
    alone = _cost(api, stories, version, include_base=False)
    _check_cost(explorer, alone)
    explorer.shot("cost")
    # The demo's chat-1b 1.1.0 was made by the sweep's run #2: its first row, so that an empty
    # answer cannot pass; without the checkbox there is no base line.
    producing = f"run:{stories.demo}-demo-sft-002"
    assert alone["kind"] == "model_version" and alone["run"] == producing
    assert alone["runs"][0]["id"] == producing and alone["runs"][0]["role"] == "producing run"
    assert alone["base"] is None and alone["withBase"] is None

    # With the base's share: the route says so, the page shows that answer (the same runs,
    # the base's line and the sums with it).
    checkbox.check()
    with_base = _cost(api, stories, version, include_base=True)
    _check_cost(explorer, with_base)
    explorer.shot("cost-with-base")
    assert explorer.page.url.endswith(_href(page_route("cost", version, base="1")))
    assert checkbox.is_checked()
    assert with_base["base"] is not None and with_base["withBase"] is not None
    assert with_base["runs"] == alone["runs"]
    assert with_base["totals"] == alone["totals"]

    # And back without it.
    checkbox.uncheck()
    _check_cost(explorer, alone)
    assert explorer.page.url.endswith(_href(page_route("cost", version)))
    assert not explorer.errors


def test_cost_of_an_experiment_is_the_answers(
    explorer: Explorer, api: Api, stories: Stories
) -> None:
    experiment = f"experiment:{stories.demo}/exp-002"
    _open_cost_from_the_card(explorer, stories, experiment)
    answer = _cost(api, stories, experiment, include_base=False)
    _check_cost(explorer, answer)
    explorer.shot("cost-experiment")
    # An experiment has no base to share: no checkbox. The sweep's runs by outcome: the
    # completed ones (the producing run of 1.1.0 among them), the failed #3, the running #5.
    assert explorer.page.locator("input#cost-base").count() == 0
    assert answer["kind"] == "experiment"
    roles = {r["id"]: r["role"] for r in answer["runs"]}
    assert roles[f"run:{stories.demo}-demo-sft-002"] == "completed"
    assert set(roles.values()) == {"completed", "failed attempt", "running"}
    assert not explorer.errors


_COST_GAIN = """query ($id: ID!, $includeBase: Boolean!, $metric: String, $datasets: [ID!],
                    $suite: String, $higherIsBetter: Boolean!) {
  cost(id: $id, includeBase: $includeBase, metric: $metric, datasets: $datasets, suite: $suite,
       higherIsBetter: $higherIsBetter) {
    totals { acceleratorHours }
    gain {
      metric higherIsBetter value gain acceleratorHoursPerPoint message
      evaluationSet { datasets suite suiteVersion }
      previousBest { version value }
    }
  }
}"""


def _gain_line(gain: dict[str, Any]) -> str:
    """The gain line as `provgraph cost --metric` prints it (`recipes/cost.py` `_gain_line`)."""
    head = f"gain on {gain['metric']}"
    s = gain["evaluationSet"]
    if s is not None:
        head += f" ({', '.join(s['datasets']) or 'no dataset'} [{s['suite'] or '?'}])"
    previous = gain["previousBest"]
    if previous is None or gain["gain"] is None:
        return f"{head}: {gain['message']}"
    figures = (
        f"{head}: {js_text(gain['value'])} against {js_text(previous['value'])} "
        f"({previous['version']}), {js_text(gain['gain'] / 0.01)} points"
    )
    per = gain["acceleratorHoursPerPoint"]
    if per is None:
        return f"{figures}: {gain['message']}"
    return f"{figures}, {js_text(per)} accelerator-hours a point"


def _check_gain(explorer: Explorer, gain: dict[str, Any]) -> None:
    """The page shows the answer's gain: its line, the previous best linked, the figures."""
    line = _gain_line(gain)
    explorer.page.wait_for_function(
        """line => { const p = document.querySelector('[data-testid="cost-gain"]');
                     return p && p.textContent.replace(/\\s+/g, ' ').trim() === line; }""",
        arg=line,
        timeout=WAIT_MS,
    )
    assert [_words(t) for t in explorer.texts('[data-testid="cost-gain"]')] == [line]
    answer = '[data-testid="cost-gain-answer"]'
    previous = gain["previousBest"]
    assert _links(explorer, f'{answer} [data-field="previousBest"]') == (
        [_node_href(previous["version"])] if previous else []
    )
    [row] = explorer.rows(answer)
    assert row["cells"]["value"] == js_text(gain["value"])
    assert row["cells"]["acceleratorHoursPerPoint"] == js_text(gain["acceleratorHoursPerPoint"])
    assert row["cells"]["gain"].startswith(f"{js_text(gain['gain'])} (")


def test_cost_gain_on_a_metric_is_the_answers(
    explorer: Explorer, api: Api, stories: Stories
) -> None:
    version = f"model:{stories.demo}/chat-1b@1.1.0"
    eval_v1 = f"dataset:{stories.demo}/eval-suite@v1"
    explorer.signed_in(stories.reader, page_route("cost", version))
    explorer.page.locator(_COST_RUNS).first.wait_for(timeout=WAIT_MS)
    assert explorer.page.get_by_test_id("cost-gain").count() == 0

    # The metric alone: acc was recorded on two evaluation sets of the demo, so the API asks
    # for one and the page says so.
    explorer.page.fill("input#cost-metric", "acc")
    explorer.page.check("input#cost-higher")
    explorer.page.get_by_role("button", name="Gain per point").click()
    variables: dict[str, Any] = {
        "id": version,
        "includeBase": False,
        "metric": "acc",
        "datasets": None,
        "suite": None,
        "higherIsBetter": True,
    }
    ambiguous = api.data(stories.reader, _COST_GAIN, variables)["cost"]["gain"]
    _check_gain(explorer, ambiguous)
    assert explorer.page.url.endswith(_href(page_route("cost", version, metric="acc", higher="1")))
    assert ambiguous["gain"] is None and "several evaluation sets" in ambiguous["message"]

    # On eval-suite v1: 1.1.0 scored 0.66 against 1.0.0's 0.61, 5 points for its 14.9333
    # accelerator-hours.
    explorer.page.fill("input#cost-datasets", eval_v1)
    explorer.page.get_by_role("button", name="Gain per point").click()
    answer = api.data(stories.reader, _COST_GAIN, {**variables, "datasets": [eval_v1]})["cost"]
    gain = answer["gain"]
    _check_gain(explorer, gain)
    explorer.shot("cost-gain")
    assert explorer.page.url.endswith(
        _href(page_route("cost", version, metric="acc", dataset=eval_v1, higher="1"))
    )
    assert gain["previousBest"] == {"version": f"model:{stories.demo}/chat-1b@1.0.0", "value": 0.61}
    assert gain["value"] == 0.66 and round(gain["gain"], 6) == 0.05
    per = answer["totals"]["acceleratorHours"] / 5
    assert gain["acceleratorHoursPerPoint"] == pytest.approx(per, abs=1e-4)

    # Lower is better, asked again: the same figures read as a loss, no hours per point.
    explorer.page.uncheck("input#cost-higher")
    explorer.page.get_by_role("button", name="Gain per point").click()
    lower = api.data(
        stories.reader, _COST_GAIN, {**variables, "datasets": [eval_v1], "higherIsBetter": False}
    )["cost"]["gain"]
    _check_gain(explorer, lower)
    assert lower["gain"] is not None and lower["gain"] < 0
    assert lower["acceleratorHoursPerPoint"] is None
    assert not explorer.errors


def test_cost_shows_the_apis_errors(explorer: Explorer, api: Api, stories: Stories) -> None:
    # A run is neither a model version nor an experiment: the API's invalid_argument.
    run = f"run:{stories.demo}-demo-sft-002"
    [error] = api.graphql(stories.reader, _COST, {"id": run, "includeBase": False})["errors"]
    assert error["extensions"]["code"] == "invalid_argument"
    explorer.signed_in(stories.reader, page_route("cost", run))
    shown = explorer.page.locator('.error[role="alert"]')
    shown.wait_for(timeout=WAIT_MS)
    explorer.shot("cost-invalid-id")
    assert _words(shown.inner_text()) == _error_text(error)
    assert explorer.page.locator(_COST_RUNS).count() == 0

    # A model version that does not exist: not_found, the not-found page.
    missing = f"model:{stories.demo}/chat-1b@9.9.9"
    [error] = api.graphql(stories.reader, _COST, {"id": missing, "includeBase": False})["errors"]
    assert error["extensions"]["code"] == "not_found"
    explorer.go(page_route("cost", missing))
    not_found = explorer.page.get_by_test_id("not-found")
    not_found.wait_for(timeout=WAIT_MS)
    assert f"No node {missing}, or you may not read it." in not_found.inner_text()
    assert explorer.page.locator(_COST_RUNS).count() == 0
    assert not explorer.errors


# --------------------------------------------------------------------------------- lessons

_LESSON_HITS = "[data-lesson-hit]"
_OUT_OF_MEMORY = "out of memory"
# The page shows an answer once its hits are exactly these ids, in this order.
_LESSONS_SHOWN = """ids => JSON.stringify([...document.querySelectorAll('[data-lesson-hit]')]
  .map(e => e.getAttribute('data-lesson-hit'))) === JSON.stringify(ids)"""


def _lessons_variables(project: str, **filters: Any) -> dict[str, Any]:
    """The variables the page sends for a lessons search of the demo (`lib/lessons.ts`)."""
    base = {"kinds": None, "status": None, "metric": None, "param": None, "uses": None}
    return {"text": _OUT_OF_MEMORY, "project": project, **base, **filters}


def _lessons_route(**params: str) -> str:
    """The hash route (without `#`) the page writes for a lessons search (`formatRoute`)."""
    return f"/search?{urlencode({'mode': 'lessons', **params})}"


def _lessons_asked(explorer: Explorer, variables: dict[str, Any]) -> Any:
    """Wait for the answer of the page's `Lessons` request with exactly these variables."""

    def asked(response: Any) -> bool:
        body = json.loads(response.request.post_data or "{}")
        return "query Lessons" in body.get("query", "") and body.get("variables") == variables

    return explorer.page.expect_response(asked, timeout=WAIT_MS)


def _count_text(answer: dict[str, Any]) -> str:
    n = len(answer["hits"])
    hits = f"{n} hit{'' if n == 1 else 's'}" if n else "No hit"
    return f"{hits} for “{answer['text']}”{', best first' if n > 1 else ''}."


def _check_lessons(explorer: Explorer, answer: dict[str, Any]) -> None:
    """The page shows exactly the `lessons` answer: its hits in order, each with its id (a link
    to its card), type, status, experiment (a link), project and score, and the texts that
    matched as `field: text`; the count, the truncation note, the note on the filters."""
    hits = answer["hits"]
    ids = [h["id"] for h in hits]
    explorer.page.wait_for_function(_LESSONS_SHOWN, arg=ids, timeout=WAIT_MS)
    rows = explorer.rows(_LESSON_HITS, "data-col")
    assert [r["attrs"]["data-lesson-hit"] for r in rows] == ids
    assert [r["attrs"]["data-type"] for r in rows] == [h["type"] for h in hits]
    for hit, row in zip(hits, rows, strict=True):
        assert row["cells"] == {
            "status": js_text(hit["status"]),
            "experiment": hit["experiment"] or "—",
            "project": js_text(hit["project"]),
            "score": js_text(hit["score"]),
        }, hit["id"]
        experiment = [_node_href(hit["experiment"])] if hit["experiment"] else []
        assert row["links"] == [_node_href(hit["id"]), *experiment]
        selector = f"{_LESSON_HITS}[data-lesson-hit={json.dumps(hit['id'])}] [data-match-field]"
        matches = explorer.rows(selector, "data-part")
        assert [m["attrs"]["data-match-field"] for m in matches] == [
            m["field"] for m in hit["matches"]
        ]
        assert [m["cells"] for m in matches] == [
            {"field": m["field"], "text": m["text"].strip()} for m in hit["matches"]
        ]
    assert explorer.texts('[data-testid="lessons-count"]') == [_count_text(answer)]
    truncated = explorer.page.get_by_test_id("lessons-truncated")
    assert truncated.count() == (1 if answer["truncated"] else 0)
    # Every search here is kept to the demo project: the page says what the filters narrowed.
    assert explorer.texts('[data-testid="lessons-candidates"]') == [
        f"The filters keep these of the index's best {answer['candidates']} matches of the words."
    ]


def _has_the_oom_run(answer: dict[str, Any], project: str) -> None:
    """What the demo holds, so that an empty answer cannot pass: the sweep's run #3 failed with
    `CUDA out of memory`."""
    hits = {h["id"]: h for h in answer["hits"]}
    run = f"run:{project}-demo-sft-003"
    assert run in hits, list(hits)
    assert {"field": "error_message", "text": "CUDA out of memory"} in hits[run]["matches"]


def test_lessons_are_the_answers(explorer: Explorer, api: Api, stories: Stories) -> None:
    project = stories.demo
    # The search page's second mode, reached from a project's search.
    explorer.signed_in(stories.reader, page_route("search", project=project))
    explorer.page.get_by_role("link", name="Lessons: what earlier attempts concluded").click()
    explorer.page.get_by_text("Give words to look for").wait_for(timeout=WAIT_MS)
    assert explorer.page.url.endswith(_href(_lessons_route(project=project)))
    assert explorer.page.locator(_LESSON_HITS).count() == 0

    # The words alone, in the project.
    variables = _lessons_variables(project)
    explorer.page.locator("input#lessons-q").fill(_OUT_OF_MEMORY)
    with _lessons_asked(explorer, variables):
        explorer.page.get_by_role("button", name="Search", exact=True).click()
    assert explorer.page.url.endswith(_href(_lessons_route(q=_OUT_OF_MEMORY, project=project)))
    words = api.data(stories.reader, _LESSONS, variables)["lessons"]
    _check_lessons(explorer, words)
    explorer.shot("lessons")
    _has_the_oom_run(words, project)

    # Kept to failed runs by the form: the route says so, the page asks exactly that.
    explorer.page.locator("input#lessons-kind-run").check()
    explorer.page.locator("input#lessons-status").fill("failed")
    variables = _lessons_variables(project, kinds=["RUN"], status="failed")
    with _lessons_asked(explorer, variables):
        explorer.page.get_by_role("button", name="Search", exact=True).click()
    route = _lessons_route(q=_OUT_OF_MEMORY, project=project, kind="run", status="failed")
    assert explorer.page.url.endswith(_href(route))
    failed = api.data(stories.reader, _LESSONS, variables)["lessons"]
    _check_lessons(explorer, failed)
    explorer.shot("lessons-failed-runs")
    _has_the_oom_run(failed, project)
    assert {(h["type"], h["status"]) for h in failed["hits"]} == {("Run", "failed")}
    assert explorer.page.locator("input#lessons-kind-run").is_checked()
    assert explorer.page.locator("input#lessons-status").input_value() == "failed"

    # A hit leads to its card.
    run = f"run:{project}-demo-sft-003"
    explorer.page.locator(f'[data-lesson-hit="{run}"] > a.node-link').click()
    explorer.page.locator(f'[data-node-card="{run}"]').wait_for(timeout=WAIT_MS)
    assert not explorer.errors


def test_lessons_show_the_apis_errors(explorer: Explorer, api: Api, stories: Stories) -> None:
    project = stories.demo
    # A metric that is not a condition: the API's invalid_argument says what one looks like.
    metric = "final:val/loss"
    variables = _lessons_variables(project, metric=metric)
    [error] = api.graphql(stories.reader, _LESSONS, variables)["errors"]
    assert error["extensions"]["code"] == "invalid_argument"
    explorer.signed_in(stories.reader, _lessons_route(q=_OUT_OF_MEMORY, project=project))
    explorer.page.locator(_LESSON_HITS).first.wait_for(timeout=WAIT_MS)
    explorer.page.locator("input#lessons-metric").fill(metric)
    with _lessons_asked(explorer, variables):
        explorer.page.get_by_role("button", name="Search", exact=True).click()
    shown = explorer.page.locator('.error[role="alert"]')
    shown.wait_for(timeout=WAIT_MS)
    explorer.shot("lessons-invalid-metric")
    route = _lessons_route(q=_OUT_OF_MEMORY, project=project, metric=metric)
    assert explorer.page.url.endswith(_href(route))
    assert _words(shown.inner_text()) == _error_text(error)
    assert explorer.page.locator(_LESSON_HITS).count() == 0
    assert explorer.page.locator("input#lessons-metric").input_value() == metric
    assert not explorer.errors


# ----------------------------------------------------------------------- model-version card


def _verdict(passed: bool | None) -> str:
    return {True: "✔ pass", False: "✘ fail", None: "? unknown"}[passed]


def _metrics_text(metrics: Any) -> str:
    values = json.loads(metrics) if isinstance(metrics, str) else metrics or {}
    return ", ".join(f"{k} {js_text(v)}" for k, v in values.items()) or "—"


def test_a_model_version_card_shows_the_graphs_values(
    explorer: Explorer, api: Api, stories: Stories
) -> None:
    version = f"model:{stories.demo}/chat-1b@1.0.0"
    explorer.signed_in(stories.reader, node_route(version))
    explorer.page.locator(f'[data-node-card="{version}"]').wait_for(timeout=WAIT_MS)
    explorer.page.locator('[data-field="feedback"]').wait_for(timeout=WAIT_MS)
    explorer.shot("model-version")
    node = api.data(stories.reader, _MODEL_VERSION, {"id": version})["node"]
    fields = explorer.fields()

    expected = {
        "status": node["status"],
        "statusReason": js_text(node["statusReason"]),
        "registeredAt": node["registeredAt"],
        "validationPassed": _verdict(node["validationPassed"]),
        "fitFor": ", ".join(node["fitFor"]) or "—",
        "uri": node["uri"],
        "checksum": node["checksum"],
    }
    assert {name: fields.get(name) for name in expected} == expected
    for field, ref in (
        ("model", node["model"]),
        ("producedBy", node["producedBy"]),
        ("exportedFrom", node["exportedFrom"]),
    ):
        assert _links(explorer, f'[data-field="{field}"]') == [_node_href(ref["id"])], field

    rows = explorer.rows('[data-field="evaluations"] tbody tr', "data-col")
    assert [r["attrs"]["data-evaluation-id"] for r in rows] == [
        e["id"] for e in node["evaluations"]
    ]
    for evaluation, row in zip(node["evaluations"], rows, strict=True):
        assert row["cells"]["passed"] == _verdict(evaluation["passed"])
        assert row["cells"]["metrics"] == _metrics_text(evaluation["metrics"])
        assert row["cells"]["evaluatedAt"] == evaluation["evaluatedAt"]
        assert row["links"] == [_node_href(evaluation["id"])] + [
            _node_href(d["id"]) for d in evaluation["datasets"]
        ]

    deployments = '[data-field="deployments"] li'
    assert explorer.attrs(deployments, "data-deployment-id") == [
        d["id"] for d in node["deployments"]
    ]
    for deployment in node["deployments"]:
        text = explorer.texts(f'{deployments}[data-deployment-id="{deployment["id"]}"]')[0]
        assert f" — {deployment['environment']}, {deployment['status']}" in text
        assert text.endswith(f" at {deployment['endpoint']}")

    feedback = '[data-field="feedback"] tbody tr'
    assert explorer.attrs(feedback, "data-feedback-event") == [
        f["eventId"] for f in node["feedback"]
    ]
    for item in node["feedback"]:
        row = f'{feedback}[data-feedback-event="{item["eventId"]}"]'
        assert _links(explorer, row) == [_node_href(item["deployment"]["id"])]
        assert _metrics_text(item["metrics"]) in explorer.texts(f"{row} td")

    # What the demo holds: approved, evaluated twice (passed on v1, failed on v2), deployed.
    assert node["status"] == "approved"
    assert sorted(e["passed"] for e in node["evaluations"]) == [False, True]
    assert [d["id"] for d in node["deployments"]] == [f"deployment:{stories.demo}/chat-api"]
    assert len(node["feedback"]) == 1
    assert not explorer.errors
