"""`best`, `env-diff` and `runs-with`: the reads of the `read.best_env_reads.BestEnvReads`
port, the pure answers of `best_model.py` and `env_diff.py`, and for `best` the diff recipe
between the previous best and the best."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from provgraph.query.errors import missing_sides
from provgraph.query.read.best_env_reads import BestEnvReads
from provgraph.query.read.convention_reads import ConventionReads
from provgraph.query.read.model import Scope
from provgraph.query.recipes.best_model import best_answer, model_of
from provgraph.query.recipes.env_diff import (
    env_diff_answer,
    lookup_keys,
    parse_spec,
    runs_with_answer,
)
from provgraph.query.recipes.metric_aliases import ProjectAliases, spellings
from provgraph.query.recipes.service import Recipes
from provgraph.schemas import parse_id

MAX_EVALUATIONS = 5000
"""Evaluations of one model read for `best` at most (the answer says when it was cut)."""
RUNS_WITH_DEFAULT, RUNS_WITH_MAX = 100, 1000
"""Runs listed by `runs-with` by default and at most."""


class BestAndEnvironments:
    """The model-choice and environment questions over a `BestEnvReads` (and, for `best`,
    the `diff` of `recipes`)."""

    def __init__(
        self,
        reads: BestEnvReads,
        recipes: Recipes,
        *,
        max_evaluations: int = MAX_EVALUATIONS,
        conventions: ConventionReads | None = None,
    ) -> None:
        self._reads = reads
        self._recipes = recipes
        self._max = max_evaluations
        self._conventions = conventions

    def best(
        self,
        model: str,
        metric: str,
        scope: Scope,
        *,
        project: str | None = None,
        datasets: Sequence[str] = (),
        suite: str | None = None,
        higher_is_better: bool = False,
    ) -> dict[str, Any] | None:
        """The best version of `model` by `metric` on one evaluation set, the previous best,
        the delta and the diff of their upstream chains; None when the model is missing."""
        model_ref = model_of(model, project)
        aliases = ProjectAliases(self._conventions, scope).of(parse_id(model_ref).project)
        metric, *others = spellings(metric, aliases)  # its canonical name, then its aliases
        rows = self._reads.evaluations(model_ref, metric, self._max + 1, scope)
        if rows is None:
            return None
        for alias in others:  # evaluations that recorded the metric under an alias
            seen = {row["evaluation"] for row in rows}
            more = self._reads.evaluations(model_ref, alias, self._max + 1, scope) or []
            rows = [*rows, *(row for row in more if row["evaluation"] not in seen)]
        if others:
            rows = sorted(rows, key=lambda row: (row["version"], row["evaluation"]))
        answer = best_answer(
            model_ref,
            metric,
            rows[: self._max],
            datasets=datasets,
            suite=suite,
            higher_is_better=higher_is_better,
        )
        answer["truncated"] = len(rows) > self._max
        best, previous = answer["best"], answer["previous_best"]
        answer["diff"] = (
            self._recipes.diff(previous["version"], best["version"], scope)
            if best is not None and previous is not None
            else None
        )
        return answer

    def env_diff(self, a: str, b: str, scope: Scope) -> dict[str, Any]:
        """The changes from snapshot `a` to snapshot `b`, and along the BASED_ON chain
        between them; `not_found` naming the side(s) missing."""
        found = self._reads.environment_pair(a, b, scope)
        left, right = found["a"], found["b"]
        if left is None or right is None:
            raise missing_sides({"a": (a, left), "b": (b, right)})
        paths = found["paths"]
        return env_diff_answer(left, right, paths[0] if paths else None)

    def runs_with(
        self,
        package: str,
        version: str | None,
        scope: Scope,
        *,
        project: str | None = None,
        limit: int = 100,
    ) -> dict[str, Any]:
        """The runs whose environment recorded `package` (at `version`, or the version of a
        `package==version` spec), oldest first."""
        name, pinned = parse_spec(package)
        wanted = version if version is not None else pinned
        rows = self._reads.runs_with(lookup_keys(name), wanted, project, limit + 1, scope)
        return runs_with_answer(name, wanted, project, rows, limit)
