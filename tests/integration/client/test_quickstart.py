"""The SDK quickstart: README.md and docs/emitting.md show one text, and it runs as pasted.

The block is run as a separate Python process with the environment a newcomer has after
``source .provgraph/env`` (ingest URL, Kafka bootstrap, a token that may write the project),
against the ingest app served over HTTP in front of the real Kafka; a projector then folds the
test's topic into the real Neo4j, where the run must be completed and the checkpoint's checksum
must be the SHA-256 of the file the quickstart wrote.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
import uuid
from codeop import compile_command
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
from neo4j import Driver
from support.http_service import served

from provgraph.ingest.app import create_app
from provgraph.ingest.projector.run import build_projector
from provgraph.ingest.settings import IngestSettings

REPO = Path(__file__).resolve().parents[3]
PAGES = {"README.md": "### Emitting from Python", "docs/emitting.md": "## With the Python SDK"}
FENCE = re.compile(r"^```python\n(.*?)^```$", re.DOTALL | re.MULTILINE)
HEADING = re.compile(r"^#{1,6} ", re.MULTILINE)
PRINTED = re.compile(r"^recorded (run:\S+) with (dataset:\S+) and (model:\S+)$", re.MULTILINE)


def quickstart(page: str) -> str:
    """The first python block of the page's quickstart section (none other comes first)."""
    heading = PAGES[page]
    text = (REPO / page).read_text(encoding="utf-8")
    assert f"\n{heading}\n" in text, f"{page}: no section {heading!r}"
    section = text.split(f"\n{heading}\n", 1)[1]
    block = FENCE.search(section)
    assert block is not None, f"{page}: no python block under {heading!r}"
    assert not HEADING.search(section[: block.start()]), f"{page}: the block left {heading!r}"
    return block.group(1)


def test_readme_and_emitting_doc_show_the_same_quickstart() -> None:
    readme, doc = quickstart("README.md"), quickstart("docs/emitting.md")
    assert readme == doc
    assert "client.sha256_file(" in readme
    assert 'transport="http"' in readme  # the test below swaps it for the Kafka transport


def test_the_quickstart_pastes_into_the_interactive_interpreter() -> None:
    """Fed line by line as the REPL reads a paste, every statement compiles and none is left
    open (a compound statement followed directly by another would be a syntax error there)."""
    pending: list[str] = []
    for number, line in enumerate(quickstart("README.md").splitlines(), start=1):
        pending.append(line)
        try:
            complete = compile_command("\n".join(pending), "<stdin>", "single")
        except SyntaxError as error:
            raise AssertionError(f"quickstart line {number}: {line!r}: {error}") from None
        if complete is not None:
            pending = []
    assert not [line for line in pending if line.strip()], pending


@pytest.fixture()
def ingest_url(settings: IngestSettings) -> Iterator[str]:
    with served(create_app(settings)) as url:
        yield url


def stack_env(
    settings: IngestSettings, ingest_url: str, token: str, **extra: str
) -> dict[str, str]:
    """The process environment after ``source .provgraph/env``, for this test's stack only."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PROVGRAPH_")}
    env["PROVGRAPH_INGEST_URL"] = ingest_url
    env["PROVGRAPH_KAFKA_BOOTSTRAP"] = settings.kafka_bootstrap
    env["PROVGRAPH_EVENTS_TOPIC"] = settings.events_topic  # the Kafka transport's topic
    env["PROVGRAPH_TOKEN"] = token
    return env | extra


def run_quickstart(code: str, env: dict[str, str]) -> tuple[str, str, str]:
    """Run `code` as pasted into ``python`` from the checkout; the run, dataset and model ids."""
    done = subprocess.run(
        [sys.executable, "-"],
        input=code,
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "not all sent" not in done.stdout, done.stdout + done.stderr
    printed = PRINTED.search(done.stdout)
    assert printed is not None, done.stdout
    run, dataset, model = printed.groups()
    return run, dataset, model


def _file_sha256(uri: str) -> str:
    parts = urlsplit(uri)
    assert parts.scheme == "file", uri
    return "sha256:" + hashlib.sha256(Path(unquote(parts.path)).read_bytes()).hexdigest()


def _recorded(driver: Driver, run: str, dataset: str, model: str) -> dict[str, Any]:
    records, _, _ = driver.execute_query(
        "MATCH (r:Run {id: $run})-[:USED]->(v:DatasetVersion {id: $dataset}) "
        "MATCH (c:Checkpoint)-[:GENERATED_BY]->(r) "
        "MATCH (m:ModelVersion {id: $model})-[:EXPORTED_FROM]->(c) "
        "RETURN r.status AS status, r.project AS project, c.id AS checkpoint, "
        "c.uri AS checkpoint_uri, c.checksum AS checkpoint_checksum, "
        "v.storage_uri AS data_uri, v.checksum AS data_checksum",
        run=run,
        dataset=dataset,
        model=model,
    )
    assert len(records) == 1, f"{run}: not projected with its dataset, checkpoint and model"
    return dict(records[0])


@pytest.mark.parametrize("transport", ["http", "kafka"])
def test_the_quickstart_runs_as_pasted_and_records_a_completed_run(
    transport: str,
    settings: IngestSettings,
    ingest_url: str,
    neo4j_driver: Driver,
    project: str,
    access: Any,
    tmp_path: Path,
) -> None:
    code = quickstart("README.md")
    if transport == "kafka":  # the alternative the block names in its comment
        code = code.replace('transport="http"', 'transport="kafka"')
    writer = access.token(f"user:quickstart-{uuid.uuid4().hex[:8]}", grants={project: ("writer",)})
    spool = tmp_path / "spool"
    env = stack_env(
        settings,
        ingest_url,
        writer,
        PROVGRAPH_PROJECT=project,
        PROVGRAPH_SPOOL_DIR=str(spool),
        TMPDIR=str(tmp_path),
    )
    run, dataset, model = run_quickstart(code, env)
    assert not (spool / "rejected.jsonl").exists(), (spool / "rejected.jsonl").read_text()

    projector = build_projector(settings, neo4j_driver)
    try:
        stats = projector.run_until_idle(60)
    finally:
        projector.close()
    assert stats.dead_lettered == 0

    got = _recorded(neo4j_driver, run, dataset, model)
    assert (got["status"], got["project"]) == ("completed", project)
    assert got["checkpoint"] == f"checkpoint:{run.removeprefix('run:')}/3"
    assert got["checkpoint_checksum"] == _file_sha256(got["checkpoint_uri"])
    assert got["data_checksum"] == _file_sha256(got["data_uri"])
    assert Path(urlsplit(got["checkpoint_uri"]).path).is_relative_to(tmp_path)
