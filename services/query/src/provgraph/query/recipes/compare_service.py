"""`compare`: the runs of an experiment (or named runs) side by side, each checked against the
run it should be compared with. One bounded read (the `read.compare_reads.CompareReads` port),
then the pure comparison (`recipes/comparing.py`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from provgraph.core.errors import NotFoundError
from provgraph.query.errors import InvalidArgumentError
from provgraph.query.read.compare_reads import ComparedRuns, CompareReads
from provgraph.query.read.convention_reads import ConventionReads
from provgraph.query.read.model import Scope
from provgraph.query.read.readers import Readers
from provgraph.query.recipes.compare_answer import compare_runs
from provgraph.query.recipes.effects import BY_VALUE, effects
from provgraph.query.recipes.metric_aliases import (
    ProjectAliases,
    canonical_name,
    canonical_records,
)
from provgraph.query.settings import QuerySettings
from provgraph.schemas import IdKind, InvalidIdError, parse_id


def _expect(argument: str, value: str, kind: IdKind) -> str:
    """`value` when it is an id of `kind`, else `invalid_argument` naming the argument."""
    try:
        found = parse_id(value).kind
    except InvalidIdError as exc:
        raise InvalidArgumentError(f"{argument}: {exc}", argument=argument) from None
    if found is not kind:
        raise InvalidArgumentError(
            f"{argument} takes a {kind} id, not a {found} id ({value})", argument=argument
        )
    return value


class Comparisons:
    """`compare` and `effects` over a `CompareReads`; at most `max_runs` runs in one table,
    and the latest `effects_max_runs` runs of a project in one effects table. With
    `conventions`, each run's metrics are read under the canonical names its project declared
    (`recipes/metric_aliases.py`)."""

    def __init__(
        self,
        reads: CompareReads,
        max_runs: int,
        effects_max_runs: int = 5000,
        conventions: ConventionReads | None = None,
    ) -> None:
        self._reads = reads
        self._max_runs = max_runs
        self._effects_max_runs = effects_max_runs
        self._conventions = conventions

    def compare(
        self,
        scope: Scope,
        *,
        experiment: str | None = None,
        runs: Sequence[str] = (),
        everything: bool = False,
        baseline: str | None = None,
        sort_by: str | None = None,
    ) -> dict[str, Any]:
        """The table; `not_found` names what was asked for and not found (or not readable)."""
        ids = self._arguments(experiment, runs, baseline)
        found = self._reads.compared_runs(experiment, ids, self._max_runs + 1, scope)
        if experiment is not None and not found.experiment_found:
            raise NotFoundError(f"Not found: {experiment}.", missing={"experiment": experiment})
        records, truncated = _trimmed(found, self._max_runs, ids)
        records = canonical_records(records, ProjectAliases(self._conventions, scope).of)
        have = {r["run"]["id"] for r in records}
        absent = [i for i in ids if i not in have]
        if absent:
            raise NotFoundError(f"Not found: {', '.join(absent)}.", missing={"runs": absent})
        return compare_runs(
            records,
            experiment=experiment,
            everything=everything,
            baseline=baseline,
            sort_by=sort_by,
            truncated=truncated,
        )

    def effects(
        self,
        scope: Scope,
        *,
        project: str,
        metric: str,
        since: str | None = None,
        group_by: str = BY_VALUE,
    ) -> dict[str, Any]:
        """The effects table of `project` (`recipes/effects.py`): `not_found` when the caller
        reads no run of it in an experiment; `since` is a stored time."""
        if not project:
            raise InvalidArgumentError("project: give a project", argument="project")
        limit = self._effects_max_runs
        records = self._reads.project_runs(project, limit + 1, scope)
        if not records:
            raise NotFoundError(
                f"Not found: no run in an experiment of project {project}.",
                missing={"project": project},
            )
        aliases = ProjectAliases(self._conventions, scope)
        return effects(
            canonical_records(records[:limit], aliases.of),
            project=project,
            metric=canonical_name(metric, aliases.of(project)),
            since=since,
            group_by=group_by,
            truncated=len(records) > limit,
        )

    def _arguments(
        self, experiment: str | None, runs: Sequence[str], baseline: str | None
    ) -> list[str]:
        """The run ids to read by id (the named runs and the baseline), checked."""
        if (experiment is None) == (not runs):
            raise InvalidArgumentError("give an experiment or runs (one of them)")
        if experiment is not None:
            _expect("experiment", experiment, IdKind.EXPERIMENT)
        if len(runs) > self._max_runs:
            raise InvalidArgumentError(
                f"at most {self._max_runs} runs in one comparison", runs=len(runs)
            )
        ids = [_expect("runs", r, IdKind.RUN) for r in dict.fromkeys(runs)]
        if baseline is not None and baseline not in ids:
            ids.append(_expect("baseline", baseline, IdKind.RUN))
        return ids


def _trimmed(
    found: ComparedRuns, max_runs: int, named: Sequence[str]
) -> tuple[list[dict[str, Any]], bool]:
    """The records without the experiment's lowest-numbered run when one more than
    `max_runs` was read (the read asks for one more to know), unless it was named."""
    if found.members <= max_runs:
        return found.runs, False
    last = found.members - 1
    if found.runs[last]["run"]["id"] in named:
        return found.runs, True
    return found.runs[:last] + found.runs[found.members :], True


def comparisons(readers: Readers, settings: QuerySettings) -> Comparisons:
    """The `Comparisons` of a service or a command: its bounds from `settings`, the metric
    aliases of each project honoured."""
    return Comparisons(
        readers.compare,
        settings.page_max_size,
        settings.effects_max_runs,
        readers.conventions,
    )
