"""`dossier(id)`: the model dossier of a model version, in every form a page needs.

`html` is the page the CLI writes and the PDF is printed from; `markdown` the same layout as
Markdown; `document` the data both are rendered from (`recipes/dossier.py`).
"""

from __future__ import annotations

from typing import Any

import strawberry
from strawberry.scalars import JSON

from provgraph.query.graphql.context import Info
from provgraph.query.graphql.fields import field
from provgraph.query.recipes.dossier import gap_lines
from provgraph.query.recipes.dossier_render import render_html, render_markdown


@strawberry.type(description="The identity card of a model version, one document.")
class Dossier:
    id: strawberry.ID
    title: str
    data: strawberry.Private[dict[str, Any]]

    @field(
        description="Every section as data: identity, training, environments, data, "
        "evaluations, deployments, accelerator_hours, gaps."
    )
    def document(self) -> JSON:
        return JSON(self.data)

    @field(
        description="A complete, self-contained HTML page (inline CSS with print rules, no "
        "script): the page the CLI writes and the PDF is printed from."
    )
    def html(self) -> str:
        return render_html(self.data)

    @field(description="The same document as Markdown.")
    def markdown(self) -> str:
        return render_markdown(self.data)

    @field(description="What the record is missing, one line each: `<where>: <what>`.")
    def gaps(self) -> list[str]:
        return gap_lines(self.data)

    @classmethod
    def of(cls, document: dict[str, Any]) -> Dossier:
        return cls(id=strawberry.ID(document["id"]), title=document["title"], data=document)


def _dossier(info: Info, id: strawberry.ID) -> Dossier | None:
    ctx = info.context
    found = ctx.services.dossiers().dossier(str(id), ctx.scope)
    return Dossier.of(found) if found is not None else None


def dossier_field() -> Any:
    """The root field `dossier(id)`; null when the version is absent or unreadable."""
    return field(
        description="The dossier of a model version: identity, training chain, environment, "
        "data, evaluations, deployments, accelerator-hours and gaps; null when the version is "
        "absent or the caller may not read it."
    )(_dossier)
