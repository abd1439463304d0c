"""`provgraph compliance` on a seeded story in Neo4j, as text, `--markdown` and `--json`. Every
expected answer below is read off the story, not off the code.

The story (project p = the test's own), one event a minute from 09:00:
- sources: `books v1` (CC-BY-4.0, a note), `news v1` (ODC-BY, no note), `forum v1` (no
  licence, a note), `lyrics v1` (proprietary, a note); `bare v1` records no source; `mixed v1`
  is derived from books and news;
- run `old` trained on lyrics and made chat@1.0.0, later retired; run `new` trained on mixed,
  forum and lyrics, validated on bare, and made chat@2.0.0, approved and served by `chat-api`;
- at 09:15 lyrics v1 is taken down: chat@2.0.0 is in service behind it, chat@1.0.0 is not.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from neo4j import Driver
from support.doc_examples import text_mismatch
from support.stories import provgraph_cli, story_event

from provgraph.ingest.projection import project_event
from provgraph.ingest.projector.writer import GraphWriter

T0 = datetime(2026, 5, 4, 9, 0, tzinfo=UTC)
WITHDRAWN = "licence withdrawn by the publisher"
BOOKS = {"uri": "https://books.example/", "obtained_by": "purchase", "licence": "CC-BY-4.0",
         "compliance_note": "attribution in the model card"}  # fmt: skip
NEWS = {"uri": "https://news.example/", "obtained_by": "crawl", "licence": "ODC-BY"}
FORUM = {"uri": "https://forum.example/", "obtained_by": "scrape",
         "compliance_note": "operator consent by email"}  # fmt: skip
LYRICS = {"uri": "https://lyrics.example/", "obtained_by": "partner feed",
          "licence": "proprietary", "compliance_note": "licensed until 2026-12"}  # fmt: skip

TEXT = """\
Compliance of model:p/chat@2.0.0 (approved)

6 dataset version(s) upstream, 4 flagged

Licence CC-BY-4.0:
  dataset:p/books@v1: purchase, from https://books.example/; note: attribution in the model card

Licence ODC-BY:
  dataset:p/news@v1: crawl, from https://news.example/  [no compliance note]

Licence proprietary:
  dataset:p/lyrics@v1: partner feed, from https://lyrics.example/; note: licensed until 2026-12  [taken down]

No licence recorded:
  dataset:p/forum@v1: scrape, from https://forum.example/; note: operator consent by email  [no licence]

No source recorded:
  dataset:p/bare@v1  [no source]

Derived (their sources are above):
  dataset:p/mixed@v1

Taken down:
  dataset:p/lyrics@v1 on 2026-05-04 09:15 UTC: licence withdrawn by the publisher
    in service: model:p/chat@2.0.0 (approved; served by deployment:p/chat-api)
      model:p/chat@2.0.0 → run:p-new → dataset:p/lyrics@v1
