"""Settings of the OpenLineage endpoint: the namespace -> project map (PROVGRAPH_OPENLINEAGE_*)."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from provgraph.schemas.events.openlineage import namespace_slug


class NamespaceMap:
    """OpenLineage namespace -> provgraph project: the configured entry, else a slug."""

    def __init__(self, projects: Mapping[str, str] | None = None) -> None:
        self._projects = dict(projects or {})

    def project(self, namespace: str) -> str:
        """The project that owns jobs and datasets of `namespace`."""
        return self._projects.get(namespace) or namespace_slug(namespace)


class OpenLineageSettings(BaseSettings):
    """`PROVGRAPH_OPENLINEAGE_NAMESPACE_PROJECTS` is a JSON object mapping an OpenLineage
    namespace (of a job or a dataset) to a provgraph project, e.g.
    ``{"s3://corpora": "llm-pretrain", "airflow-prod": "llm-pretrain"}``. Unmapped namespaces
    belong to the project named by a slug of the namespace."""

    model_config = SettingsConfigDict(env_prefix="PROVGRAPH_OPENLINEAGE_", extra="ignore")

    namespace_projects: dict[str, str] = Field(default_factory=dict)

    def namespace_map(self) -> NamespaceMap:
        """The map the wrapper uses."""
        return NamespaceMap(self.namespace_projects)
