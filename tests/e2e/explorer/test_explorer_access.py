"""Signing in, GraphiQL, and what a token may see: in Chromium, against the real query service."""

from __future__ import annotations

import json
import time
from typing import Any

from explorer_helpers import (
    AUTH_CACHE_S,
    WAIT_MS,
    Api,
    Explorer,
    Stories,
    chain_id,
    lineage_route,
    node_route,
)
from neo4j import Driver
from playwright.sync_api import Response, expect

from provgraph.authz.admin import token_revoked
from provgraph.cli.demo_story import DEPLOYED_MODEL
from provgraph.ingest.projection import project_event
from provgraph.ingest.projector.writer import GraphWriter

REFUSED = "The token was refused (401): sign in again."


def _model(project: str) -> str:
    return DEPLOYED_MODEL.replace("demo-llm/", f"{project}/")


def _editor_value(explorer: Explorer, pane: str) -> str:
    """The text of a GraphiQL CodeMirror pane (`query-editor` or `response`)."""
    return str(
        explorer.page.evaluate(
            "pane => { const e = document.querySelector(`.graphiql-${pane} .CodeMirror`);"
            " return e ? e.CodeMirror.getValue() : ''; }",
            pane,
        )
    )


def _run_in_graphiql(explorer: Explorer, query: str) -> Any:
    """Type `query` in GraphiQL's editor, run it, and read the answer it shows, once that is
    the service's answer to this run."""
    page = explorer.page
    page.evaluate(
        "q => document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.setValue(q)",
        query,
    )

    def is_the_run(response: Response) -> bool:
        sent = response.request
        return (
            response.url == f"{explorer.base_url}/graphql"
            and sent.method == "POST"
            and json.loads(sent.post_data or "{}").get("query") == query
        )

    with page.expect_response(is_the_run, timeout=WAIT_MS) as answered:
        page.locator(".graphiql-execute-button").click()
    page.wait_for_function(
        "sent => { const r = document.querySelector('.graphiql-response .CodeMirror');"
        " const text = r ? r.CodeMirror.getValue() : '';"
        " try { return JSON.stringify(JSON.parse(text)) === JSON.stringify(JSON.parse(sent)); }"
        " catch { return false; } }",
        arg=answered.value.text(),
        timeout=WAIT_MS,
    )
    return json.loads(_editor_value(explorer, "response"))


def test_graphiql_opens_at_graphql_and_runs_a_query_with_a_token(
    explorer: Explorer, stories: Stories
) -> None:
    page = explorer.page
    page.goto(f"{explorer.base_url}/graphql")  # as a browser opens the link: Accept text/html
    assert page.title() == "provgraph GraphiQL"
    page.locator(".graphiql-query-editor .CodeMirror").wait_for(state="visible", timeout=WAIT_MS)
    explorer.shot("graphiql-opened")
    # Without a token, the operation is refused by the service (the page says why).
    refused = _run_in_graphiql(explorer, "{ __typename }")
    assert refused["error"]["code"] == "unauthenticated"
    page.locator("#graphiql-token").fill(stories.reader)
    assert _run_in_graphiql(explorer, "{ __typename }") == {"data": {"__typename": "Query"}}
    explorer.shot("graphiql-answered")
    # Every script and style of the page came from this service: nothing from elsewhere.
    fetched = [r.url for r in explorer.requests if r.url.startswith("http")]
    assert any("/ui/assets/" in url for url in fetched)
    assert [url for url in fetched if not url.startswith(f"{explorer.base_url}/")] == []
    assert not explorer.errors


def test_signing_in_with_a_token_shows_the_page_asked_for(
    explorer: Explorer, stories: Stories
) -> None:
    model = _model(stories.demo)
    explorer.open(node_route(model))
    form = explorer.page.get_by_role("form", name="Sign in")
    form.wait_for(timeout=WAIT_MS)
    explorer.shot("sign-in")
    explorer.sign_in(stories.reader)
    card = explorer.page.locator(f'[data-node-card="{model}"]')
    card.wait_for(timeout=WAIT_MS)
    explorer.shot("card")
    assert explorer.fields()["id"] == model
    assert explorer.stored_token() == stories.reader
    assert form.count() == 0


def test_a_wrong_token_returns_to_sign_in_with_the_reason(
    explorer: Explorer, stories: Stories
) -> None:
    explorer.open(node_route(_model(stories.demo)))
    explorer.sign_in("pgt_this-is-not-a-token")
    # The sign-in form shows its invitation in the same place until the service answers.
    message = explorer.page.get_by_test_id("sign-in-message")
    expect(message).to_have_text(REFUSED, timeout=WAIT_MS)
    explorer.shot("refused")
    assert message.inner_text() == REFUSED
    assert explorer.page.get_by_role("form", name="Sign in").is_visible()
    assert explorer.stored_token() is None
    assert explorer.page.locator("[data-node-card]").count() == 0


