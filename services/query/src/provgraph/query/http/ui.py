"""The web explorer at `/ui`: the built files of web/ (`make ui` writes them to web/dist).

The files are public: they hold no data, and every answer the explorer shows comes from
`/graphql` with the user's token. `/ui` leads to `/ui/`, which is `index.html`; the hashed
files under `/ui/assets/` are cached for a year (a new build has new names), the pages are
revalidated at every load (`no-cache`), so that a new build is seen at once.

`ui_dir` (PROVGRAPH_UI_DIR) unset, or holding no `index.html`: every `/ui` path answers
`ui_not_built` (404) saying how to build it. It is looked at on each request, so a build made
while the service runs is served without a restart.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from starlette.responses import FileResponse, RedirectResponse, Response

from provgraph.core.errors import NotFoundError
from provgraph.query.http.deps import Context

router = APIRouter(tags=["explorer"])

INDEX = "index.html"
ASSETS = "assets/"
# Vite names every asset by its content hash: a URL never changes meaning.
ASSET_CACHE = "public, max-age=31536000, immutable"
PAGE_CACHE = "no-cache"
BUILD_HINT = "build it with `make ui` (cd web && npm ci && npm run build)"


class UiNotBuiltError(NotFoundError):
    """The explorer's files are not there: PROVGRAPH_UI_DIR unset, or not built."""

    code = "ui_not_built"


def built_dir(ui_dir: Path | None) -> Path:
    """`ui_dir`, resolved, when it holds a built explorer; else `ui_not_built`."""
    if ui_dir is not None and (ui_dir / INDEX).is_file():
        return ui_dir.resolve()
    where = (
        "PROVGRAPH_UI_DIR is not set"
        if ui_dir is None
        else f"{ui_dir} holds no {INDEX} (PROVGRAPH_UI_DIR)"
    )
    raise UiNotBuiltError(
        f"The web explorer is not built: {where}. From the checkout, {BUILD_HINT}, and serve "
        "web/dist with PROVGRAPH_UI_DIR (`provgraph services up` does when it exists).",
        ui_dir=str(ui_dir) if ui_dir is not None else None,
        build="make ui",
    )


def _file(root: Path, path: str) -> Path:
    """The file `path` names under `root`; `not_found` for anything else (`..` included)."""
    target = (root / (path or INDEX)).resolve()
    if not target.is_relative_to(root) or not target.is_file():
        raise NotFoundError(f"No file {path!r} in the web explorer.", path=path)
    return target


@router.api_route("/ui", methods=["GET", "HEAD"], include_in_schema=False)
def explorer_root(context: Context) -> Response:
    """`/ui` is the folder `/ui/` (so that relative links resolve under it)."""
    built_dir(context.settings.ui_dir)
    return RedirectResponse("/ui/", status_code=307)


@router.api_route("/ui/{path:path}", methods=["GET", "HEAD"], include_in_schema=False)
def explorer_file(path: str, context: Context) -> Response:
    """A file of the built explorer: `index.html` for `/ui/`."""
    target = _file(built_dir(context.settings.ui_dir), path)
    cache = ASSET_CACHE if path.startswith(ASSETS) else PAGE_CACHE
    headers = {"Cache-Control": cache, "X-Content-Type-Options": "nosniff"}
    return FileResponse(target, headers=headers)
