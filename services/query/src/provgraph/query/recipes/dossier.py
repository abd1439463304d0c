"""The model dossier: one document about one model version, for people outside the team.

A view over the records the other recipes read, never a second way to compute them: the
training chain, environments and data tree are the reproduce recipe's
(`recipes.service.Recipes.reproduce`), the deployments' feedback is `ModelVersion.feedback`'s
read, the accelerator-hours are the digest's computation; what only the dossier shows
(experiments, lifecycle events, evaluations, validation, quality gates and mix) is read through
`read.dossier_reads.DossierReads`. The sections come in a fixed order (`SECTIONS`); what the
record is missing is named under `gaps`.
"""

from __future__ import annotations

from typing import Any

from provgraph.query.errors import InvalidArgumentError
from provgraph.query.read.dossier_reads import DossierReads
from provgraph.query.read.feedback_reads import FeedbackReads
from provgraph.query.read.model import Scope
from provgraph.query.recipes import dossier_release as release
from provgraph.query.recipes import dossier_sections as sections
from provgraph.query.recipes.service import Recipes
from provgraph.schemas import IdKind, InvalidIdError, parse_id

SECTIONS = (
    "identity",
    "training",
    "environments",
    "data",
    "evaluations",
    "deployments",
    "accelerator_hours",
    "gaps",
)
"""The sections of a dossier, in the order every format shows them."""
FEEDBACK_READ = 200
"""The newest feedback events of the version read for its deployments' latest."""


def _checked(version_id: str) -> None:
    try:
        kind = parse_id(version_id).kind
    except InvalidIdError as exc:
        raise InvalidArgumentError(f"id: {exc}", argument="id") from None
    if kind is not IdKind.MODEL_VERSION:
        raise InvalidArgumentError(
            f"a dossier is of a model version, not of a {kind} id", argument="id", id=version_id
        )


def title(document: dict[str, Any]) -> str:
    """`Model dossier: chat-7b 4.0.0` (the version id is in its identity)."""
    who = document["identity"]
    return f"Model dossier: {who['name']} {who['version']}"


def gap_lines(document: dict[str, Any]) -> list[str]:
    """Each gap as one line: `<where>: <what is missing>`."""
    return [f"{g['at'] or 'record'}: {g['issue']}" for g in document["gaps"]]


class Dossiers:
    """The dossier of a model version over the reproduce recipe, `DossierReads` and
    `FeedbackReads`, in the caller's scope."""

    def __init__(self, recipes: Recipes, reads: DossierReads, feedback: FeedbackReads) -> None:
        self._recipes = recipes
        self._reads = reads
        self._feedback = feedback

    def dossier(self, version_id: str, scope: Scope) -> dict[str, Any] | None:
        """The dossier of a model version; None when it is missing (or unreadable)."""
        _checked(version_id)
        found = self._reads.model_version(version_id, scope)
        recipe = self._recipes.reproduce(version_id, scope) if found is not None else None
        if found is None or recipe is None:
            return None
        runs = [view["id"] for _, _, view in sections.chain_runs(recipe.get("run"))]
        records = dict(zip(runs, self._reads.runs(runs, scope), strict=True))
        datasets = list(recipe.get("datasets") or ())
        extra = dict(zip(datasets, self._reads.dataset_versions(datasets, scope), strict=True))
        [feedback] = self._feedback.feedback([version_id], scope, first=FEEDBACK_READ)
        gaps = sections.Gaps(recipe.get("gaps") or ())
        train = sections.training(recipe, records, gaps)
        document: dict[str, Any] = {
            "id": version_id,
            "identity": sections.identity(found, gaps),
            "training": {k: v for k, v in train.items() if k != "accelerator_hours"},
            "environments": sections.environments(recipe),
            "data": sections.data(recipe, extra, gaps),
            "evaluations": release.evaluations(found, gaps),
            "deployments": release.deployments(found, feedback),
            "accelerator_hours": train["accelerator_hours"],
        }
        document["gaps"] = gaps.items
        document["title"] = title(document)
        return document
