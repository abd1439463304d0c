"""The model dossier on a seeded story in Neo4j: every format through `provgraph dossier`,
GraphQL's `dossier(id)` and `GET /v1/dossier/{id}`, and another project's token answered
nothing. Expected answers are written from the story below, by hand.

  experiments pre (#11, "a base model from web text") and ft (#12, "chat from the base");
  environment cuda-img: trainer:2026.03 on nvidia/cuda:12.4.1, Python 3.11.9, driver 550.54,
    torch 2.5.1, CUDA 12.4 / cuDNN 9.1.0, NCCL 2.21.5 (system nccl.algo ring);
  web@v1 (crawled, CC-BY-4.0, a note with markup) -> web@v2 (minhash dedup, split 98/2,
    gates: no-empty passes, toxicity FAILS); chat@v1 (purchased, NO licence);
    sft-mix@v1 = web@v2 x 0.2 + chat@v1 x 0.8 (gate: schema passes);
  pre (2 x 8 devices, 10:10-11:10: 16 accelerator-hours) reads web@v2, checkpoint 1000,
    resumed after a node failure, completes; base@1.0.0 is its model;
  ft-1 (1 x 4 devices, 11:20-11:40: 1.333 h) starts from base@1.0.0, reads sft-mix, fails (OOM);
  ft-2 resumes from ft-1's checkpoint 50, records NO resources and NO conclusion; chat@1.0.0
    (fit for the internal chat assistant, toxicity validation passed) is its model, evaluated
    on eval-a@v1 (acc 0.61, passed) and on eval-b@v1 (acc 0.49, failed), approved ("review
    passed"), delivered ("shipped to chat-api", the reason the version keeps), served by
    chat-api, whose feedback recorded thumbs_up 0.81 and a high-severity incident.
"""

from __future__ import annotations

import asyncio
import json
import math
import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from neo4j import Driver
from support.stories import provgraph_cli, story_event

from provgraph.ingest.projection import project_event
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.query.app import create_app
from provgraph.query.graphql.schema import make_context, make_schema
from provgraph.query.read.model import Scope
from provgraph.query.read.readers import neo4j_readers
from provgraph.query.recipes.dossier import Dossiers
from provgraph.query.recipes.service import Recipes
from provgraph.query.settings import QuerySettings
from provgraph.schemas.storage import format_time

T0 = datetime(2026, 3, 1, 10, 0, tzinfo=UTC)
DIGEST = "sha256:" + "ab" * 32
NOTE = "robots.txt honoured <b>no</b> opt-outs"
SECTIONS = ("Identity", "Training", "Environment", "Data", "Evaluations", "Deployments",
            "Accelerator-hours", "Gaps")  # fmt: skip
Step = tuple[str, dict[str, Any], int]


def at(minute: int) -> str:
    return format_time(T0 + timedelta(minutes=minute))


def _data(p: str) -> list[Step]:
    def version(name: str, v: str, **more: Any) -> Step:
        payload = {"name": name, "version": v, "storage_uri": f"s3://d/{name}/{v}/", **more}
        return ("dataset.version.created", payload, 0)

    web2_gates = {"dedup_rate": 0.12, "checks": [{"name": "no-empty", "passed": True},
                  {"name": "toxicity", "passed": False, "value": 0.07}]}  # fmt: skip
    mix = [
        {"dataset_version": f"dataset:{p}/web@v2", "transform": "mix", "weight": 0.2},
        {"dataset_version": f"dataset:{p}/chat@v1", "transform": "mix", "weight": 0.8},
    ]
    return [
        version("web", "v1", source={"uri": "https://example.org/crawl/", "obtained_by": "crawl",
                                     "licence": "CC-BY-4.0", "compliance_note": NOTE}),
        version("web", "v2", derived_from=[{"dataset_version": f"dataset:{p}/web@v1",
                                            "transform": "dedup"}],
                cleaning_rules=[{"kind": "dedup", "name": "minhash",
                                 "params": {"threshold": 0.8}}],
                split={"train": {"ratio": 0.98}, "validation": {"ratio": 0.02}},
                quality_gates=web2_gates),
        version("chat", "v1", source={"uri": "s3://vendor/chat/", "obtained_by": "purchase"}),
        version("sft-mix", "v1", derived_from=mix,
                quality_gates={"mix_ratio": {"web": 0.2, "chat": 0.8},
                               "checks": [{"name": "schema", "passed": True}]}),
        version("eval-a", "v1"),
        version("eval-b", "v1"),
    ]  # fmt: skip


