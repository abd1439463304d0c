"""`provgraph services up` gives the query service the built explorer, and only it."""

from __future__ import annotations

from pathlib import Path

import pytest

from provgraph.cli.services import provgraph_apps
from provgraph.infra.apps import Apps, AppSpec
from provgraph.infra.settings import InfraSettings


@pytest.fixture()
def apps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Apps:
    monkeypatch.delenv("PROVGRAPH_UI_DIR", raising=False)
    return provgraph_apps(InfraSettings(home=tmp_path / "home", ui_dir=tmp_path / "web" / "dist"))


def _spec(apps: Apps, name: str) -> AppSpec:
    return next(spec for spec in apps.specs if spec.name == name)


def test_the_query_service_gets_the_built_folder(apps: Apps, tmp_path: Path) -> None:
    (tmp_path / "web" / "dist").mkdir(parents=True)
    env = apps.app_env(_spec(apps, "query"))
    assert env["PROVGRAPH_UI_DIR"] == str((tmp_path / "web" / "dist").resolve())
    for other in ("ingest", "projector"):
        assert "PROVGRAPH_UI_DIR" not in apps.app_env(_spec(apps, other))


def test_no_folder_no_variable(apps: Apps) -> None:
    assert "PROVGRAPH_UI_DIR" not in apps.app_env(_spec(apps, "query"))


def test_the_default_is_the_checkouts_web_dist(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PROVGRAPH_UI_DIR", raising=False)
    assert InfraSettings().ui_dir == Path("web/dist")
