"""A real dbt project, run by dbt-ol, read back as Marquez reads it: every dataset a Marquez
dataset, sources included, and every model column traced back to its source columns.

The project (tests/e2e/dbt_shop/) builds two staging models over two `source()` tables of a
DuckDB file and a final model joining them. dbt-core, dbt-duckdb and openlineage-dbt come from
their own venv (`make dbt-venv`, which `make test` runs); `dbt-ol run` sends its OpenLineage
events through the HTTP transport to the running ingest service, as a deployment would. The
job namespace and the DuckDB namespace map to two projects, so every input is another
project's dataset, and the sources are only ever read: they have no writer to name them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from e2e_helpers import admin_token, await_applied, bearer, start_apps
from neo4j import Driver

from provgraph.infra.apps import Apps
from provgraph.ingest.openlineage import NamespaceMap
from provgraph.schemas.events.openlineage import ol_name
from provgraph.schemas.ids import dataset_id

pytestmark = pytest.mark.timeout(600)

REPO = Path(__file__).resolve().parents[2]
DBT_OL = Path(os.environ.get("PROVGRAPH_DBT_OL", REPO / ".venv-dbt" / "bin" / "dbt-ol"))
"""dbt-ol of the venv `make dbt-venv` makes (dbt pins packages older than provgraph's venv)."""
SHOP = Path(__file__).parent / "dbt_shop"
DATABASE = "shop"  # the DuckDB file's stem: dbt names its tables <database>.<schema>.<table>
SOURCES = ("raw_customers", "raw_orders")
MODELS = ("stg_customers", "stg_orders", "customer_orders")
FROM_SOURCES: dict[tuple[str, str], set[tuple[str, str]]] = {
    ("stg_customers", "customer_id"): {("raw_customers", "id")},
    ("stg_customers", "first_name"): {("raw_customers", "first_name")},
    ("stg_customers", "last_name"): {("raw_customers", "last_name")},
    ("stg_orders", "order_id"): {("raw_orders", "id")},
    ("stg_orders", "customer_id"): {("raw_orders", "customer_id")},
    ("stg_orders", "order_date"): {("raw_orders", "order_date")},
    ("stg_orders", "status"): {("raw_orders", "status")},
    ("stg_orders", "amount"): {("raw_orders", "amount")},
    ("customer_orders", "customer_id"): {("raw_customers", "id")},
    ("customer_orders", "first_name"): {("raw_customers", "first_name")},
    ("customer_orders", "last_name"): {("raw_customers", "last_name")},
    ("customer_orders", "order_count"): {("raw_orders", "id")},
    ("customer_orders", "total_amount"): {("raw_orders", "amount")},
}
"""Each model column and the source columns it comes from (the SQL in dbt_shop/models/)."""
EVENTS = 2 + 2 * len(MODELS)  # the dbt invocation's START and COMPLETE, each model's
DEPTH = 10  # final model to source: 5 hops (version, run, stg dataset, its run's READS)


@dataclass
class DbtRun:
    """The running stack and the namespaces of the dbt run it was sent."""

    apps: Apps
    token: str
    namespace: str  # the datasets': duckdb://<path of the DuckDB file>
    job_namespace: str

    def name(self, table: str) -> str:
        return f"{DATABASE}.main.{table}"

    def marquez_id(self, table: str) -> str:
        return f"dataset:{self.namespace}:{self.name(table)}"

    def provgraph_id(self, table: str) -> str:
        return dataset_id(NamespaceMap().project(self.namespace), ol_name(self.name(table)))

    def rest(self, path: str, **params: Any) -> tuple[int, Any]:
        """(status, JSON body) of a GET on the query service."""
        url = f"{self.apps.settings.query_url}{path}?{urllib.parse.urlencode(params)}"
        request = urllib.request.Request(url, headers=bearer(self.token))
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode()

    def client(self) -> Any:
        from marquez_client import MarquezClient

        return MarquezClient(url=self.apps.settings.query_url, api_key=self.token)

    def table_of(self, node: dict[str, Any]) -> tuple[str, str]:
        """(table, field) of a column node of a Marquez column-lineage answer."""
        data = node["data"]
        assert data["namespace"] == self.namespace, node["id"]
        return str(data["dataset"]).removeprefix(f"{DATABASE}.main."), str(data["field"])


@pytest.fixture(scope="module")
def dbt_run(
    tmp_path_factory: pytest.TempPathFactory, endpoints: Any, neo4j_driver: Driver
) -> Iterator[DbtRun]:
    """One stack for the module, the dbt project run by dbt-ol against it, every event applied."""
    if not os.access(DBT_OL, os.X_OK):
        pytest.fail(f"{DBT_OL} is missing: `make dbt-venv` makes it (`make test` runs it)")
    tag = uuid.uuid4().hex[:8]
    work = tmp_path_factory.mktemp(f"dbt-{tag}")
    project, job_namespace, names = work / "shop", f"dbt-{tag}", NamespaceMap()
    with pytest.MonkeyPatch.context() as mp:
        apps = start_apps(work / "home", endpoints, f"t-oldbt-{tag}", mp, neo4j_driver)
        namespace = f"duckdb://{project / DATABASE}.duckdb"  # as dbt-ol names a DuckDB file
        run = DbtRun(apps, admin_token(apps), namespace, job_namespace)
        try:
            output = _dbt_ol(run, project)
            try:
                await_applied(neo4j_driver, names.project(job_namespace), EVENTS)
            except AssertionError as exc:
                raise AssertionError(f"{exc}; dbt-ol said:\n{output}") from None
            yield run
        finally:
            apps.down()
            projects = [names.project(run.namespace), names.project(job_namespace)]
            neo4j_driver.execute_query(
                "MATCH (n) WHERE n.project IN $ps DETACH DELETE n", ps=projects
            )


def _dbt_ol(run: DbtRun, project: Path) -> str:
    """`dbt-ol run` on a copy of the project, its events sent to ingest; its output."""
    shutil.copytree(SHOP, project)
    (project / "profiles.yml").write_text(
        "shop:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n"
        f"      path: {project / f'{DATABASE}.duckdb'}\n      threads: 1\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENLINEAGE_", "DBT_"))}
    env |= {
        "PATH": f"{DBT_OL.parent}{os.pathsep}{env.get('PATH', '')}",  # dbt-ol runs `dbt`
        "OPENLINEAGE_URL": run.apps.settings.ingest_url,
        "OPENLINEAGE_API_KEY": run.token,  # sent as "Authorization: Bearer <token>"
        "OPENLINEAGE_NAMESPACE": run.job_namespace,
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        "DO_NOT_TRACK": "1",
    }
    args = [str(DBT_OL), "run", "--project-dir", str(project), "--profiles-dir", str(project)]
    done = subprocess.run(
        args, cwd=project, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert f"Emitted {EVENTS} OpenLineage events" in output, output
    return output


# --- Marquez datasets ------------------------------------------------------------------------


def test_every_source_and_model_is_a_marquez_dataset(dbt_run: DbtRun) -> None:
    client = dbt_run.client()
    listed = client.list_datasets(dbt_run.namespace)["datasets"]
    assert sorted(d["name"] for d in listed) == sorted(dbt_run.name(t) for t in SOURCES + MODELS)
    for table in SOURCES + MODELS:
        found = client.get_dataset(dbt_run.namespace, dbt_run.name(table))
        assert found["id"] == {"namespace": dbt_run.namespace, "name": dbt_run.name(table)}
        assert found["nodeId"] == dbt_run.marquez_id(table)
    model = client.get_dataset(dbt_run.namespace, dbt_run.name("customer_orders"))
    assert "columnLineage" in model["facets"]  # what dbt-ol parsed out of the compiled SQL


def _lineage(dbt_run: DbtRun, table: str) -> dict[str, dict[str, Any]]:
    """The Marquez lineage graph around `table`'s dataset, by node id."""
    status, answer = dbt_run.rest("/api/v1/lineage", nodeId=dbt_run.marquez_id(table), depth=DEPTH)
    assert status == 200, answer
    assert answer["graph"][0]["id"] == dbt_run.marquez_id(table)
    return {node["id"]: node for node in answer["graph"]}


def test_lineage_of_the_final_model_reaches_the_sources_under_their_marquez_ids(
    dbt_run: DbtRun,
) -> None:
    found = _lineage(dbt_run, "customer_orders")
    assert {dbt_run.marquez_id(t) for t in SOURCES + MODELS} <= found.keys()
    assert {dbt_run.provgraph_id(t) for t in SOURCES + MODELS} & found.keys() == set()


def test_lineage_of_a_source_reaches_the_models_made_from_it(dbt_run: DbtRun) -> None:
    for source, staging in (("raw_orders", "stg_orders"), ("raw_customers", "stg_customers")):
        found = _lineage(dbt_run, source)
        assert {dbt_run.marquez_id(staging), dbt_run.marquez_id("customer_orders")} <= (
            found.keys()
        )
        assert found[dbt_run.marquez_id(source)]["outEdges"], f"{source} feeds nothing"


# --- column lineage --------------------------------------------------------------------------


def _columns(dbt_run: DbtRun, table: str, field: str, *, downstream: bool) -> set[tuple[str, str]]:
    """Every column the Marquez column lineage of `table.field` reaches, as (table, field)."""
    answer = dbt_run.client().get_column_lineage_by_dataset_field(
        dbt_run.namespace, dbt_run.name(table), field, depth=DEPTH, with_downstream=downstream
    )
    assert answer["graph"], f"no column lineage for {table}.{field}"
    return {dbt_run.table_of(node) for node in answer["graph"]}


def test_every_model_column_traces_back_to_the_source_columns_it_comes_from(
    dbt_run: DbtRun,
) -> None:
    traced = {
        column: {
            found for found in _columns(dbt_run, *column, downstream=False) if found[0] in SOURCES
        }
        for column in FROM_SOURCES
    }
    assert traced == FROM_SOURCES


def test_every_source_column_reaches_the_model_columns_made_from_it(dbt_run: DbtRun) -> None:
    feeds: dict[tuple[str, str], set[tuple[str, str]]] = {}
    for column, sources in FROM_SOURCES.items():
        for source in sources:
            feeds.setdefault(source, set()).add(column)
    reached = {source: _columns(dbt_run, *source, downstream=True) - {source} for source in feeds}
    assert reached == feeds
