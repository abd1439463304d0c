"""Which provgraph project owns an OpenLineage namespace (PROVGRAPH_OPENLINEAGE_NAMESPACE_PROJECTS
in `IngestSettings`, else a slug of the namespace)."""

from __future__ import annotations

from collections.abc import Mapping

from provgraph.schemas.events.openlineage import namespace_slug


class NamespaceMap:
    """OpenLineage namespace -> provgraph project: the configured entry, else a slug."""

    def __init__(self, projects: Mapping[str, str] | None = None) -> None:
        self._projects = dict(projects or {})

    def project(self, namespace: str) -> str:
        """The project that owns jobs and datasets of `namespace`."""
        return self._projects.get(namespace) or namespace_slug(namespace)