"""  # noqa: E501


def _steps(p: str) -> list[tuple[str, dict[str, Any]]]:
    def version(name: str, **more: Any) -> tuple[str, dict[str, Any]]:
        payload = {"name": name, "version": "v1", "storage_uri": f"s3://p/{name}/v1/", **more}
        return ("dataset.version.created", payload)

    def trained(run: str, inputs: list[tuple[str, str]], model: str) -> list[Any]:
        used = [{"dataset_version": f"dataset:{p}/{d}@v1", "role": role} for d, role in inputs]
        made = {"name": "chat", "version": model, "produced_by_run": f"run:{p}-{run}"}
        return [
            ("run.started", {"run_id": f"{p}-{run}", "inputs": used}),
            ("run.completed", {"run_id": f"{p}-{run}"}),
            ("model.version.registered", made),
        ]

    def status(model: str, to: str) -> tuple[str, dict[str, Any]]:
        payload = {"model_version": f"model:{p}/chat@{model}", "from_status": "candidate"}
        return ("model.version.status.changed", {**payload, "to_status": to})

    mix = [
        {"dataset_version": f"dataset:{p}/{d}@v1", "transform": "mix"} for d in ("books", "news")
    ]
    serves = [{"model_version": f"model:{p}/chat@2.0.0"}]
    return [
        version("books", source=BOOKS),
        version("news", source=NEWS),
        version("forum", source=FORUM),
        version("lyrics", source=LYRICS),
        version("bare"),
        version("mixed", derived_from=mix),
        *trained("old", [("lyrics", "train")], "1.0.0"),
        *trained(
            "new",
            [("mixed", "train"), ("forum", "train"), ("lyrics", "train"), ("bare", "validation")],
            "2.0.0",
        ),
        status("2.0.0", "approved"),
        status("1.0.0", "retired"),
        (
            "deployment.created",
            {
                "name": "chat-api",
                "endpoint": "https://chat.example/",
                "environment": "prod",
                "serves": serves,
            },
        ),
        ("entity.deleted", {"entity": f"dataset:{p}/lyrics@v1", "reason": WITHDRAWN}),
    ]


@pytest.fixture()
def story(neo4j_driver: Driver, project: str) -> str:
    steps = _steps(project)
    assert steps[15][0] == "entity.deleted"  # at 09:15, as the expected answers say
    events = [
        story_event(project, kind, payload, T0 + timedelta(minutes=i))
        for i, (kind, payload) in enumerate(steps)
    ]
    GraphWriter(neo4j_driver).write([project_event(e) for e in events])
    return project


def _compliance(endpoint: Any, p: str, model: str, *flags: str) -> str:
    done = provgraph_cli(endpoint, "compliance", f"model:{p}/chat@{model}", *flags)
    assert done.returncode == 0, done.stderr
    return done.stdout.replace(p, "p")


def test_the_report_as_text(neo4j_endpoint: Any, story: str) -> None:
    shown = _compliance(neo4j_endpoint, story, "2.0.0")
    assert text_mismatch(TEXT, shown) is None, shown
    assert shown == TEXT  # not even padding differs


def test_the_report_as_markdown(neo4j_endpoint: Any, story: str) -> None:
    shown = _compliance(neo4j_endpoint, story, "2.0.0", "--markdown").splitlines()
    assert shown[0] == "## Compliance of model:p/chat@2.0.0 (approved)"
    heads = [line for line in shown if line.startswith("### ")]
    assert heads == ["### Licence CC-BY-4.0", "### Licence ODC-BY", "### Licence proprietary",
                     "### No licence recorded", "### No source recorded",
                     "### Derived (their sources are above)", "### Taken down"]  # fmt: skip
    taken = shown[shown.index("### Taken down") + 1 :]
    assert taken == [
        f"- dataset:p/lyrics@v1 on 2026-05-04 09:15 UTC: {WITHDRAWN}",
        "  - in service: model:p/chat@2.0.0 (approved; served by deployment:p/chat-api)",
        "    - model:p/chat@2.0.0 → run:p-new → dataset:p/lyrics@v1",
    ]
    assert "- dataset:p/bare@v1  [no source]" in shown


def test_the_report_as_json(neo4j_endpoint: Any, story: str) -> None:
    p = story
    report = json.loads(_compliance(neo4j_endpoint, p, "2.0.0", "--json"))

    def entry(name: str, src: dict[str, str], *flags: str) -> dict[str, Any]:
        fields = ("uri", "obtained_by", "licence", "compliance_note")
        return {"dataset_version": f"dataset:p/{name}@v1", **{k: src.get(k) for k in fields},
                "flags": list(flags)}  # fmt: skip

    assert (report["model_version"], report["project"], report["status"]) == (
        "model:p/chat@2.0.0", "p", "approved")  # fmt: skip
    assert report["licences"] == [
        {"licence": "CC-BY-4.0", "dataset_versions": [entry("books", BOOKS)]},
        {"licence": "ODC-BY", "dataset_versions": [entry("news", NEWS, "no compliance note")]},
        {"licence": "proprietary", "dataset_versions": [entry("lyrics", LYRICS, "taken down")]},
        {"licence": None, "dataset_versions": [entry("forum", FORUM, "no licence")]},
    ]
    assert report["without_source"] == [entry("bare", {}, "no source")]
    assert report["derived"] == [entry("mixed", {})]
    assert report["taken_down"] == [
        {
            "dataset_version": "dataset:p/lyrics@v1",
            "at": "2026-05-04T09:15:00.000000Z",
            "reason": WITHDRAWN,
            "in_service": [
                {
                    "model_version": "model:p/chat@2.0.0",
                    "status": "approved",
                    "deployments": ["deployment:p/chat-api"],
                    "path": ["model:p/chat@2.0.0", "run:p-new", "dataset:p/lyrics@v1"],
                }
            ],
        }
    ]
    flagged = ["bare", "forum", "lyrics", "news"]
    assert report["flagged"] == [f"dataset:p/{name}@v1" for name in flagged]
    assert (report["dataset_versions"], report["truncated"]) == (6, False)


def test_the_retired_model_names_only_the_model_in_service(neo4j_endpoint: Any, story: str) -> None:
    report = json.loads(_compliance(neo4j_endpoint, story, "1.0.0", "--json"))
    assert report["status"] == "retired"
    assert [g["licence"] for g in report["licences"]] == ["proprietary"]
    [taken] = report["taken_down"]
    assert [s["model_version"] for s in taken["in_service"]] == ["model:p/chat@2.0.0"]
    text = _compliance(neo4j_endpoint, story, "1.0.0")
    assert "in service: model:p/chat@2.0.0" in text and "in service: model:p/chat@1.0.0" not in text


def test_absent_and_malformed_model_versions(neo4j_endpoint: Any, story: str) -> None:
    missing = provgraph_cli(neo4j_endpoint, "compliance", f"model:{story}/chat@9.9.9")
    assert missing.returncode == 1 and missing.stdout == ""
    assert f"not_found: model:{story}/chat@9.9.9" in missing.stderr
    for wrong in (f"run:{story}-new", "chat@2.0.0"):
        refused = provgraph_cli(neo4j_endpoint, "compliance", wrong)
        assert refused.returncode == 2, (wrong, refused.stderr)
    both = provgraph_cli(neo4j_endpoint, "compliance", f"model:{story}/chat@2.0.0", "--json",
                         "--markdown")  # fmt: skip
    assert both.returncode == 2 and "not allowed with" in both.stderr
