"""The web explorer's files at /ui and the GraphiQL page of /graphql, on a build made here.

The app is not started (no lifespan, no Neo4j): the /ui routes read only the settings.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from starlette.requests import Request

from provgraph.query.graphql.context import GraphContext
from provgraph.query.graphql.schema import make_router
from provgraph.query.http.app import create_app
from provgraph.query.settings import QuerySettings

INDEX = "<!doctype html><title>explorer</title>"
GRAPHIQL = "<!doctype html><title>provgraph GraphiQL</title>"
ASSET = "export const built = 1;"


@pytest.fixture()
def dist(tmp_path: Path) -> Path:
    """A build as `make ui` leaves it: two pages and hashed assets."""
    root = tmp_path / "dist"
    (root / "assets").mkdir(parents=True)
    (root / "index.html").write_text(INDEX)
    (root / "graphiql.html").write_text(GRAPHIQL)
    (root / "assets" / "main-AbC123.js").write_text(ASSET)
    (tmp_path / "secret.txt").write_text("outside the build")
    return root


def _client(ui_dir: Path | None) -> TestClient:
    return TestClient(create_app(QuerySettings(ui_dir=ui_dir)), follow_redirects=False)


def test_ui_leads_to_the_folder_whose_index_is_the_explorer(dist: Path) -> None:
    client = _client(dist)
    moved = client.get("/ui")
    assert (moved.status_code, moved.headers["location"]) == (307, "/ui/")
    page = client.get("/ui/")
    assert page.status_code == 200 and page.text == INDEX
    assert page.headers["content-type"].startswith("text/html")
    assert page.headers["cache-control"] == "no-cache"
    assert client.get("/ui/index.html").text == INDEX


def test_hashed_assets_are_cached_for_a_year_and_pages_never(dist: Path) -> None:
    client = _client(dist)
    asset = client.get("/ui/assets/main-AbC123.js")
    assert asset.status_code == 200 and asset.text == ASSET
    assert asset.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert "javascript" in asset.headers["content-type"]
    assert asset.headers["x-content-type-options"] == "nosniff"
    assert client.get("/ui/graphiql.html").headers["cache-control"] == "no-cache"


def test_the_files_need_no_token(dist: Path) -> None:
    # Authentication is on (the default); the files hold no data.
    assert _client(dist).get("/ui/", headers={}).status_code == 200


@pytest.mark.parametrize(
    "path",
    [
        "/ui/missing.js",
        "/ui/assets/",
        "/ui/%2e%2e/secret.txt",
        "/ui/assets/%2e%2e/%2e%2e/secret.txt",
    ],
)
def test_nothing_outside_the_build_is_served(dist: Path, path: str) -> None:
    answer = _client(dist).get(path)
    assert answer.status_code == 404
    assert answer.json()["error"]["code"] == "not_found"
    assert "outside the build" not in answer.text


@pytest.mark.parametrize("where", ["unset", "empty"])
@pytest.mark.parametrize("path", ["/ui", "/ui/", "/ui/assets/main-AbC123.js"])
def test_without_a_build_ui_says_how_to_make_one(tmp_path: Path, where: str, path: str) -> None:
    ui_dir = None if where == "unset" else tmp_path
    answer = _client(ui_dir).get(path)
    assert answer.status_code == 404
    error = answer.json()["error"]
    assert error["code"] == "ui_not_built"
    assert "make ui" in error["message"] and error["details"]["build"] == "make ui"
    assert error["details"]["ui_dir"] == (None if ui_dir is None else str(tmp_path))


def test_a_build_made_while_the_service_runs_is_served(tmp_path: Path) -> None:
    client = _client(tmp_path)
    assert client.get("/ui/").json()["error"]["code"] == "ui_not_built"
    (tmp_path / "index.html").write_text(INDEX)
    assert client.get("/ui/").text == INDEX


def _ide_page(ui_dir: Path | None) -> tuple[int, str, str | None]:
    async def no_context(_request: Request) -> GraphContext:
        raise AssertionError("the page reads nothing")

    router = make_router(QuerySettings(ui_dir=ui_dir), no_context)
    scope = {
        "type": "http",
        "method": "GET",
        "path": "/graphql",
        "query_string": b"",
        "headers": [],
    }
    answer = asyncio.run(router.render_graphql_ide(Request(scope)))
    return answer.status_code, bytes(answer.body).decode(), answer.headers.get("cache-control")


def test_graphiql_is_the_bundled_page_when_built(dist: Path) -> None:
    assert _ide_page(dist) == (200, GRAPHIQL, "no-cache")


def test_graphiql_is_strawberrys_page_when_not_built(tmp_path: Path) -> None:
    for ui_dir in (None, tmp_path):
        status, text, _cache = _ide_page(ui_dir)
        assert status == 200 and "Strawberry GraphiQL" in text and GRAPHIQL not in text
