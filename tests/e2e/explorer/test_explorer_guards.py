"""The Guards page (`#/guards/<project>`) in Chromium: it shows the GraphQL answer of
`lintMetrics`, `lintNames` and `collisions` for the same project, asked with the same token.

Projects of this module: the guards' story (`support.guards_story`: a metric alias, naming
rules and a storage root, and records breaking them), a project that declares no convention
and breaks none, and one that does not exist.
"""

from __future__ import annotations

import shlex
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from explorer_helpers import (
    AUTH_CACHE_S,
    UI_DIR,
    WAIT_MS,
    Api,
    Explorer,
    js_text,
    node_route,
    page_route,
)
from neo4j import Driver
from playwright.sync_api import Browser, expect
from support.guards_story import seed_guards_story
from support.http_service import served
from support.stories import seed_story

from provgraph.query.app import create_app
from provgraph.query.settings import QuerySettings

_GUARDS = """query ($project: String!) {
  lintMetrics(project: $project) {
    project metrics aliases { alias canonical }
    groups { key canonical settled undeclared names { name records aliasOf } }
  }
  lintNames(project: $project) {
    project enforced rules
    kinds { kind rule checked truncated breaks { id name problem suggestion } }
  }
  collisions(project: $project) {
    project storageRoots enforced checked truncated
    outOfPlace { id kind run experiment uri problem }
    shared { uri writers { id kind run experiment } }
  }
}"""

_LOADED = '[data-guard="collisions"], .error[role="alert"]'


@dataclass(frozen=True)
class Guarded:
    story: str  # the guards' story
    plain: str  # declares no convention, breaks none
    reader: str  # reads both
    plain_reader: str  # reads `plain` only


def _plain_steps(p: str) -> list[tuple[str, dict[str, Any], float]]:
    """An experiment, a run logging two metric names of different spellings, a checkpoint."""
    run = {"run_id": f"{p}-r1", "experiment": f"experiment:{p}/sft", "run_number": 1,
           "name": "anything-goes"}  # fmt: skip
    return [
        ("experiment.created", {"key": "sft", "number": 1, "goal": "baseline"}, 0),
        ("run.started", run, 1),
        ("checkpoint.saved", {"run_id": f"{p}-r1", "step": 10, "uri": "s3://team/ckpt/10"}, 2),
        ("run.completed", {"run_id": f"{p}-r1", "final_metrics": {"val/loss": 1, "acc": 0.5}}, 3),
    ]


@pytest.fixture(scope="module")
def guarded(neo4j_driver: Driver, access: Any) -> Iterator[Guarded]:
    tag = uuid.uuid4().hex[:8]
    story, plain = f"t-explorer-guards-{tag}", f"t-explorer-plain-{tag}"
    seed_guards_story(neo4j_driver, story)
    seed_story(neo4j_driver, plain, _plain_steps(plain), datetime(2026, 4, 2, 9, tzinfo=UTC))
    reader = access.token(
        f"service:{story}-reader", grants={story: ("reader",), plain: ("reader",)}
    )
    plain_reader = access.token(f"service:{plain}-reader", grants={plain: ("reader",)})
    try:
        yield Guarded(story, plain, reader, plain_reader)
    finally:
        for project in (story, plain):
            neo4j_driver.execute_query("MATCH (n {project: $p}) DETACH DELETE n", p=project)


def _guards(api: Api, token: str, project: str) -> dict[str, Any]:
    return api.data(token, _GUARDS, {"project": project})


def _href(node: str | None) -> list[str]:
    return [f"#{node_route(node)}"] if node else []


def _words(text: str) -> str:
    return " ".join(text.split())


def _enforced(enforced: bool) -> str:
    return "refused at ingest" if enforced else "not enforced"


def _loaded(explorer: Explorer, route: str) -> None:
    explorer.page.locator(_LOADED).first.wait_for(timeout=WAIT_MS)
    assert explorer.page.url.endswith(f"#{route}")


# ----------------------------------------------------------------------- what the page shows