def _setup(p: str) -> list[Step]:
    env = {"key": "cuda-img",
           "image": {"name": "registry.example.org/trainer", "tag": "2026.03", "digest": DIGEST},
           "base_image": {"name": "nvidia/cuda", "tag": "12.4.1-cudnn-devel"},
           "python_version": "3.11.9", "driver_version": "550.54.15",
           "frameworks": {"torch": "2.5.1"}, "compute_libs": {"cuda": "12.4", "cudnn": "9.1.0"},
           "parallel_libs": {"nccl": "2.21.5"}, "system": {"nccl": {"algo": "ring"}},
           "packages": {"torch": "2.5.1", "numpy": "2.1.3"}}  # fmt: skip
    return [
        ("experiment.created", {"key": "pre", "number": 11,
                                "goal": "a base model from web text"}, 0),
        ("experiment.created", {"key": "ft", "number": 12, "goal": "chat from the base"}, 0),
        ("environment.snapshot.recorded", env, 0),
        *_data(p),
    ]  # fmt: skip


def _run(p: str, key: str, minute: int, **more: Any) -> Step:
    payload = {"run_id": f"{p}-{key}", "name": key, "environment": f"environment:{p}/cuda-img",
               "params": {"lr": 3e-4 if key == "pre" else 1e-5},
               "code": {"repo": "https://git.example.org/trainer",
                        "commit": "aaa1111" if key == "pre" else "bbb2222", "dirty": False},
               **more}  # fmt: skip
    return ("run.started", payload, minute)


def _save(p: str, key: str, step: int, minute: int) -> Step:
    return ("checkpoint.saved", {"run_id": f"{p}-{key}", "step": step,
                                 "uri": f"s3://ckpt/{key}/{step}"}, minute)  # fmt: skip


def _training(p: str) -> list[Step]:
    sft = [{"dataset_version": f"dataset:{p}/sft-mix@v1", "role": "train"}]
    return [
        _run(p, "pre", 10, experiment=f"experiment:{p}/pre", run_number=1,
             inputs=[{"dataset_version": f"dataset:{p}/web@v2", "role": "train"}],
             resources={"num_nodes": 2, "devices_per_node": 8, "accelerator": "H100"}),
        _save(p, "pre", 1000, 20),
        ("run.resumed", {"run_id": f"{p}-pre", "from_checkpoint": f"checkpoint:{p}-pre/1000",
                         "interruption_cause": "node failure", "steps_lost": 120,
                         "resumed_at_step": 1000}, 30),
        _save(p, "pre", 2000, 60),
        ("run.completed", {"run_id": f"{p}-pre", "conclusion": "base ready"}, 70),
        ("model.version.registered", {"name": "base", "version": "1.0.0",
                                      "produced_by_run": f"run:{p}-pre",
                                      "checkpoint": f"checkpoint:{p}-pre/2000"}, 75),
        _run(p, "ft-1", 80, experiment=f"experiment:{p}/ft", run_number=1, inputs=sft,
             base_model=f"model:{p}/base@1.0.0",
             resources={"num_nodes": 1, "devices_per_node": 4}),
        _save(p, "ft-1", 50, 90),
        ("run.failed", {"run_id": f"{p}-ft-1", "conclusion": "batch too large",
                        "error": {"type": "OOM", "message": "CUDA out of memory"}}, 100),
        _run(p, "ft-2", 110, experiment=f"experiment:{p}/ft", run_number=2, inputs=sft,
             resumed_from=f"checkpoint:{p}-ft-1/50"),
        _save(p, "ft-2", 300, 135),
        ("run.completed", {"run_id": f"{p}-ft-2"}, 140),
    ]  # fmt: skip


