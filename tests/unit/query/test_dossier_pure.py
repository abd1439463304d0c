"""The model dossier's pure parts: sections assembled from plain records, the layout rendered
as Markdown and HTML (escaped, self-contained), the PDF's settings, the GraphQL field."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from fakes import fake_readers

from provgraph.query.dossier_pdf import PdfUnavailableError, chromium
from provgraph.query.errors import InvalidArgumentError
from provgraph.query.graphql.schema import make_context, make_schema
from provgraph.query.http.dossier_routes import download_name
from provgraph.query.read.model import Scope
from provgraph.query.recipes import dossier_release as release
from provgraph.query.recipes import dossier_sections as sections
from provgraph.query.recipes.dossier import Dossiers, gap_lines, title
from provgraph.query.recipes.dossier_render import render_html, render_markdown
from provgraph.query.recipes.service import Recipes
from provgraph.query.settings import QuerySettings

EVIL = '<script>alert("x")</script> | a pipe'
V = "model:p/chat@1"


def _run(run_id: str, base: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"id": run_id, "name": run_id[4:], "status": "completed", "params": {"lr": 0.1},
            "code": {"commit": "abc1234"}, "resources": None, "environment": None,
            "inputs": [{"role": "train", "id": "dataset:p/web@v1", "derived_from": [],
                        "source": {"uri": "s3://x", "licence": None}, "cleaning_rules": [],
                        "split": None, "storage_uri": "s3://x", "record_count": 3}],
            "resumed_from": [], "base": base}  # fmt: skip


def _document() -> dict[str, Any]:
    gaps = sections.Gaps([{"at": "run:p-ft", "issue": "no code commit recorded"}])
    found = {
        "version": {"id": V, "name": "chat", "version": "1", "status": "approved",
                    "status_at.approved": "2026-03-02T00:00:00.000000Z", "fit_for": []},
        "model": {"id": "model:p/chat", "name": "chat"},
        "events": [{"type": "model.version.status.changed", "at": "2026-03-02T00:00:00.000000Z",
                    "actor": "user:ann", "principal": None, "reason": EVIL}],
        "evaluations": [], "deployments": [],
    }  # fmt: skip
    recipe = {"run": _run("run:p-ft", {"id": "model:p/base@1", "run": _run("run:p-pre")})}
    train = sections.training(recipe, {}, gaps)
    doc = {
        "id": V,
        "identity": sections.identity(found, gaps),
        "training": train,
        "environments": sections.environments(recipe),
        "data": sections.data(recipe, {}, gaps),
        "evaluations": release.evaluations(found, gaps),
        "deployments": release.deployments(found, []),
        "accelerator_hours": train["accelerator_hours"],
        "gaps": gaps.items,
    }
    doc["title"] = title(doc)
    return doc


def test_the_chain_is_walked_level_by_level_and_gaps_are_named_once() -> None:
    doc = _document()
    assert [(s["level"], s["reached_as"], s["id"]) for s in doc["training"]["stages"]] == [
        (0, "produced", "run:p-ft"),
        (1, "base model", "run:p-pre"),
    ]
    assert doc["identity"]["approvals"][0]["reason"] == EVIL
    assert gap_lines(doc) == [
        "run:p-ft: no code commit recorded",
        "run:p-ft: no resources recorded: its accelerator-hours are unknown",
        "run:p-pre: no resources recorded: its accelerator-hours are unknown",
        "dataset:p/web@v1: no licence recorded for its source",
        f"{V}: no evaluation recorded",
        f"{V}: no validation recorded before registration",
        f"{V}: no fit-for scope recorded (what the version is fit for)",
    ]


def test_html_is_one_escaped_page_without_script() -> None:
    page = render_html(_document())
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert "<script" not in page and "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
    assert "@media print" in page and "http://" not in page and "https://" not in page
    heads = ["Identity", "Training", "Environment", "Data", "Evaluations", "Deployments",
             "Accelerator-hours", "Gaps"]  # fmt: skip
    places = [page.index(f"<h2>{h}</h2>") for h in heads]
    assert places == sorted(places)


def test_markdown_keeps_a_table_cell_in_its_cell() -> None:
    markdown = render_markdown(_document())
    assert markdown.startswith("# Model dossier: chat 1\n")
    row = next(line for line in markdown.splitlines() if "alert" in line)
    assert row.count(" | ") == 3 and "\\| a pipe" in row  # status, at, who, why: four cells


def test_only_a_model_version_has_a_dossier() -> None:
    dossiers = Dossiers(
        Recipes(fake_readers().recipes), fake_readers().dossier, fake_readers().feedback
    )
    with pytest.raises(InvalidArgumentError, match="model version"):
        dossiers.dossier("run:p-ft", Scope.everything())
    with pytest.raises(InvalidArgumentError):
        dossiers.dossier("not an id", Scope.everything())
    assert dossiers.dossier("model:p/none@1", Scope.everything()) is None


def test_graphql_answers_null_for_a_missing_version() -> None:
    settings = QuerySettings()
    context = make_context(settings, fake_readers())
    query = 'query { dossier(id: "model:p/none@1") { id title } }'
    result = asyncio.run(make_schema(settings).execute(query, context_value=context))
    assert result.errors is None and result.data == {"dossier": None}


def test_a_missing_chromium_names_the_setting() -> None:
    settings = QuerySettings(chromium_path="/nowhere/chromium")
    with pytest.raises(PdfUnavailableError, match="PROVGRAPH_CHROMIUM_PATH") as raised:
        chromium(settings)
    assert raised.value.code == "pdf_unavailable"
    assert raised.value.details["chromium_path"] == "/nowhere/chromium"


def test_the_download_name_is_a_safe_file_name() -> None:
    assert download_name("chat-7b", "4.0.0") == "dossier-chat-7b-4.0.0.pdf"
    assert download_name('a"b/c', "1 2") == "dossier-a_b_c-1_2.pdf"
