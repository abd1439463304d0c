"""Names holding `/` and `:` in Marquez paths: one encoded segment each (pure routing)."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from fastapi import APIRouter, FastAPI
from fastapi.testclient import TestClient

from provgraph.query.http.marquez.paths import EncodedSegmentRoute, keep_encoded_slashes


def _client() -> TestClient:
    router = APIRouter(prefix="/api/v1", route_class=EncodedSegmentRoute)

    @router.get("/namespaces/{namespace}/datasets/{dataset}")
    def dataset(namespace: str, dataset: str) -> dict[str, str]:
        return {"route": "dataset", "namespace": namespace, "dataset": dataset}

    @router.get("/namespaces/{namespace}/datasets/{dataset}/versions")
    def versions(namespace: str, dataset: str) -> dict[str, str]:
        return {"route": "versions", "namespace": namespace, "dataset": dataset}

    app = FastAPI()
    app.include_router(router)
    return TestClient(app)


def _segment(text: str) -> str:
    return quote(text, safe="")  # as marquez-python and Marquez's web UI send a name


@pytest.mark.parametrize(
    ("namespace", "name"),
    [
        ("s3://lake", "tokens/abc:2"),
        ("postgres://db:5432", "public.orders"),
        ("demo", "x/versions"),  # a name that looks like the next route's suffix
        ("ns", "100%/é"),
        ("ns", "%2F literally"),
    ],
)
def test_encoded_names_reach_their_route_decoded(namespace: str, name: str) -> None:
    client = _client()
    path = f"/api/v1/namespaces/{_segment(namespace)}/datasets/{_segment(name)}"
    assert client.get(path).json() == {"route": "dataset", "namespace": namespace, "dataset": name}
    assert client.get(f"{path}/versions").json() == {
        "route": "versions",
        "namespace": namespace,
        "dataset": name,
    }


def test_an_unencoded_slash_separates_segments() -> None:
    assert _client().get("/api/v1/namespaces/a/b/datasets/c").status_code == 404


def test_only_encoded_slashes_and_percents_stay_encoded() -> None:
    assert keep_encoded_slashes("/a%3Ab%2Fc%252F%C3%A9") == "/a:b%2Fc%252Fé"