def test_a_401_during_a_session_returns_to_sign_in(
    explorer: Explorer, stories: Stories, access: Any, neo4j_driver: Driver
) -> None:
    name = f"service:{stories.demo}-revoked"
    token = access.token(name, grants={stories.demo: ("reader",)})
    model = _model(stories.demo)
    explorer.signed_in(token, node_route(model))
    explorer.page.locator(f'[data-node-card="{model}"]').wait_for(timeout=WAIT_MS)
    GraphWriter(neo4j_driver).write([project_event(token_revoked(name, "user:explorer-test"))])
    time.sleep(AUTH_CACHE_S * 3)  # the service's answer about the token has expired
    explorer.go(lineage_route(model, "up", 2))
    message = explorer.page.get_by_test_id("sign-in-message")
    message.wait_for(timeout=WAIT_MS)
    explorer.shot("session-ended")
    assert message.inner_text() == REFUSED
    assert explorer.stored_token() is None
    assert explorer.page.locator("[data-node-id]").count() == 0


def test_the_token_is_never_in_a_url(explorer: Explorer, stories: Stories, api: Api) -> None:
    model = _model(stories.demo)
    explorer.signed_in(stories.reader, lineage_route(model, "up", 3))
    explorer.drawn()
    explorer.shot("lineage")
    explorer.go(node_route(model))
    explorer.page.locator(f'[data-node-card="{model}"]').wait_for(timeout=WAIT_MS)
    explorer.go("/search?q=chat-sft")
    explorer.page.get_by_test_id("search-results").wait_for(timeout=WAIT_MS)
    explorer.page.goto(f"{explorer.base_url}/ui/graphiql.html")
    explorer.page.locator(".graphiql-query-editor .CodeMirror").wait_for(timeout=WAIT_MS)
    explorer.shot("graphiql")
    # GraphiQL found the token this tab signed in with, and sent it as a header.
    assert _run_in_graphiql(explorer, "{ __typename }") == {"data": {"__typename": "Query"}}

    urls = [r.url for r in explorer.requests]
    assert urls and not [url for url in urls if stories.reader in url]
    posts = [r for r in explorer.requests if r.url == f"{api.url}/graphql"]
    assert len(posts) >= 4
    for request in posts:
        assert request.method == "POST"
        assert request.header_value("authorization") == f"Bearer {stories.reader}"
        assert stories.reader not in (request.post_data or "")


def _card_and_lineage_not_found(
    explorer: Explorer, token: str, node: str, direction: str, depth: int, shot: str
) -> None:
    """Signed in with `token`, the card and the lineage of `node` are the not-found page."""
    explorer.signed_in(token, node_route(node))
    not_found = explorer.page.get_by_test_id("not-found")
    not_found.wait_for(timeout=WAIT_MS)
    explorer.shot(f"{shot}-not-found")
    assert f"No node {node}, or you may not read it." in not_found.inner_text()
    explorer.open(lineage_route(node, direction, depth))  # a full load: nothing of the card stays
    not_found.wait_for(timeout=WAIT_MS)
    explorer.shot("lineage-not-found")
    assert f"No node {node}, or you may not read it." in not_found.inner_text()
    assert explorer.page.locator("[data-node-id]").count() == 0


def test_a_reader_of_another_project_sees_nothing_of_it(
    explorer: Explorer, stories: Stories
) -> None:
    model = _model(stories.demo)
    _card_and_lineage_not_found(explorer, stories.chain_reader, model, "both", 10, "card")

    explorer.go("/search?q=chat-sft")
    explorer.page.get_by_test_id("search-results").wait_for(state="attached", timeout=WAIT_MS)
    explorer.shot("search-empty")
    assert explorer.page.locator("p[role=status]:not(.loading)").inner_text() == "0 results"
    assert explorer.page.locator("[data-result-id]").count() == 0

    # The same token reads its own project.
    own = chain_id(stories.chain, 3)
    explorer.go(node_route(own))
    explorer.page.locator(f'[data-node-card="{own}"]').wait_for(timeout=WAIT_MS)
    assert stories.demo not in explorer.page.content()


def test_an_unknown_id_shows_the_not_found_page(explorer: Explorer, stories: Stories) -> None:
    unknown = f"dataset:{stories.demo}/no-such-corpus@v9"
    _card_and_lineage_not_found(explorer, stories.reader, unknown, "up", 3, "node")
