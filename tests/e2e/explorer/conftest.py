"""The explorer in a real browser: Debian's Chromium, headless, driven by Playwright.

The query app of this checkout serves the built explorer (web/dist, `make ui`) on a free port
against the Neo4j of the session; each module gets fresh projects (the demo story and a small
chain story) written to Neo4j as the projector writes them, and tokens that read them.
Screenshots of every page a test looks at are written to that test's `tmp_path` (under
pytest's `--basetemp`).
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from explorer_helpers import AUTH_CACHE_S, UI_DIR, Api, Explorer, Stories, chain_story
from neo4j import Driver
from playwright.sync_api import Browser, sync_playwright
from support.http_service import served

from provgraph.cli.demo_story import demo_events
from provgraph.ingest.projection import LogStamp, project_event
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.query.app import create_app
from provgraph.query.settings import QuerySettings
from provgraph.schemas.ids import principal_id


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    """Debian's Chromium (never a downloaded browser), headless; per module, so that no
    Playwright driver outlives the browser tests in a session that runs others after them."""
    path = shutil.which("chromium")
    assert path, "Chromium is missing: `make system-deps` installs it (apt-get install chromium)"
    args = ["--disable-dev-shm-usage", *(["--no-sandbox"] if os.geteuid() == 0 else [])]
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, headless=True, args=args)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="module")
def api(neo4j_endpoint: Any) -> Iterator[Api]:
    """The query app of this checkout, serving the built explorer, on a free port."""
    assert (UI_DIR / "index.html").is_file(), f"the explorer is not built in {UI_DIR}: `make ui`"
    settings = QuerySettings(
        neo4j_uri=neo4j_endpoint.uri,
        neo4j_user=neo4j_endpoint.user,
        neo4j_password=neo4j_endpoint.password,
        ui_dir=UI_DIR,
        auth_cache_s=AUTH_CACHE_S,
        auth_disabled=False,
    )
    with served(create_app(settings)) as url:
        yield Api(url)


@pytest.fixture(scope="module")
def stories(neo4j_driver: Driver, access: Any) -> Iterator[Stories]:
    tag = uuid.uuid4().hex[:8]
    demo, chain = f"t-explorer-{tag}", f"t-explorer-chain-{tag}"
    # The sweep's events came through ingest, sent with the trainer's token: stamped with its
    # Principal's id as ingest stamps them. The rest reached the log straight (actor only).
    trainer = f"service:{demo}-trainer"
    straight = {e.event_id for e in demo_events(demo, with_sweep=False)}
    stamp = LogStamp(principal=principal_id(trainer))
    records = [
        project_event(e, None if e.event_id in straight else stamp) for e in demo_events(demo)
    ]
    records += [project_event(e) for e in chain_story(chain)]
    GraphWriter(neo4j_driver).write(records)
    reader = access.token(f"service:{demo}-reader", grants={demo: ("reader",)})
    chain_reader = access.token(f"service:{chain}-reader", grants={chain: ("reader",)})
    try:
        yield Stories(demo, chain, reader, chain_reader, trainer)
    finally:
        for project in (demo, chain):
            neo4j_driver.execute_query("MATCH (n {project: $p}) DETACH DELETE n", p=project)


@pytest.fixture()
def explorer(chromium: Browser, api: Api, tmp_path: Path) -> Iterator[Explorer]:
    """A page of its own (a fresh browser context: no token, no storage) for one test."""
    context = chromium.new_context(viewport={"width": 1600, "height": 1000})
    shots = tmp_path / "screenshots"
    shots.mkdir()
    page = Explorer(context.new_page(), api.url, shots)
    try:
        yield page
    finally:
        try:
            page.shot("end")
        finally:
            context.close()
