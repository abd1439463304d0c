"""Pure part of `best`: the best model version by one metric on one evaluation set.

An *evaluation set* is what makes two metric values comparable: the evaluation dataset
versions an evaluation used (all of them, as a set), its suite and the suite's version. Values
from two sets are never compared: when the caller did not say which set, and the metric was
recorded on several, the answer lists the sets instead of picking one.

Within the chosen set each model version counts with its latest evaluation (a re-evaluation
replaces the earlier value; the best of several tries would be cherry-picking). The best is the
version with the best value, the earliest registered on a tie (it reached the value first). The
*previous best* is the best among the versions registered before it: the version it displaced.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from provgraph.query.errors import InvalidArgumentError
from provgraph.query.recipes.diff_render import diff_lines
from provgraph.query.recipes.plain_table import table
from provgraph.schemas.ids import model_id


@dataclass(frozen=True, order=True)
class EvalSet:
    """What an evaluation measured on: its dataset versions, suite and suite version."""

    datasets: tuple[str, ...]
    suite: str | None
    suite_version: str | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "datasets": list(self.datasets),
            "suite": self.suite,
            "suite_version": self.suite_version,
        }

    def label(self) -> str:
        data = ", ".join(self.datasets) or "(no dataset recorded)"
        suite = self.suite or "?"
        return f"{data} [{suite}{'@' + self.suite_version if self.suite_version else ''}]"


@dataclass(frozen=True)
class Scored:
    """One model version's value of the metric on one evaluation set (its latest evaluation)."""

    version: str
    label: str | None
    status: str | None
    registered_at: str
    evaluation: str
    evaluated_at: str
    value: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "label": self.label,
            "status": self.status,
            "registered_at": self.registered_at,
            "evaluation": self.evaluation,
            "evaluated_at": self.evaluated_at,
            "value": self.value,
        }


def is_number(value: Any) -> bool:
    """An int or a float, not a bool."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def eval_set(row: Mapping[str, Any]) -> EvalSet:
    """The evaluation set of one evaluation row."""
    return EvalSet(
        datasets=tuple(sorted(set(row.get("datasets") or ()))),
        suite=row.get("suite"),
        suite_version=row.get("suite_version"),
    )


def group_by_set(rows: Iterable[Mapping[str, Any]]) -> dict[EvalSet, list[Mapping[str, Any]]]:
    """Evaluation rows with a numeric value, by evaluation set (sets in sorted order)."""
    groups: dict[EvalSet, list[Mapping[str, Any]]] = {}
    for row in rows:
        if is_number(row.get("value")):
            groups.setdefault(eval_set(row), []).append(row)
    return dict(sorted(groups.items()))


def matching_sets(
    sets: Iterable[EvalSet], datasets: Sequence[str] = (), suite: str | None = None
) -> list[EvalSet]:
    """The sets the caller named: exactly these dataset versions (when given), this suite."""
    wanted = tuple(sorted(set(datasets)))
    return [
        s
        for s in sets
        if (not wanted or s.datasets == wanted) and (suite is None or s.suite == suite)
    ]


def latest_per_version(rows: Iterable[Mapping[str, Any]]) -> list[Scored]:
    """Each version's latest evaluation in the set (by evaluation time, then id)."""
    latest: dict[str, Mapping[str, Any]] = {}
    for row in rows:
        key = (str(row.get("evaluated_at") or ""), str(row["evaluation"]))
        seen = latest.get(row["version"])
        if seen is None or key > (str(seen.get("evaluated_at") or ""), str(seen["evaluation"])):
            latest[row["version"]] = row
    return [_scored(row) for _, row in sorted(latest.items())]


def _scored(row: Mapping[str, Any]) -> Scored:
    return Scored(
        version=str(row["version"]),
        label=row.get("label"),
        status=row.get("status"),
        registered_at=str(row.get("registered_at") or ""),
        evaluation=str(row["evaluation"]),
        evaluated_at=str(row.get("evaluated_at") or ""),
        value=float(row["value"]),
    )


def ranking(scored: Iterable[Scored], higher_is_better: bool) -> list[Scored]:
    """Best first; on equal values the earlier registered version first."""
    sign = -1.0 if higher_is_better else 1.0
    return sorted(scored, key=lambda s: (sign * s.value, s.registered_at, s.version))


def best_and_previous(
    scored: Sequence[Scored], higher_is_better: bool
) -> tuple[Scored | None, Scored | None]:
    """The best version and the best of those registered before it (None when none was)."""
    ranked = ranking(scored, higher_is_better)
    if not ranked:
        return None, None
    best = ranked[0]
    earlier = [
        s for s in ranked if (s.registered_at, s.version) < (best.registered_at, best.version)
    ]
    return best, (earlier[0] if earlier else None)