def _release(p: str) -> list[Step]:
    chat = f"model:{p}/chat@1.0.0"

    def evaluated(n: int, data: str, acc: float, passed: bool) -> Step:
        payload = {
            "evaluation_id": f"00000000-0000-4000-8000-00000000000{n}",
            "model_version": chat,
            "suite": "harness",
            "passed": passed,
            "dataset_versions": [f"dataset:{p}/{data}"],
            "metrics": {"acc": acc},
        }
        return ("model.version.evaluated", payload, 154 + n)

    return [
        ("model.version.registered", {"name": "chat", "version": "1.0.0",
                                      "produced_by_run": f"run:{p}-ft-2",
                                      "checkpoint": f"checkpoint:{p}-ft-2/300",
                                      "fit_for": ["internal chat assistant"],
                                      "validation": [{"name": "toxicity", "passed": True,
                                                      "value": 0.01}]}, 150),
        evaluated(1, "eval-a@v1", 0.61, True),
        evaluated(2, "eval-b@v1", 0.49, False),
        ("model.version.status.changed", {"model_version": chat, "from_status": "candidate",
                                          "to_status": "approved",
                                          "reason": "review passed"}, 160),
        ("model.version.status.changed", {"model_version": chat, "from_status": "approved",
                                          "to_status": "delivered",
                                          "reason": "shipped to chat-api"}, 170),
        ("deployment.created", {"name": "chat-api", "endpoint": "https://chat.example.org/v1",
                                "environment": "production",
                                "serves": [{"model_version": chat, "traffic_share": 1.0}]}, 175),
        ("deployment.feedback.recorded", {"name": "chat-api", "model_version": chat,
                                          "metrics": {"thumbs_up": 0.81},
                                          "incidents": [{"summary": "timeouts at peak",
                                                         "severity": "high"}]}, 180),
    ]  # fmt: skip


@pytest.fixture()
def seeded(neo4j_driver: Driver, project: str) -> str:
    steps = [*_setup(project), *_training(project), *_release(project)]
    events = [
        story_event(project, t, payload, T0 + timedelta(minutes=m)) for t, payload, m in steps
    ]
    GraphWriter(neo4j_driver).write([project_event(e) for e in events])
    return project


def _document(driver: Driver, p: str, scope: Scope | None = None) -> dict[str, Any] | None:
    readers = neo4j_readers(driver)
    dossiers = Dossiers(Recipes(readers.recipes), readers.dossier, readers.feedback)
    return dossiers.dossier(f"model:{p}/chat@1.0.0", scope or Scope.everything())


def test_identity_training_and_hours_are_the_story_s(neo4j_driver: Driver, seeded: str) -> None:
    p = seeded
    doc = _document(neo4j_driver, p)
    assert doc is not None and doc["title"] == "Model dossier: chat 1.0.0"
    who = doc["identity"]
    assert (who["model"], who["status"], who["registered_at"]) == (
        f"model:{p}/chat", "delivered", at(150))  # fmt: skip
    assert [(h["status"], h["at"], h["person"], h["reason"]) for h in who["status_history"]] == [
        ("approved", at(160), "user:test", None),  # the version keeps the latest reason only
        ("delivered", at(170), "user:test", "shipped to chat-api"),
    ]
    assert [a["at"] for a in who["approvals"]] == [at(160)]
    stages = doc["training"]["stages"]
    assert [(s["level"], s["reached_as"], s["id"]) for s in stages] == [
        (0, "produced", f"run:{p}-ft-2"),
        (0, "resumed from", f"run:{p}-ft-1"),
        (1, "base model", f"run:{p}-pre"),
    ]
    ft2, ft1, pre = stages
    assert (ft2["experiment"]["number"], ft2["experiment"]["goal"]) == (12, "chat from the base")
    assert (pre["experiment"]["number"], pre["conclusion"]) == (11, "base ready")
    assert [c["id"] for c in ft2["resumed_from"]] == [f"checkpoint:{p}-ft-1/50"]
    assert (ft1["base"], ft1["failures"][0]["at"], ft1["error"]) == (
        f"model:{p}/base@1.0.0",
        at(100),
        {"type": "OOM", "message": "CUDA out of memory"},
    )
    assert [r["at"] for r in pre["resumes"]] == [at(30)]
    assert pre["last_interruption"] == {"cause": "node failure", "steps_lost": 120,
                                        "resumed_at_step": 1000}  # fmt: skip
    assert (pre["code"]["commit"], pre["params"]) == ("aaa1111", {"lr": 3e-4})
    assert (pre["accelerator_hours"], ft1["accelerator_hours"], ft2["accelerator_hours"]) == (
        16.0, 1.333, None)  # fmt: skip
    hours = doc["accelerator_hours"]
    assert (hours["total"], hours["runs_without_resources"]) == (17.333, 1)


