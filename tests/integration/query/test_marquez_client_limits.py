"""Marquez's read parameters, asked by Marquez's own client (`marquez-python`, from PyPI) of
the query service over HTTP with a real Neo4j: what Marquez accepts is answered, never refused.

Marquez takes any non-negative `limit` and `offset` and any `depth`; provgraph serves at most
`PROVGRAPH_PAGE_MAX_SIZE` items a page (with the true `totalCount`) and walks at most
`PROVGRAPH_LINEAGE_MAX_DEPTH` hops. To check the ceilings against several times more than they
serve, most tests run the service with small ones (`CEILING` items, `MAX_DEPTH` hops) over a
world several times larger; one runs the shipped defaults over more namespaces than a page
holds. Each list is asked with what the client's methods send by default (`limit=100`,
`offset=0`, `depth=20`, `withDownstream=False`) and with large limits. The world:
`support/marquez_world.py`.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from marquez_client import MarquezClient
from marquez_client.errors import APIError
from neo4j import Driver
from support.http_service import served
from support.marquez_world import (
    HOPS,
    TOKENS,
    VERSIONS,
    WRITE,
    World,
    chain,
    event,
    new_world,
    step,
    write,
)

from provgraph.ingest.openlineage import NamespaceMap
from provgraph.query.app import create_app
from provgraph.query.settings import QuerySettings

pytestmark = pytest.mark.integration

CEILING, MAX_DEPTH = 4, 3
"""The page ceiling and depth ceiling of the small service; the world holds over 3x both."""
LARGE_LIMITS = (None, 1000, 100_000)  # None: the client's default (100)


@pytest.fixture()
def world(neo4j_driver: Driver, project: str) -> World:
    return new_world(neo4j_driver, project)


@pytest.fixture()
def token(access: Any, world: World) -> str:
    who = f"service:mqz-limits-{uuid.uuid4().hex[:8]}"
    return str(access.token(who, grants={world.project: ("reader",)}))


@pytest.fixture()
def url(neo4j_driver: Driver) -> Iterator[str]:
    settings = QuerySettings(page_max_size=CEILING, lineage_max_depth=MAX_DEPTH)
    with served(create_app(settings, driver=neo4j_driver)) as base:
        yield base


@pytest.fixture()
def marquez(url: str, token: str) -> MarquezClient:
    return MarquezClient(url, api_key=token)


@pytest.fixture()
def http(url: str, token: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}) as client:
        yield client


Lister = Callable[..., dict[str, Any]]


def _lists(marquez: MarquezClient, w: World) -> dict[str, tuple[Lister, str, set[str]]]:
    """Each list the client reads: (its method with the path arguments bound, the key of its
    items, the names it must hold in all)."""
    versions = {f"v{i:02d}" for i in range(1, VERSIONS + 1)}
    return {
        "namespaces": (marquez.list_namespaces, "namespaces", w.namespaces),
        "datasets": (lambda **p: marquez.list_datasets(w.lake, **p), "datasets", w.datasets),
        "versions": (
            lambda **p: marquez.list_dataset_versions(w.lake, TOKENS, **p),
            "versions",
            versions,
        ),
        "jobs": (lambda **p: marquez.list_jobs(w.jobs, **p), "jobs", w.job_names),
        "runs": (lambda **p: marquez.list_job_runs(w.jobs, WRITE, **p), "runs", set(w.writes)),
    }


def _names(items: list[dict[str, Any]], key: str) -> list[str]:
    field = {"versions": "version", "runs": "id"}.get(key, "name")
    return [str(item[field]) for item in items]


@pytest.mark.parametrize("limit", LARGE_LIMITS)
@pytest.mark.parametrize("kind", ["namespaces", "datasets", "versions", "jobs", "runs"])
def test_a_list_serves_the_ceiling_with_its_true_total(
    marquez: MarquezClient, world: World, kind: str, limit: int | None
) -> None:
    ask, key, everything = _lists(marquez, world)[kind]
    page = ask() if limit is None else ask(limit=limit)
    assert page["totalCount"] == len(everything) > 3 * CEILING
    assert len(page[key]) == CEILING
    assert set(_names(page[key], key)) <= everything


@pytest.mark.parametrize("kind", ["namespaces", "datasets", "versions", "jobs", "runs"])
def test_paging_through_a_list_visits_each_item_once(
    marquez: MarquezClient, world: World, kind: str
) -> None:
    ask, key, everything = _lists(marquez, world)[kind]
    seen: list[str] = []
    for offset in range(0, 100, CEILING):
        page = ask(limit=1000, offset=offset)  # the ceiling, asked for more each time
        if not page[key]:
            break
        seen += _names(page[key], key)
    assert len(seen) == len(set(seen)) == len(everything)
    assert set(seen) == everything
    past = ask(limit=100_000, offset=100_000)
    assert (past["totalCount"], past[key]) == (len(seen), [])


LIST_PATHS = {
    "namespaces": "/api/v1/namespaces",
    "datasets": "/api/v1/namespaces/{lake}/datasets",
    "versions": "/api/v1/namespaces/{lake}/datasets/tokens/versions",
    "jobs": "/api/v1/namespaces/{jobs}/jobs",
    "runs": "/api/v1/namespaces/{jobs}/jobs/write%2Ftokens/runs",
}


def _path(kind: str, w: World) -> str:
    return LIST_PATHS[kind].format(lake=quote(w.lake, safe=""), jobs=quote(w.jobs, safe=""))


@pytest.mark.parametrize("kind", sorted(LIST_PATHS))
def test_limit_zero_counts_and_a_negative_page_is_refused_by_name(
    http: httpx.Client, world: World, kind: str
) -> None:
    # The client sends `limit or 100`: limit=0, which Marquez takes, is asked directly.
    path = _path(kind, world)
    empty = http.get(path, params={"limit": 0})
    assert empty.status_code == 200, empty.text
    assert empty.json()["totalCount"] > 3 * CEILING
    assert empty.json()[kind] == []
    far = http.get(path, params={"limit": 10**30, "offset": 10**30})  # beyond Neo4j's integers
    assert (far.status_code, far.json()[kind]) == (200, [])
    for params, where in (({"limit": -1}, "limit"), ({"offset": -1}, "offset")):
        refused = http.get(path, params=params)
        assert refused.status_code == 422
        error = refused.json()["error"]
        assert error["code"] == "invalid_request" and f"query.{where}" in error["message"]


@pytest.mark.parametrize("limit", [None, 0, 1000, 100_000])
def test_search_serves_the_ceiling_with_every_match_counted(
    http: httpx.Client, world: World, limit: int | None
) -> None:
    served = min(CEILING, 10 if limit is None else limit)  # the client's default is 10
    chained = {chain(k) for k in range(HOPS + 1)}
    for sort in ("name", "UPDATE_AT", None):  # Marquez's enum spellings; None: by name
        params = {"q": "c%", "filter": "DATASET", "sort": sort, "limit": limit}
        answer = http.get(
            "/api/v1/search", params={k: v for k, v in params.items() if v is not None}
        )
        assert answer.status_code == 200, answer.text
        found = answer.json()
        assert found["totalCount"] == len(chained)  # every match, c00 … c12
        names = [r["name"] for r in found["results"]]
        assert len(names) == served and set(names) <= chained
        if sort != "UPDATE_AT":
            assert names == sorted(chained)[:served]
    blank = http.get("/api/v1/search", params={"q": "  "})
    assert (blank.status_code, blank.json()["error"]["code"]) == (400, "invalid_argument")


def _lineage(http: httpx.Client, node: str, depth: int | None) -> dict[str, int]:
    params: dict[str, Any] = {"nodeId": node}
    if depth is not None:
        params["depth"] = depth
    answer = http.get("/api/v1/lineage", params=params)
    assert answer.status_code == 200, answer.text
    return {n["id"]: n["data"]["depth"] for n in answer.json()["graph"]}


def test_lineage_walks_any_depth_within_the_ceiling(http: httpx.Client, world: World) -> None:
    end = f"dataset:{world.lake}:{chain(HOPS)}"
    at_ceiling = _lineage(http, end, MAX_DEPTH)
    assert max(at_ceiling.values()) == MAX_DEPTH
    for deeper in (None, MAX_DEPTH + 1, 20, 100_000):  # None: the default (5), above it too
        assert _lineage(http, end, deeper) == at_ceiling
    one = _lineage(http, end, 1)
    assert set(one) < set(at_ceiling)
    for shallow in (0, -5):  # Marquez: the start and its neighbours
        assert _lineage(http, end, shallow) == one


def _fields(answer: dict[str, Any]) -> set[str]:
    return {node["id"] for node in answer["graph"]}


def test_column_lineage_through_the_client_walks_within_the_ceiling(
    marquez: MarquezClient, world: World
) -> None:
    def column(k: int) -> str:
        return f"datasetField:{world.lake}:{chain(k)}:v"

    upstream = {column(k) for k in range(HOPS, HOPS - MAX_DEPTH - 1, -1)}
    # The client's defaults: depth=20, withDownstream=False; then far deeper asks.
    assert _fields(marquez.get_column_lineage_by_dataset_field(world.lake, chain(HOPS), "v")) == (
        upstream
    )
    for depth in (1000, 100_000):
        by_dataset = marquez.get_column_lineage_by_dataset(world.lake, chain(HOPS), depth=depth)
        assert _fields(by_dataset) == upstream
    one = marquez.get_column_lineage_by_dataset(world.lake, chain(HOPS), depth=1)
    assert _fields(one) == {column(HOPS), column(HOPS - 1)}
    middle = HOPS // 2
    both = marquez.get_column_lineage_by_dataset(
        world.lake, chain(middle), depth=100_000, with_downstream=True
    )
    assert _fields(both) == {column(k) for k in range(middle - MAX_DEPTH, middle + MAX_DEPTH + 1)}
    # A job: the columns its latest run wrote, walked the same way.
    assert _fields(marquez.get_column_lineage_by_job(world.jobs, step(HOPS))) == upstream
    with pytest.raises(APIError):
        marquez.get_column_lineage_by_job(world.jobs, "chain/nope")


def test_column_lineage_of_a_version_is_refused_with_the_reason(
    http: httpx.Client, world: World
) -> None:
    node = f"dataset:{world.lake}:{chain(HOPS)}#v1"
    answer = http.get("/api/v1/column-lineage", params={"nodeId": node, "withDownstream": True})
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["code"] == "invalid_argument" and "#<version>" in error["message"]
    missing = http.get("/api/v1/column-lineage", params={"nodeId": f"job:{world.jobs}:nope"})
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "not_found")


# ---- the shipped defaults ------------------------------------------------------------------

MANY = 1_600
"""More namespaces than three pages of the default ceiling (500) hold."""


def test_the_default_ceiling_serves_a_thousand_asked_with_the_true_total(
    neo4j_driver: Driver, project: str, access: Any
) -> None:
    spaces = [f"file://{project}-{i:04d}" for i in range(MANY)]
    jobs = f"airflow://{project}"
    events = [
        event(
            (jobs, f"load-{k}"),
            k // 100,
            outputs=[{"namespace": ns, "name": f"t{k + i}"} for i, ns in enumerate(part)],
        )
        for k in range(0, MANY, 100)
        if (part := spaces[k : k + 100])
    ]
    write(neo4j_driver, events, NamespaceMap(dict.fromkeys([jobs, *spaces], project)))
    reader = str(access.token(f"service:mqz-many-{project[-8:]}", grants={project: ("reader",)}))
    ceiling = QuerySettings().page_max_size
    with served(create_app(driver=neo4j_driver)) as url:
        marquez = MarquezClient(url, api_key=reader)
        default = marquez.list_namespaces()  # limit=100, offset=0
        assert (default["totalCount"], len(default["namespaces"])) == (MANY + 1, 100)
        seen: list[str] = []
        for offset in range(0, MANY + 1, ceiling):
            page = marquez.list_namespaces(limit=1000, offset=offset)  # refused with 400 before
            assert page["totalCount"] == MANY + 1
            assert len(page["namespaces"]) == min(ceiling, MANY + 1 - offset)
            seen += [n["name"] for n in page["namespaces"]]
        assert sorted(seen) == sorted([*spaces, jobs])
        huge = marquez.list_namespaces(limit=100_000)
        assert (huge["totalCount"], len(huge["namespaces"])) == (MANY + 1, ceiling)
