"""`MarquezReads` in memory, knowing no dataset and no job (the GraphQL tests ask none)."""

from __future__ import annotations

from collections.abc import Sequence

from provgraph.query.read.model import (
    DatasetDetail,
    JobDetail,
    RunDetail,
    Scope,
    Slice,
    VersionDetail,
)

EMPTY = Slice(items=(), total=0)


class FakeMarquezReads:
    """An empty Marquez world: every list is empty, every look-up finds nothing."""

    def resolve_marquez_id(self, marquez_id: str, scope: Scope) -> str | None:
        return None

    def namespaces(
        self, scope: Scope, *, name: str | None = None, limit: int = 100, offset: int = 0
    ) -> Slice:
        return EMPTY

    def datasets(self, namespace: str, scope: Scope, *, limit: int = 100, offset: int = 0) -> Slice:
        return EMPTY

    def dataset(self, namespace: str, name: str, scope: Scope) -> DatasetDetail | None:
        return None

    def dataset_versions(
        self, namespace: str, name: str, scope: Scope, *, limit: int = 100, offset: int = 0
    ) -> Slice | None:
        return None

    def dataset_version(
        self, namespace: str, name: str, version: str, scope: Scope
    ) -> VersionDetail | None:
        return None

    def jobs(self, namespace: str, scope: Scope, *, limit: int = 100, offset: int = 0) -> Slice:
        return EMPTY

    def job(self, namespace: str, name: str, scope: Scope) -> JobDetail | None:
        return None

    def job_runs(
        self, namespace: str, name: str, scope: Scope, *, limit: int = 100, offset: int = 0
    ) -> Slice | None:
        return None

    def run(self, run_id: str, scope: Scope) -> RunDetail | None:
        return None

    def marquez_search(
        self,
        pattern: str,
        scope: Scope,
        *,
        kinds: Sequence[str] = (),
        by_update: bool = False,
        limit: int = 10,
    ) -> Slice:
        return EMPTY
