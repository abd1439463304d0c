"""`GET /v1/dossier/{id}?format=html|markdown|json|pdf`: the model dossier of a model version.

The same document as `provgraph dossier` and GraphQL's `dossier(id)`, in the caller's scope: a
version the token may not read is `not_found` (404), like one that does not exist. `pdf` is
the HTML printed by headless Chromium, answered as a download.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request, Response
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse

from provgraph.authz.web import authenticate
from provgraph.core.errors import NotFoundError
from provgraph.query.dossier_pdf import print_pdf
from provgraph.query.http.deps import Context, get_services, scope_for
from provgraph.query.ids import checked_id
from provgraph.query.recipes.dossier_render import render_html, render_markdown

router = APIRouter(prefix="/v1", tags=["dossier"], dependencies=[Depends(authenticate)])

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


class Format(StrEnum):
    html = "html"
    markdown = "markdown"
    json = "json"
    pdf = "pdf"


def download_name(name: object, version: object) -> str:
    """`dossier-<name>-<version>.pdf`, with only file-name-safe characters."""
    parts = (_UNSAFE.sub("_", str(part)) for part in (name, version))
    return f"dossier-{'-'.join(parts)}.pdf"


@router.get("/dossier/{node_id:path}")
def get_dossier(
    request: Request,
    context: Context,
    node_id: str,
    format: Annotated[Format, Query(description="html (default), markdown, json or pdf")] = (
        Format.html
    ),
) -> Response:
    """The dossier of the model version `node_id`, in `format`."""
    checked_id("id", node_id)
    document = get_services(context).dossiers().dossier(node_id, scope_for(request))
    if document is None:
        raise NotFoundError(f"Not found: {node_id}.", node_id=node_id)
    if format is Format.json:
        return JSONResponse(document)
    if format is Format.markdown:
        return PlainTextResponse(render_markdown(document), media_type="text/markdown")
    page = render_html(document)
    if format is Format.html:
        return HTMLResponse(page)
    who = document["identity"]
    name = download_name(who["name"], who["version"])
    return Response(
        print_pdf(page, context.settings),
        media_type="application/pdf",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )
