"""What `provgraph services up` starts: the command line names each process by the module it
runs, the launcher turns that into a command line, and knows it again without loading it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from provgraph import cli
from provgraph.cli.services import app_specs
from provgraph.core.server import HTTP_PROTOCOL_OPTION
from provgraph.infra.apps import AppEntry, http_app, module_app
from provgraph.infra.settings import InfraSettings
from provgraph.ingest import app as ingest_entry
from provgraph.query import app as query_entry

pytestmark = pytest.mark.unit


def _fail() -> AppEntry:
    raise AssertionError("the entry was imported")


def test_an_http_app_is_served_from_its_entry_modules_factory() -> None:
    spec = http_app("query", lambda: query_entry, InfraSettings(host="127.0.0.2"), 9001)
    options = ("--factory", "--host", "127.0.0.2", "--port", "9001", "--no-access-log")
    assert spec.argv == (
        sys.executable,
        "-m",
        "uvicorn",
        "provgraph.query.app:create_app",
        *options,
        "--http",
        HTTP_PROTOCOL_OPTION,
    )
    assert " ".join(options) in spec.marker
    assert (spec.name, spec.port, spec.serves_ui) == ("query", 9001, False)


def test_knowing_an_app_again_does_not_import_it() -> None:
    spec = http_app("ingest", _fail, InfraSettings(), 9002)
    assert "--port 9002" in spec.marker
    with pytest.raises(AssertionError, match="imported"):
        spec.command()


def test_a_module_app_runs_with_python_dash_m() -> None:
    spec = module_app("projector", cli, "projector")
    assert spec.argv == (sys.executable, "-m", "provgraph.cli", "projector")
    assert spec.marker == "-m provgraph.cli projector"
    assert spec.port is None


def test_the_command_line_starts_ingest_the_projector_and_query_in_order() -> None:
    settings = InfraSettings(ingest_port=9100, query_port=9101)
    specs = {spec.name: spec for spec in app_specs(settings)}
    assert list(specs) == ["ingest", "projector", "query"]
    assert specs["ingest"].argv == http_app("ingest", lambda: ingest_entry, settings, 9100).argv
    assert specs["projector"].argv == module_app("projector", cli, "projector").argv
    assert specs["query"].argv == http_app("query", lambda: query_entry, settings, 9101).argv
    assert [spec.serves_ui for spec in specs.values()] == [False, False, True]
    assert len({spec.marker for spec in specs.values()}) == 3


def test_services_status_does_not_load_the_services() -> None:
    """`services status` and `down` answer without importing the apps (seconds of FastAPI and
    GraphQL): only starting them needs their factories."""
    check = (
        "import sys; from provgraph.cli.services import provgraph_apps; apps = provgraph_apps(); "
        "[apps.process(spec) for spec in apps.specs]; "
        "assert 'provgraph.query.http.app' not in sys.modules; "
        "assert 'provgraph.ingest.http.app' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", check], check=True, timeout=120)