def _check_metrics(explorer: Explorer, lint: dict[str, Any]) -> None:
    """Each group: key, canonical name, state, spellings (records, alias of), what to declare,
    and the `provgraph policy set` flags that declare it, as `lint-metrics` prints them."""
    groups = lint["groups"]
    assert explorer.texts('[data-testid="metrics-summary"]') == [
        f"{lint['metrics']} metric names; {len(groups)} spelled more ways than one."
    ]
    aliases = ", ".join(f"{a['alias']} → {a['canonical']}" for a in lint["aliases"])
    assert explorer.texts('[data-testid="metric-aliases"]') == [
        f"Declared aliases: {aliases}." if aliases else "No metric alias declared."
    ]
    rows = explorer.rows('[data-guard="metrics"] tr[data-group]', "data-col")
    assert [r["attrs"]["data-group"] for r in rows] == [g["key"] for g in groups]
    for group, row in zip(groups, rows, strict=True):
        cells = {k: v for k, v in row["cells"].items() if k != "names"}
        assert cells == {
            "key": group["key"],
            "canonical": group["canonical"],
            "state": "settled" if group["settled"] else "not declared",
            "undeclared": ", ".join(group["undeclared"]) or "—",
        }
        spellings = [
            f"{n['name']}: {n['records']} record{'' if n['records'] == 1 else 's'}"
            + (f", alias of {n['aliasOf']}" if n["aliasOf"] else "")
            for n in group["names"]
        ]
        key = group["key"].replace('"', '\\"')
        assert explorer.texts(f'tr[data-group="{key}"] li[data-spelling]') == spellings
    pending = [f"{n}={g['canonical']}" for g in groups for n in g["undeclared"]]
    flags = " ".join(f"--metric-alias {shlex.quote(p)}" for p in pending)
    command = f"provgraph policy set {shlex.quote(lint['project'])} {flags}"
    assert explorer.texts('[data-testid="metrics-declare"] > code') == (
        [command] if pending else []
    )
    none = explorer.texts('[data-testid="metrics-none"]')
    assert none == ([] if groups else ["Every metric name is spelled one way."])


def _check_names(explorer: Explorer, lint: dict[str, Any]) -> None:
    """Per kind with a rule: the rule, how many break it, and each breaking record linked to
    its card with its name, the problem and the name the rule builds."""
    kinds = lint["kinds"]
    assert explorer.attrs('[data-guard="names"] [data-kind]', "data-kind") == [
        k["kind"] for k in kinds
    ]
    for kind in kinds:
        at = f'[data-guard="names"] [data-kind="{kind["kind"]}"]'
        assert explorer.texts(f'{at} [data-field="rule"]') == [kind["rule"]]
        more = " (more not checked)" if kind["truncated"] else ""
        assert explorer.texts(f'{at} [data-field="breaks"]') == [
            f"{len(kind['breaks'])} of {kind['checked']} break it{more}"
        ]
        rows = explorer.rows(f"{at} tr[data-break]", "data-col")
        assert [r["attrs"]["data-break"] for r in rows] == [b["id"] for b in kind["breaks"]]
        for found, row in zip(kind["breaks"], rows, strict=True):
            assert row["cells"] == {
                "id": found["id"],
                "name": js_text(found["name"]),
                "problem": found["problem"],
                "suggestion": found["suggestion"] or "— (the rule builds none)",
            }
            assert row["links"] == _href(found["id"])
    if kinds:
        rules = f"{lint['rules']} naming rule{'' if lint['rules'] == 1 else 's'}"
        assert explorer.texts('[data-testid="names-summary"]') == [
            f"{rules}, {_enforced(lint['enforced'])}."
        ]
    else:
        assert explorer.texts('[data-testid="names-none"]') == [
            f"No naming rule declared (provgraph policy set {lint['project']} "
            "--name-rule KIND=TEMPLATE)."
        ]


def _writer_cells(writer: dict[str, Any]) -> dict[str, str]:
    return {
        "id": writer["id"],
        "kind": writer["kind"],
        "run": writer["run"] or "—",
        "experiment": writer["experiment"] or "—",
    }


