"""The Neo4j Browser the README links to is served by the launcher's Neo4j at /browser/."""

from __future__ import annotations

import re
import urllib.error
import urllib.request
from typing import Any

import pytest

from provgraph.infra.settings import InfraSettings


def _get(url: str) -> tuple[int, str, str]:
    request = urllib.request.Request(url, headers={"Accept": "text/html"})  # as a browser asks
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            body = response.read().decode("utf-8", errors="replace")
            return response.status, response.headers.get("content-type", ""), body
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get("content-type", ""), ""


@pytest.fixture()
def browser_url(endpoints: Any) -> str:
    """The Browser's address on the stack under test (PROVGRAPH_NEO4J_HTTP_PORT, as `make up`)."""
    if endpoints.source == "testcontainers":
        pytest.skip("the official Neo4j image serves its own Browser; this checks the launcher's")
    settings = InfraSettings()
    return f"http://{settings.host}:{settings.neo4j_http_port}/browser/"


def test_the_browser_page_and_its_scripts_are_served(browser_url: str) -> None:
    status, content_type, page = _get(browser_url)
    # A Neo4j started by an older launcher has no Browser on its classpath until restarted.
    assert status == 200, f"{browser_url} answered {status}"
    assert content_type.startswith("text/html")
    assert "<title>Neo4j Browser</title>" in page
    # Not an empty shell: the application script the page loads is there too.
    scripts = re.findall(r'<script src="([^"]+\.js)"', page)
    assert scripts, page[:500]
    script_status, _, script = _get(browser_url + scripts[-1])
    assert script_status == 200
    assert len(script) > 1000