def best_answer(
    model: str,
    metric: str,
    rows: Iterable[Mapping[str, Any]],
    *,
    datasets: Sequence[str] = (),
    suite: str | None = None,
    higher_is_better: bool = False,
) -> dict[str, Any]:
    """The answer without the diff: the set, the best, the previous best, the delta, the
    ranking; or the evaluation sets to choose from, and why no best was chosen."""
    groups = group_by_set(rows)
    chosen = matching_sets(groups, datasets, suite)
    answer: dict[str, Any] = {
        "model": model,
        "metric": metric,
        "higher_is_better": higher_is_better,
        "evaluation_sets": [_set_summary(s, groups[s]) for s in groups],
        "evaluation_set": None,
        "ambiguous": len(chosen) > 1,
        "best": None,
        "previous_best": None,
        "delta": None,
        "ranking": [],
        "message": None,
    }
    if len(chosen) != 1:
        answer["message"] = _why_none(model, metric, groups, chosen, datasets, suite)
        return answer
    scored = latest_per_version(groups[chosen[0]])
    best, previous = best_and_previous(scored, higher_is_better)
    answer.update(
        evaluation_set=chosen[0].as_dict(),
        best=best.as_dict() if best else None,
        previous_best=previous.as_dict() if previous else None,
        delta=(best.value - previous.value) if best and previous else None,
        ranking=[s.as_dict() for s in ranking(scored, higher_is_better)],
    )
    if best is not None and previous is None:
        answer["message"] = "the best is the first version evaluated on this set"
    return answer


def _set_summary(s: EvalSet, rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    return {**s.as_dict(), "versions": len({row["version"] for row in rows})}


def _why_none(
    model: str,
    metric: str,
    groups: Mapping[EvalSet, Sequence[Mapping[str, Any]]],
    chosen: Sequence[EvalSet],
    datasets: Sequence[str],
    suite: str | None,
) -> str:
    if not groups:
        return f"no evaluation of {model} records the metric {metric!r} as a number"
    if chosen:
        return (
            f"{metric!r} was recorded on {len(chosen)} evaluation sets: values of different "
            "sets are not compared; choose one with --dataset (and --suite)"
        )
    named = ", ".join([*sorted(set(datasets)), *([f"suite {suite}"] if suite else [])])
    return f"no evaluation set is exactly {named}; the sets that record {metric!r} are listed"


# ---- the terminal answer ------------------------------------------------------------------


def render_best(answer: Mapping[str, Any]) -> str:
    """The answer as text: the set, best and previous best with the delta, the ranking, the
    changes between the two; or the evaluation sets to choose from."""
    lines = [f"model {answer['model']}, metric {answer['metric']} ({_direction(answer)})"]
    chosen = answer["evaluation_set"]
    if chosen is None:
        lines.append(str(answer["message"]))
        if answer["evaluation_sets"]:
            lines += ["", _sets_table(answer["evaluation_sets"])]
        return "\n".join(lines)
    lines.append(f"evaluation set: {_set_label(chosen)}")
    best, previous = answer["best"], answer["previous_best"]
    lines.append(f"best:          {best['version']} = {best['value']:.6g}")
    if previous is not None:
        lines.append(f"previous best: {previous['version']} = {previous['value']:.6g}")
        lines.append(f"delta:         {answer['delta']:+.6g}")
    if answer["message"]:
        lines.append(str(answer["message"]))
    rows = [
        [i + 1, s["version"], s["value"], s["status"], s["registered_at"], s["evaluation"]]
        for i, s in enumerate(answer["ranking"])
    ]
    header = ["rank", "version", answer["metric"], "status", "registered", "evaluation"]
    lines += ["", table(header, rows)]
    diff = answer.get("diff")
    if diff is not None:
        lines += ["", "what changed (previous best -> best):", *diff_lines(diff)]
    return "\n".join(lines)


def _direction(answer: Mapping[str, Any]) -> str:
    return "higher is better" if answer["higher_is_better"] else "lower is better"


def _set_label(s: Mapping[str, Any]) -> str:
    return EvalSet(tuple(s["datasets"]), s["suite"], s["suite_version"]).label()


def _sets_table(sets: Sequence[Mapping[str, Any]]) -> str:
    rows = [
        [", ".join(s["datasets"]) or "-", s["suite"], s["suite_version"], s["versions"]]
        for s in sets
    ]
    return table(["datasets", "suite", "suite version", "versions"], rows)


def model_of(ref: str, project: str | None) -> str:
    """The model id a `best` question is about: a model id, the model of a model version id,
    or a name within `project`."""
    if ref.startswith("model:"):
        return ref.split("@", 1)[0]
    if project is None:
        raise InvalidArgumentError(
            f"{ref!r} is a name: give the model id (model:<project>/<name>) or a project",
            argument="model",
        )
    try:
        return model_id(project, ref)
    except ValueError as exc:
        raise InvalidArgumentError(str(exc), argument="model") from exc