def test_environment_data_evaluations_deployments_and_gaps(
    neo4j_driver: Driver, seeded: str
) -> None:
    p = seeded
    doc = _document(neo4j_driver, p)
    assert doc is not None
    [env] = doc["environments"]
    assert (env["image_ref"], env["base_image_ref"]) == (
        f"registry.example.org/trainer:2026.03@{DIGEST}",
        "nvidia/cuda:12.4.1-cudnn-devel",
    )
    assert (env["python_version"], env["driver_version"], env["compute_libs"],
            env["parallel_libs"], env["system"]) == (
        "3.11.9", "550.54.15", {"cuda": "12.4", "cudnn": "9.1.0"}, {"nccl": "2.21.5"},
        {"nccl": {"algo": "ring"}})  # fmt: skip
    assert env["runs"] == [f"run:{p}-ft-2", f"run:{p}-ft-1", f"run:{p}-pre"]
    data = {d["id"].split("/")[-1]: d for d in doc["data"]}
    assert sorted(data) == ["chat@v1", "sft-mix@v1", "web@v1", "web@v2"]
    assert data["web@v1"]["source"] == {"uri": "https://example.org/crawl/",
        "obtained_by": "crawl", "licence": "CC-BY-4.0", "compliance_note": NOTE}  # fmt: skip
    web2 = data["web@v2"]
    assert [r["name"] for r in web2["cleaning_rules"]] == ["minhash"]
    assert web2["split"] == {"train": {"ratio": 0.98}, "validation": {"ratio": 0.02}}
    assert web2["quality_gates"]["passed"] is False
    assert [(c["name"], c["passed"]) for c in web2["quality_gates"]["checks"]] == [
        ("no-empty", True), ("toxicity", False)]  # fmt: skip
    mix = data["sft-mix@v1"]
    assert [(m["dataset_version"], m["weight"]) for m in mix["mix"]] == [
        (f"dataset:{p}/chat@v1", 0.8), (f"dataset:{p}/web@v2", 0.2)]  # fmt: skip
    assert mix["quality_gates"]["passed"] is True
    assert mix["read_by"] == [{"run": f"run:{p}-ft-2", "role": "train"},
                              {"run": f"run:{p}-ft-1", "role": "train"}]  # fmt: skip
    found = doc["evaluations"]
    assert [(s["datasets"], [(e["metrics"], e["passed"]) for e in s["evaluations"]])
            for s in found["sets"]] == [
        ([f"dataset:{p}/eval-a@v1"], [({"acc": 0.61}, True)]),
        ([f"dataset:{p}/eval-b@v1"], [({"acc": 0.49}, False)]),
    ]  # fmt: skip
    assert (found["fit_for"], found["validation"]["passed"]) == (["internal chat assistant"], True)
    [api] = doc["deployments"]
    assert (api["id"], api["serving"], api["traffic_share"]) == (
        f"deployment:{p}/chat-api", True, 1.0)  # fmt: skip
    assert (api["latest_feedback"]["at"], api["latest_feedback"]["metrics"]) == (
        at(180), {"thumbs_up": 0.81})  # fmt: skip
    assert [(i["summary"], i["severity"]) for i in api["incidents"]] == [
        ("timeouts at peak", "high")
    ]
    assert doc["gaps"] == [
        # the recipe's: a version trained on whose gates failed (web@v2's toxicity)
        {
            "at": f"dataset:{p}/web@v2",
            "issue": f"quality gates failed: toxicity (trained on by run:{p}-pre)",
        },
        {"at": f"run:{p}-ft-2", "issue": "no conclusion recorded"},
        {
            "at": f"run:{p}-ft-2",
            "issue": "no resources recorded: its accelerator-hours are unknown",
        },
        {"at": f"dataset:{p}/chat@v1", "issue": "no licence recorded for its source"},
    ]