def _check_collisions(explorer: Explorer, found: dict[str, Any]) -> None:
    """The outputs out of place with their problem, and each shared URI with its writers, every
    output, run and experiment linked to its card."""
    roots = ", ".join(found["storageRoots"]) or "none declared"
    outputs = f"{found['checked']} output{'' if found['checked'] == 1 else 's'}"
    assert explorer.texts('[data-testid="collisions-summary"]') == [
        f"{outputs} checked; storage roots: {roots} ({_enforced(found['enforced'])})."
    ]
    truncated = explorer.page.get_by_text("Truncated: only the first")
    assert truncated.count() == (1 if found["truncated"] else 0)
    rows = explorer.rows('[data-testid="out-of-place"] tr[data-output]', "data-col")
    assert [(r["attrs"]["data-output"], r["attrs"]["data-uri"]) for r in rows] == [
        (o["id"], o["uri"]) for o in found["outOfPlace"]
    ]
    for output, row in zip(found["outOfPlace"], rows, strict=True):
        assert row["cells"] == {**_writer_cells(output), "problem": output["problem"]}
        assert row["links"] == [
            *_href(output["id"]),
            *_href(output["run"]),
            *_href(output["experiment"]),
        ]
    none = explorer.texts('[data-testid="out-of-place-none"]')
    assert none == ([] if found["outOfPlace"] else ["Nothing out of place."])
    shared = found["shared"]
    assert explorer.attrs("[data-shared]", "data-shared") == [s["uri"] for s in shared]
    for uri in shared:
        at = f'[data-shared="{uri["uri"]}"] tr[data-writer]'
        writers = explorer.rows(at, "data-col")
        assert [w["cells"] for w in writers] == [_writer_cells(w) for w in uri["writers"]]
        assert [w["links"] for w in writers] == [
            [*_href(w["id"]), *_href(w["run"]), *_href(w["experiment"])] for w in uri["writers"]
        ]
    none = explorer.texts('[data-testid="shared-none"]')
    assert none == ([] if shared else ["No URI written by more than one job."])


def _check_guards(explorer: Explorer, answer: dict[str, Any]) -> None:
    _check_metrics(explorer, answer["lintMetrics"])
    _check_names(explorer, answer["lintNames"])
    _check_collisions(explorer, answer["collisions"])


# ----------------------------------------------------------------------------------- tests


def test_guards_page_is_the_answers(explorer: Explorer, api: Api, guarded: Guarded) -> None:
    p = guarded.story
    # Reached from the search page's project, as the digest and the effects are.
    explorer.signed_in(guarded.reader, page_route("search", project=p))
    explorer.page.get_by_role("link", name="guards (conventions broken)").click()
    route = page_route("guards", p)
    _loaded(explorer, route)
    answer = _guards(api, guarded.reader, p)
    _check_guards(explorer, answer)
    explorer.shot("guards")

    # What the story holds, so that an empty or a wrong answer cannot pass.
    (group,) = answer["lintMetrics"]["groups"]
    assert (group["canonical"], group["settled"], group["undeclared"]) == (
        "val/loss",
        False,
        ["val_loss"],
    )
    runs, models = answer["lintNames"]["kinds"]
    assert [(b["id"], b["suggestion"]) for b in runs["breaks"]] == [(f"run:{p}-sft-2", "sft-r2")]
    assert [(b["id"], b["suggestion"]) for b in models["breaks"]] == [
        (f"model:{p}/chat@release-3", None)
    ]
    assert [o["id"] for o in answer["collisions"]["outOfPlace"]] == [
        f"dataset:{p}/web@v1",
        f"model:{p}/chat@v2",
    ]
    assert [s["uri"] for s in answer["collisions"]["shared"]] == ["s3://lake/p/ckpt/shared"]
    command = f"provgraph policy set {p} --metric-alias val_loss=val/loss"
    assert explorer.texts('[data-testid="metrics-declare"] > code') == [command]

    # A breaking record's link opens its card; the card links back to the project's guards.
    explorer.page.locator(f'tr[data-break="run:{p}-sft-2"] a.node-link').click()
    explorer.page.locator(f'[data-node-card="run:{p}-sft-2"]').wait_for(timeout=WAIT_MS)
    explorer.page.get_by_role("link", name="Project guards").click()
    _loaded(explorer, route)
    _check_guards(explorer, answer)
    assert not explorer.errors


