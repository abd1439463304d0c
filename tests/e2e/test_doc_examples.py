"""Every fenced example of README.md and docs/*.md, run against the running stack.

The stack is the one `make up` runs (ingest, projector and query on their configured ports;
started here when they are not running, and stopped again after). The demo story is loaded
into a fresh project, and every example is run with the demo's names replaced by that
project's, and its output mapped back before it is compared with the answer the page shows
(see support/doc_examples.py for the page markers and the `…` wildcard). `$TOKEN` reads and
writes the fresh project (and the projects of schemas/examples), `$AUDITOR_TOKEN` is a global
auditor, `$PROVGRAPH_TOKEN` the local admin, as in `.provgraph/env`; the SDK examples write to a
project of their own (`$PROVGRAPH_PROJECT`), so that the demo's answers stay as the pages show.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import subprocess
import sys
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from e2e_helpers import await_applied, await_principal
from neo4j import Driver
from support.doc_examples import Block, answer_mismatch, read_blocks

from provgraph.authz.admin import access_event, append_to_log, token_issued
from provgraph.authz.tokens import new_token
from provgraph.cli.demo_ids import EVALUATIONS, PROJECT, RUNS, evaluation_id, run_id
from provgraph.cli.demo_story import demo_events
from provgraph.cli.services import provgraph_apps
from provgraph.infra.apps import Apps
from provgraph.ingest.settings import IngestSettings
from provgraph.schemas import parse_event
from provgraph.schemas.events.governance import AccessRole
from provgraph.schemas.events.tokens import GlobalRole

ROOT = Path(__file__).resolve().parents[2]
PAGES = ["README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))]
BLOCKS = [b for page in PAGES for b in read_blocks(ROOT, page) if b.kind != "answer"]
EXAMPLE_PROJECTS = ("llm-pretrain",)  # the projects of schemas/examples/valid
RUN_TIMEOUT_S = 240
_STACK_COMMAND = re.compile(r"^\s*(make|docker)\b", re.M)


@dataclass
class DocsStack:
    """The running stack, the fresh project holding the demo, and the names to swap."""

    project: str
    env: dict[str, str]
    query_url: str
    token: str

    def swaps(self) -> list[tuple[str, str]]:
        """(as the page writes it, as the fresh project has it), most specific first."""
        runs = [(run, run_id(run, self.project)) for run in RUNS]
        evaluations = [(evaluation_id(k), evaluation_id(k, self.project)) for k in EVALUATIONS]
        return [*runs, *evaluations, (PROJECT, self.project)]

    def to_stack(self, text: str) -> str:
        for page, ours in self.swaps():
            text = text.replace(page, ours)
        return text

    def to_page(self, text: str) -> str:
        for page, ours in self.swaps():
            text = text.replace(ours, page)
        return text

    def run(self, block: Block) -> str:
        """The example's output (stdout, or the GraphQL answer), demo names mapped back."""
        assert not _STACK_COMMAND.search(block.text), (
            f"{block.where}: `make` and `docker` would set up, stop or test the stack this suite "
            "runs on: move them to a block marked <!-- doc-test: skip: <why> -->"
        )
        text = self.to_stack(block.text)
        if block.lang == "graphql":
            return self.to_page(self._graphql(text))
        argv = ["bash", "-e", "-o", "pipefail", "-c", text]
        if block.lang == "python":
            argv = [sys.executable, "-c", text]
        done = subprocess.run(
            argv, cwd=ROOT, env=self.env, capture_output=True, text=True, timeout=RUN_TIMEOUT_S
        )
        assert done.returncode == 0, (
            f"{block.where}: exit code {done.returncode}\n--- stdout\n{done.stdout}"
            f"\n--- stderr\n{done.stderr}"
        )
        return self.to_page(done.stdout)

    def _graphql(self, query: str) -> str:
        request = urllib.request.Request(
            f"{self.query_url}/graphql",
            data=json.dumps({"query": query}).encode(),
            method="POST",
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {self.token}"},
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return str(response.read().decode())
        except urllib.error.HTTPError as exc:  # an error answer is an answer too
            return str(exc.read().decode())


@pytest.fixture(scope="module")
def docs_stack(endpoints: Any, neo4j_driver: Driver) -> Iterator[DocsStack]:
    apps = provgraph_apps()
    before = {spec.name for spec, pid, _healthy in apps.status() if pid is not None}
    started = set(apps.up()) - before  # a `make up` stack already running is reused as it is
    try:
        yield _prepare(apps, endpoints, neo4j_driver)
    finally:
        if started:
            apps.down()


def _prepare(apps: Apps, endpoints: Any, driver: Driver) -> DocsStack:
    project = f"t-docs-{uuid.uuid4().hex[:8]}"
    kafka = IngestSettings(kafka_bootstrap=endpoints.kafka_bootstrap)
    admin = apps.settings.admin_token_file.read_text().strip()
    reader, auditor = new_token(), new_token()
    events = [
        token_issued(f"service:{project}-docs", reader, [], actor="service:provgraph"),
        token_issued(f"service:{project}-auditor", auditor, [GlobalRole.AUDITOR], "user:docs"),
    ]
    for target in (project, *EXAMPLE_PROJECTS):
        for role in (AccessRole.READER, AccessRole.WRITER):
            principal = f"service:{project}-docs"
            events.append(access_event(principal, target, role, "user:docs", grant=True))
    demo = demo_events(project)
    append_to_log([*events, *demo], kafka)
    for token in (reader, auditor):
        await_principal(driver, token)
    await_applied(driver, project, len(demo))
    env = {**os.environ, **_stack_env(apps, endpoints)}
    env.update(TOKEN=reader, AUDITOR_TOKEN=auditor, PROVGRAPH_TOKEN=admin)
    env["PROVGRAPH_PROJECT"] = f"{project}-sdk"
    env["PATH"] = f"{Path(sys.executable).parent}:{env.get('PATH', '')}"
    return DocsStack(project, env, apps.settings.query_url, reader)


def _stack_env(apps: Apps, endpoints: Any) -> dict[str, str]:
    neo4j = endpoints.neo4j
    return {
        "PROVGRAPH_KAFKA_BOOTSTRAP": endpoints.kafka_bootstrap,
        "PROVGRAPH_NEO4J_URI": neo4j.uri,
        "PROVGRAPH_NEO4J_USER": neo4j.user,
        "PROVGRAPH_NEO4J_PASSWORD": neo4j.password,
        "PROVGRAPH_INGEST_URL": apps.settings.ingest_url,
        "PROVGRAPH_QUERY_URL": apps.settings.query_url,
    }


@pytest.mark.parametrize("block", BLOCKS, ids=[b.where for b in BLOCKS])
def test_doc_example(block: Block, request: pytest.FixtureRequest) -> None:
    """Runs the example and compares its output with the answer the page shows beside it."""
    if block.kind == "skip":
        pytest.skip(f"by design: {block.skip}")
    assert block.kind != "unknown", (
        f"{block.where}: a ```{block.lang} block that is neither an example nor an answer; "
        "make it one, or mark it <!-- doc-test: skip: <why> --> on the line before"
    )
    if block.kind == "event":
        parse_event(block.text.encode())  # a ContractError names the field and the reason
        return
    stack: DocsStack = request.getfixturevalue("docs_stack")
    output = stack.run(block)
    if block.answer is None:
        return
    mismatch = answer_mismatch(block.answer, output)
    assert mismatch is None, f"{block.answer.where}: {mismatch}\n{_diff(block.answer, output)}"


def _diff(answer: Block, output: str) -> str:
    shown, got = answer.text, output
    if answer.lang == "json":
        try:
            shown = json.dumps(json.loads(shown), indent=2, ensure_ascii=False)
            got = json.dumps(json.loads(output), indent=2, ensure_ascii=False)
        except ValueError:
            pass
    lines = difflib.unified_diff(
        shown.splitlines(), got.splitlines(), f"{answer.where} (the page)", "the stack", lineterm=""
    )
    return "\n".join(lines)