def _cli(endpoint: Any, tmp: Path, p: str, form: str) -> Path:
    out = tmp / f"dossier.{form}"
    done = provgraph_cli(endpoint, "dossier", f"model:{p}/chat@1.0.0", "--format", form, "-o",
                         str(out))  # fmt: skip
    assert done.returncode == 0, done.stderr
    return out


def _in_order(page: str, *parts: str) -> None:
    places = [page.find(part) for part in parts]
    assert -1 not in places and places == sorted(places), dict(zip(parts, places, strict=True))


def test_cli_writes_every_format(
    neo4j_endpoint: Any, neo4j_driver: Driver, seeded: str, tmp_path: Path
) -> None:
    p = seeded
    doc = _document(neo4j_driver, p)
    assert json.loads(_cli(neo4j_endpoint, tmp_path, p, "json").read_text()) == doc
    markdown = _cli(neo4j_endpoint, tmp_path, p, "markdown").read_text()
    _in_order(markdown, *(f"\n## {s}\n" for s in SECTIONS))
    assert f"| run:{p}-ft-2 | no conclusion recorded |" in markdown
    assert "| toxicity | FAIL | 0.07 |" in markdown
    page = _cli(neo4j_endpoint, tmp_path, p, "html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "@media print" in page
    assert "<script" not in page and "<b>no</b>" not in page
    assert "robots.txt honoured &lt;b&gt;no&lt;/b&gt; opt-outs" in page
    _in_order(page, *(f"<h2>{s}</h2>" for s in SECTIONS))
    missing = provgraph_cli(neo4j_endpoint, "dossier", f"model:{p}/nothing@1")
    assert (missing.returncode, missing.stdout) == (1, "")
    wrong = provgraph_cli(neo4j_endpoint, "dossier", f"run:{p}-pre")
    assert wrong.returncode == 2 and "invalid_argument" in wrong.stderr


def _pgm(path: Path) -> tuple[int, int, bytes]:
    """Width, height and pixels of a binary PGM (P5, 8 bits) as pdftoppm writes it."""
    raw = path.read_bytes()
    magic, width, height, depth, pixels = raw.split(maxsplit=4)
    assert (magic, depth) == (b"P5", b"255")
    return int(width), int(height), pixels


def test_pdf_reads_back_and_shows_a_page(neo4j_endpoint: Any, seeded: str, tmp_path: Path) -> None:
    pdf = _cli(neo4j_endpoint, tmp_path, seeded, "pdf")
    assert pdf.read_bytes().startswith(b"%PDF-")
    words = " ".join(subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True,
                                    text=True, check=True).stdout.split())  # fmt: skip
    _in_order(words, "Model dossier: chat 1.0.0", *SECTIONS[1:])
    for said in ("shipped to chat-api", "timeouts at peak", "no conclusion recorded",
                 "no licence recorded for its source", "FAIL"):  # fmt: skip
        assert said in words
    subprocess.run(["pdftoppm", "-gray", "-r", "50", "-f", "1", "-l", "1", str(pdf),
                    str(tmp_path / "page")], check=True)  # fmt: skip
    [page] = list(tmp_path.glob("page*.pgm"))
    width, height, pixels = _pgm(page)
    # A4 (210 x 297 mm, the page's @page size) at 50 dpi, rounded up as pdftoppm does
    assert (width, height) == (math.ceil(210 / 25.4 * 50), math.ceil(297 / 25.4 * 50))
    assert len(pixels) == width * height
    inked = sum(1 for v in pixels if v < 128)
    assert 0.005 < inked / len(pixels) < 0.5, inked  # text on a white page: not blank, not black