def test_guards_says_when_nothing_breaks(explorer: Explorer, api: Api, guarded: Guarded) -> None:
    route = page_route("guards", guarded.plain)
    explorer.signed_in(guarded.reader, route)
    _loaded(explorer, route)
    answer = _guards(api, guarded.reader, guarded.plain)
    assert answer["lintMetrics"]["metrics"] == 2 and not answer["lintMetrics"]["groups"]
    assert answer["lintNames"]["kinds"] == []
    found = answer["collisions"]
    assert (found["checked"], found["outOfPlace"], found["shared"]) == (1, [], [])
    _check_guards(explorer, answer)
    explorer.shot("guards-nothing-broken")
    assert explorer.page.locator("[data-group], [data-kind], [data-output]").count() == 0
    assert not explorer.errors


@pytest.mark.parametrize("who", ["unknown", "unreadable"])
def test_guards_shows_not_found(explorer: Explorer, api: Api, guarded: Guarded, who: str) -> None:
    # A project that does not exist, and one the token may not read: the same not_found.
    token, project = {
        "unknown": (guarded.reader, f"{guarded.story}-none"),
        "unreadable": (guarded.plain_reader, guarded.story),
    }[who]
    errors = api.graphql(token, _GUARDS, {"project": project})["errors"]
    assert {e["extensions"]["code"] for e in errors} == {"not_found"}
    # Each of the three reports fails alike; the page says the reason once.
    message = "; ".join(dict.fromkeys(e["message"] for e in errors))
    route = page_route("guards", project)
    explorer.signed_in(token, route)
    _loaded(explorer, route)
    shown = explorer.page.locator('.error[role="alert"]')
    expect(shown).to_have_count(1, timeout=WAIT_MS)
    explorer.shot(f"guards-{who}")
    assert _words(shown.inner_text()) == _words(f"Error (not_found): {message}")
    assert explorer.texts('[data-testid="guards-not-found"]') == [
        f"No project {project}, or you may not read it. Search for a project."
    ]
    assert explorer.page.locator("[data-guard]").count() == 0
    assert not explorer.errors


# The story has 3 runs, 3 model versions and 4 outputs: 3 to 4 times what an app reading one
# record of a kind per report checks.
_SMALL_MAX = 1


@pytest.fixture()
def small(neo4j_endpoint: Any, chromium: Browser, tmp_path: Path) -> Iterator[tuple[Api, Explorer]]:
    """The query app with `guards_max_records` at `_SMALL_MAX`, and a page on it."""
    settings = QuerySettings(
        neo4j_uri=neo4j_endpoint.uri,
        neo4j_user=neo4j_endpoint.user,
        neo4j_password=neo4j_endpoint.password,
        ui_dir=UI_DIR,
        auth_cache_s=AUTH_CACHE_S,
        auth_disabled=False,
        guards_max_records=_SMALL_MAX,
    )
    shots = tmp_path / "screenshots"
    shots.mkdir()
    with served(create_app(settings)) as url:
        context = chromium.new_context(viewport={"width": 1600, "height": 1000})
        try:
            yield Api(url), Explorer(context.new_page(), url, shots)
        finally:
            context.close()


def test_guards_says_what_it_did_not_check(small: tuple[Api, Explorer], guarded: Guarded) -> None:
    api, explorer = small
    route = page_route("guards", guarded.story)
    explorer.signed_in(guarded.reader, route)
    _loaded(explorer, route)
    answer = _guards(api, guarded.reader, guarded.story)
    kinds = answer["lintNames"]["kinds"]
    assert [(k["kind"], k["checked"], k["truncated"]) for k in kinds] == [
        ("run", _SMALL_MAX, True),
        ("model_version", _SMALL_MAX, True),
    ]
    found = answer["collisions"]
    assert (found["checked"], found["truncated"]) == (_SMALL_MAX, True)
    _check_guards(explorer, answer)
    explorer.shot("guards-truncated")
    assert explorer.texts('[data-field="breaks"]') == [
        f"{len(k['breaks'])} of {_SMALL_MAX} break it (more not checked)" for k in kinds
    ]
    assert explorer.texts(".notice") == [
        f"⚠ Truncated: only the first {_SMALL_MAX} outputs (by URI) were checked."
    ]
    assert not explorer.errors
