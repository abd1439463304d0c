"""GraphiQL opens from the link in a browser, without a token; every operation needs one.

The query service runs for real (uvicorn on a free port, the shared Neo4j behind it).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from starlette.requests import Request
from support.http_service import served

from provgraph.query.app import create_app
from provgraph.query.graphql.context import GraphContext
from provgraph.query.graphql.schema import make_router
from provgraph.query.settings import QuerySettings

BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
TYPENAME = {"query": "{ __typename }"}


@pytest.fixture(scope="module")
def query_url(neo4j_endpoint: Any) -> Iterator[str]:
    settings = QuerySettings(
        neo4j_uri=neo4j_endpoint.uri,
        neo4j_user=neo4j_endpoint.user,
        neo4j_password=neo4j_endpoint.password,
    )
    with served(create_app(settings)) as url:
        yield url


@pytest.fixture()
def http(query_url: str) -> Iterator[httpx.Client]:
    """A client that sends only the headers each request names (no default Accept)."""
    with httpx.Client(base_url=query_url, timeout=30) as client:
        del client.headers["accept"]
        yield client


def _is_the_page(response: httpx.Response) -> bool:
    return (
        response.status_code == 200
        and response.headers["content-type"].startswith("text/html")
        and "graphiql" in response.text.lower()
    )


def _is_unauthenticated(response: httpx.Response) -> bool:
    return response.status_code == 401 and response.json()["error"]["code"] == "unauthenticated"


@pytest.mark.parametrize(
    "token", [None, "Bearer pgt_not-a-token"], ids=["no-token", "unknown-token"]
)
def test_the_page_opens_from_the_link_without_a_valid_token(
    http: httpx.Client, token: str | None
) -> None:
    headers = {"accept": BROWSER_ACCEPT} | ({"authorization": token} if token else {})
    assert _is_the_page(http.get("/graphql", headers=headers))


def test_the_page_opens_with_a_token_too(http: httpx.Client, admin_headers: dict[str, str]) -> None:
    assert _is_the_page(http.get("/graphql", headers={"accept": "text/html", **admin_headers}))


def test_a_post_without_a_token_is_refused(http: httpx.Client) -> None:
    headers = {"accept": "application/json"}
    assert _is_unauthenticated(http.post("/graphql", json=TYPENAME, headers=headers))
    # Asking for HTML does not make an operation the page.
    assert _is_unauthenticated(
        http.post("/graphql", json=TYPENAME, headers={"accept": "text/html"})
    )


@pytest.mark.parametrize("accept", ["application/json", "text/html", "*/*"])
def test_a_get_with_a_query_is_an_operation_and_needs_a_token(
    http: httpx.Client, admin_headers: dict[str, str], accept: str
) -> None:
    refused = http.get("/graphql", params=TYPENAME, headers={"accept": accept})
    assert _is_unauthenticated(refused)
    answered = http.get("/graphql", params=TYPENAME, headers={"accept": accept, **admin_headers})
    assert answered.status_code == 200
    assert answered.json() == {"data": {"__typename": "Query"}}


def _strawberry_renders_the_page(method: str, query_string: str, accept: str | None) -> bool:
    """strawberry's own rule for the page: the oracle for the skip."""

    async def no_context(_request: Request) -> GraphContext:
        raise AssertionError("never called")

    router = make_router(QuerySettings(), no_context)
    headers = [(b"accept", accept.encode())] if accept is not None else []
    scope = {
        "type": "http",
        "method": method,
        "path": "/graphql",
        "query_string": query_string.encode(),
        "headers": headers,
    }
    return router.should_render_graphql_ide(router.request_adapter_class(Request(scope)))


@pytest.mark.parametrize(
    ("method", "query_string", "accept"),
    [
        ("GET", "", BROWSER_ACCEPT),
        ("GET", "", "*/*"),
        ("GET", "", "application/json"),
        ("GET", "", None),
        ("GET", "variables=%7B%7D", "text/html"),
        ("GET", "query=", "text/html"),
        ("GET", "query=%7B__typename%7D", BROWSER_ACCEPT),
        ("POST", "", "text/html"),
    ],
)
def test_only_the_page_skips_authentication(
    http: httpx.Client, method: str, query_string: str, accept: str | None
) -> None:
    headers = {"accept": accept} if accept is not None else {}
    content = b'{"query": "{ __typename }"}' if method == "POST" else None
    if content is not None:
        headers["content-type"] = "application/json"
    url = f"/graphql?{query_string}" if query_string else "/graphql"
    response = http.request(method, url, headers=headers, content=content)
    if _strawberry_renders_the_page(method, query_string, accept):
        assert _is_the_page(response)
    else:
        assert _is_unauthenticated(response), (response.status_code, response.text[:200])