QUERY = 'query { dossier(id: "%s") { id title gaps markdown html document } }'


def _graphql(driver: Driver, p: str, scope: Scope) -> Any:
    settings = QuerySettings()
    context = make_context(settings, neo4j_readers(driver, settings=settings), scope=scope)
    result = asyncio.run(
        make_schema(settings).execute(QUERY % f"model:{p}/chat@1.0.0", context_value=context)
    )
    assert result.errors is None, result.errors
    assert result.data is not None
    return result.data["dossier"]


def test_graphql_answers_the_document_in_the_caller_s_scope(
    neo4j_driver: Driver, seeded: str, other_project: str
) -> None:
    p = seeded
    found = _graphql(neo4j_driver, p, Scope(frozenset({p})))
    doc = _document(neo4j_driver, p)
    assert found["document"] == doc and found["title"] == "Model dossier: chat 1.0.0"
    assert found["gaps"] == [
        f"dataset:{p}/web@v2: quality gates failed: toxicity (trained on by run:{p}-pre)",
        f"run:{p}-ft-2: no conclusion recorded",
        f"run:{p}-ft-2: no resources recorded: its accelerator-hours are unknown",
        f"dataset:{p}/chat@v1: no licence recorded for its source"]  # fmt: skip
    assert found["html"].startswith("<!DOCTYPE html>") and "## Gaps" in found["markdown"]
    assert _graphql(neo4j_driver, p, Scope(frozenset({other_project}))) is None


@pytest.fixture()
def http(neo4j_driver: Driver, seeded: str, access: Any) -> Iterator[TestClient]:
    with TestClient(create_app(driver=neo4j_driver)) as client:
        yield client


def test_rest_answers_each_format_and_404_to_another_project(
    http: TestClient, seeded: str, other_project: str, access: Any
) -> None:
    p, path = seeded, f"/v1/dossier/model:{seeded}/chat@1.0.0"
    mine = access.headers(f"service:reader-{p[-8:]}", grants={p: ("reader",)})
    theirs = access.headers(f"service:other-{p[-8:]}", grants={other_project: ("reader",)})
    page = http.get(path, headers=mine)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "<h2>Gaps</h2>" in page.text
    encoded = f"/v1/dossier/{quote(f'model:{p}/chat@1.0.0', safe='')}"  # as the explorer asks
    assert http.get(encoded, headers=mine).text == page.text
    as_json = http.get(path, params={"format": "json"}, headers=mine).json()
    assert as_json["gaps"][1] == {"at": f"run:{p}-ft-2", "issue": "no conclusion recorded"}
    markdown = http.get(path, params={"format": "markdown"}, headers=mine)
    assert markdown.text.startswith("# Model dossier: chat 1.0.0\n")
    pdf = http.get(path, params={"format": "pdf"}, headers=mine)
    assert (pdf.status_code, pdf.headers["content-type"]) == (200, "application/pdf")
    assert pdf.headers["content-disposition"] == 'attachment; filename="dossier-chat-1.0.0.pdf"'
    assert pdf.content.startswith(b"%PDF-")
    refused = http.get(path, headers=theirs)
    assert (refused.status_code, refused.json()["error"]["code"]) == (404, "not_found")
    assert http.get(path).status_code == 401
    assert http.get(path, params={"format": "docx"}, headers=mine).status_code in (400, 422)
