"""Project policy events: rules a project's admins choose for the project's own records."""

from __future__ import annotations

from typing import Literal

from provgraph.schemas.envelope import Event, Payload, Text
from provgraph.schemas.ids import project_id


class ProjectPolicySetPayload(Payload):
    """The project's policy from now on (log order): every rule is restated, none is kept
    from an earlier event. Subject: ``project:<project>`` (the event's own project).

    `require_conclusion`: a ``run.completed`` without a conclusion is refused (ingest 422,
    dead-lettered by the projector with reason ``conclusion_required``).
    """

    require_conclusion: bool
    reason: Text | None = None

    def subject(self, project: str) -> str:
        return project_id(project)


class ProjectPolicySet(Event):
    """``project.policy.set`` v1."""

    event_type: Literal["project.policy.set"] = "project.policy.set"
    schema_version: Literal[1] = 1
    payload: ProjectPolicySetPayload
