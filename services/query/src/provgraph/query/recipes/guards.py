"""The guards a project's conventions set (`provgraph.schemas.conventions`), as reports:

- `lint-metrics`: metric names that differ only in spelling (`metric_key`), grouped, with the
  aliases already declared and the canonical name to declare (the most used one);
- `lint-names`: the records that break their kind's naming rule, each with why and the name
  the rule builds from its recorded facts;
- `collisions`: outputs out of place (outside the storage roots, or a personal path) and URIs
  written by runs of more than one experiment (a run outside every experiment is its own job).

`Guards` reads through `read.convention_reads.ConventionReads`; each report reads at most
`max_records` records of a kind (the oldest first) and says when it stopped there.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from provgraph.core.errors import NotFoundError
from provgraph.query.read.convention_reads import ConventionReads, Named, Output
from provgraph.query.read.model import Scope
from provgraph.schemas.conventions import (
    Conventions,
    NamedKind,
    job_of,
    metric_key,
    name_problem,
    place_problem,
    render,
)


def metric_groups(names: Mapping[str, int], aliases: Mapping[str, str]) -> list[dict[str, Any]]:
    """Names sharing a `metric_key` (two or more), each group with its names (records using
    each, the canonical name a declared alias maps it to), the canonical name (declared, else
    the most used, then the shortest, then the first), and whether every other name of the
    group is declared an alias of it."""
    by_key: dict[str, list[str]] = defaultdict(list)
    for name in sorted(names.keys() | aliases.keys() | set(aliases.values())):
        by_key[metric_key(name)].append(name)
    groups = []
    for key, members in sorted(by_key.items()):
        if len(members) < 2:
            continue
        declared = sorted({aliases[n] for n in members if n in aliases})
        canonical = declared[0] if len(declared) == 1 else _most_used(members, names)
        others = [n for n in members if n != canonical]
        groups.append(
            {
                "key": key,
                "canonical": canonical,
                "settled": all(aliases.get(n) == canonical for n in others),
                "names": [
                    {"name": n, "records": names.get(n, 0), "alias_of": aliases.get(n)}
                    for n in members
                ],
                "undeclared": [n for n in others if aliases.get(n) != canonical],
            }
        )
    return groups


def _most_used(members: Sequence[str], names: Mapping[str, int]) -> str:
    return min(members, key=lambda n: (-names.get(n, 0), len(n), n))


def name_breaks(template: str, records: Sequence[Named]) -> list[dict[str, Any]]:
    """The records whose name breaks `template`: why, and the name it builds (None when it
    cannot: a ``*``, or a fact the record lacks)."""
    found = []
    for record in records:
        problem = name_problem(template, record.name, record.facts)
        if problem is not None:
            suggestion = render(template, record.facts)
            found.append(
                {
                    "id": record.id,
                    "name": record.name,
                    "problem": problem,
                    "suggestion": suggestion,
                }
            )
    return found


def out_of_place(outputs: Sequence[Output], roots: Sequence[str]) -> list[dict[str, Any]]:
    """The outputs `place_problem` refuses, with why."""
    found = []
    for output in outputs:
        problem = place_problem(output.uri, roots)
        if problem is not None:
            found.append({**_writer(output), "uri": output.uri, "problem": problem})
    return found


def shared_uris(outputs: Sequence[Output]) -> list[dict[str, Any]]:
    """URIs written by more than one job, each with its writers (oldest first)."""
    by_uri: dict[str, list[Output]] = defaultdict(list)
    for output in outputs:
        by_uri[output.uri].append(output)
    return [
        {"uri": uri, "writers": [_writer(o) for o in writers]}
        for uri, writers in sorted(by_uri.items())
        if len({job_of(o.id, o.run, o.experiment) for o in writers}) > 1
    ]


def _writer(output: Output) -> dict[str, Any]:
    return {
        "id": output.id,
        "kind": output.kind,
        "run": output.run,
        "experiment": output.experiment,
    }


class Guards:
    """The three reports over `reads`, at most `max_records` records of a kind each."""

    def __init__(self, reads: ConventionReads, max_records: int) -> None:
        self._reads, self._max = reads, max_records

    def _conventions(self, project: str, scope: Scope) -> Conventions:
        found = self._reads.conventions(project, scope)
        if found is None:
            raise NotFoundError(f"project {project!r} not found (or not readable)")
        return found

    def lint_metrics(self, project: str, scope: Scope) -> dict[str, Any]:
        """Metric names of `project` that differ only in spelling."""
        conventions = self._conventions(project, scope)
        names = self._reads.metric_names(project, scope)
        aliases = dict(conventions.metric_aliases)
        return {
            "project": project,
            "metrics": len(names),
            "aliases": [{"alias": a, "canonical": c} for a, c in sorted(aliases.items())],
            "groups": metric_groups(names, aliases),
        }

    def lint_names(self, project: str, scope: Scope) -> dict[str, Any]:
        """Per kind with a naming rule, the records that break it."""
        conventions = self._conventions(project, scope)
        kinds = []
        for kind in NamedKind:
            template = conventions.template(kind)
            if template is None:
                continue
            records = self._reads.named(project, kind, scope, self._max + 1)
            checked = records[: self._max]
            kinds.append(
                {
                    "kind": kind.value,
                    "rule": template,
                    "checked": len(checked),
                    "truncated": len(records) > self._max,
                    "breaks": name_breaks(template, checked),
                }
            )
        return {
            "project": project,
            "enforced": conventions.require_names,
            "rules": len(kinds),
            "kinds": kinds,
        }

    def collisions(self, project: str, scope: Scope) -> dict[str, Any]:
        """Outputs out of place, and URIs written by more than one job."""
        conventions = self._conventions(project, scope)
        outputs = self._reads.outputs(project, scope, self._max + 1)
        checked = outputs[: self._max]
        roots = list(conventions.storage_roots)
        return {
            "project": project,
            "storage_roots": roots,
            "enforced": conventions.require_places,
            "checked": len(checked),
            "truncated": len(outputs) > self._max,
            "out_of_place": out_of_place(checked, roots),
            "shared": shared_uris(checked),
        }


# ---- text ------------------------------------------------------------------------------------


def render_lint_metrics(answer: Mapping[str, Any]) -> str:
    """`lint-metrics` as text."""
    project, groups = answer["project"], answer["groups"]
    lines = [f"{answer['metrics']} metric names in {project}; {len(groups)} spelled more ways"]
    for group in groups:
        state = "settled" if group["settled"] else "not declared"
        lines.append(f"  {group['key']}: canonical {group['canonical']} ({state})")
        for n in group["names"]:
            alias = f", alias of {n['alias_of']}" if n["alias_of"] else ""
            lines.append(f"    {n['name']}: {n['records']} records{alias}")
    pending = [(n, g["canonical"]) for g in groups for n in g["undeclared"]]
    if pending:
        flags = " ".join(f"--metric-alias {n}={c}" for n, c in pending)
        lines.append(f"declare with: provgraph policy set {project} {flags} (restating the rest)")
    return "\n".join(lines)


def render_lint_names(answer: Mapping[str, Any]) -> str:
    """`lint-names` as text."""
    project = answer["project"]
    if not answer["kinds"]:
        return f"{project} has no naming rule (provgraph policy set {project} --name-rule ...)"
    enforced = "refused at ingest" if answer["enforced"] else "not enforced"
    lines = [f"naming rules of {project} ({enforced})"]
    for kind in answer["kinds"]:
        more = " (more not checked)" if kind["truncated"] else ""
        head = f"  {kind['kind']} {kind['rule']!r}: {len(kind['breaks'])} of"
        lines.append(f"{head} {kind['checked']} break it{more}")
        for b in kind["breaks"]:
            suggestion = f" -> {b['suggestion']}" if b["suggestion"] else ""
            lines.append(f"    {b['id']}: {b['problem']}{suggestion}")
    return "\n".join(lines)


def render_collisions(answer: Mapping[str, Any]) -> str:
    """`collisions` as text."""
    roots = ", ".join(answer["storage_roots"]) or "none declared"
    enforced = "refused at ingest" if answer["enforced"] else "not enforced"
    more = " (more not checked)" if answer["truncated"] else ""
    lines = [
        f"{answer['checked']} outputs of {answer['project']}{more}; storage roots: {roots} "
        f"({enforced})",
        f"out of place: {len(answer['out_of_place'])}",
    ]
    lines += [f"  {o['id']}: {o['problem']}" for o in answer["out_of_place"]]
    lines.append(f"written by more than one job: {len(answer['shared'])}")
    for shared in answer["shared"]:
        lines.append(f"  {shared['uri']}")
        for w in shared["writers"]:
            by = w["run"] or "no run"
            lines.append(f"    {w['id']} (by {by}, {w['experiment'] or 'no experiment'})")
    return "\n".join(lines)
