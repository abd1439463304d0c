"""A project's conventions: one metric definition, naming rules and output places.

`project.policy.set` (v3) declares them, and every reader and screen applies them through
this module, so ingest, the projector and the query service agree:

- **Metric aliases** (`metric_aliases`, alias -> canonical name): names that mean one metric.
  `metric_key` is the spelling-blind form `lint-metrics` groups names by (``val/loss``,
  ``validation/loss``, ``Val_Loss`` and ``val-loss`` share ``val/loss``); compare, best and
  effects read a metric under its canonical name (`canonical_metric`).
- **Naming rules** (`names`, per kind: a template). A template is text with placeholders in
  braces naming the record's own facts (`FACTS`), and ``*`` for any text:
  ``{experiment}-r{run_number}`` names run 3 of experiment ``sft`` ``sft-r3``.
  `name_problem` says why a name breaks its rule; `render` builds the name the rule asks for
  (None when the template holds ``*`` or a fact the record lacks).
- **Output places** (`storage_roots`): URI prefixes outputs must live under. `place_problem`
  says why an output URI is out of place: outside every declared root, or a personal path
  (a home directory, a temporary directory), refused whatever the roots.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from provgraph.schemas.patterns import matches, whole

MAX_TEMPLATE_CHARS = 256
MAX_ROOTS = 64
MAX_ALIASES = 256


class NamedKind(StrEnum):
    """The kinds of record a naming rule can name, and which value of theirs is the name."""

    RUN = "run"  # run.started name
    MODEL_VERSION = "model_version"  # model.version.registered version
    DATASET_VERSION = "dataset_version"  # dataset.version.created version
    IMAGE = "image"  # environment.snapshot.recorded image name:tag


FACTS: dict[NamedKind, dict[str, str]] = {
    NamedKind.RUN: {
        "project": "the run's project",
        "experiment": "its experiment's key (run.started experiment)",
        "run_number": "its number within the experiment",
        "run_id": "the run's key",
        "commit": "the first 7 characters of its code commit",
        "date": "the day it started, YYYYMMDD (occurred_at)",
    },
    NamedKind.MODEL_VERSION: {
        "project": "the model's project",
        "model": "the model's name",
        "run_id": "the key of the run that produced it",
        "date": "the day it was registered, YYYYMMDD",
    },
    NamedKind.DATASET_VERSION: {
        "project": "the dataset's project",
        "dataset": "the dataset's name",
        "previous_version": "the version it follows",
        "date": "the day it was created, YYYYMMDD",
    },
    NamedKind.IMAGE: {
        "project": "the environment's project",
        "environment": "the environment's key",
        "date": "the day the snapshot was recorded, YYYYMMDD",
    },
}
"""Every fact a template of each kind may name, with what it holds."""

_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
_PERSONAL = re.compile(r"^file://(localhost)?/(home|Users|root|tmp|var/tmp)(/|$)|^file://~|^~")


def template_pattern(kind: NamedKind) -> str:
    """The JSON Schema pattern of a template of `kind`: text without braces, and
    placeholders naming its facts."""
    facts = "|".join(FACTS[kind])
    return whole(rf"(?:[^{{}}]|\{{(?:{facts})\}})+")


def template_problem(kind: NamedKind, template: str) -> str | None:
    """Why `template` cannot be a naming rule for `kind` (None: it can); the same verdict as
    `template_pattern`'s."""
    if not template or len(template) > MAX_TEMPLATE_CHARS:
        return f"a template is 1 to {MAX_TEMPLATE_CHARS} characters"
    if matches(template_pattern(kind), template):
        return None
    known = FACTS[kind]
    for name in _PLACEHOLDER.findall(template):
        if name not in known:
            return (
                f"{{{name}}} is not a fact of a {kind.value} (known: "
                f"{', '.join('{' + k + '}' for k in known)})"
            )
    return "unbalanced braces: a placeholder is {fact}"


def _pattern(template: str, facts: Mapping[str, str | None]) -> re.Pattern[str] | None:
    """The expression a name must match, or None when the template names a fact the record
    lacks."""
    parts: list[str] = []
    for i, piece in enumerate(_PLACEHOLDER.split(template)):
        if i % 2:  # a placeholder
            value = facts.get(piece)
            if value is None or value == "":
                return None
            parts.append(re.escape(value))
        else:
            parts.append(".+?".join(re.escape(p) for p in piece.split("*")))
    return re.compile("".join(parts))


def missing_facts(template: str, facts: Mapping[str, str | None]) -> list[str]:
    """The facts `template` names that the record lacks, in template order."""
    names = _PLACEHOLDER.findall(template)
    return list(dict.fromkeys(n for n in names if facts.get(n) in (None, "")))


def render(template: str, facts: Mapping[str, str | None]) -> str | None:
    """The name `template` gives a record with `facts`; None when it holds ``*`` or names a
    fact the record lacks."""
    if "*" in template or missing_facts(template, facts):
        return None
    return _PLACEHOLDER.sub(lambda m: str(facts[m.group(1)]), template)


def name_problem(template: str, name: str | None, facts: Mapping[str, str | None]) -> str | None:
    """Why `name` breaks the rule `template` for a record with `facts` (None: it follows it)."""
    lacking = missing_facts(template, facts)
    if lacking:
        return f"the rule {template!r} names {', '.join(lacking)}, which the record lacks"
    if not name:
        return f"no name given; the rule is {template!r}"
    pattern = _pattern(template, facts)
    if pattern is not None and pattern.fullmatch(name):
        return None
    return f"{name!r} does not follow the rule {template!r}"


def day_of(at: str | None) -> str | None:
    """The ``{date}`` fact of a record recorded at the stored time `at`: ``YYYYMMDD``."""
    return at[:10].replace("-", "") if at else None


def job_of(record: str, run: str | None, experiment: str | None) -> str:
    """What counts as one job writing an output `record`: the experiment of the run that wrote
    it, else that run, else the output itself (one URI holds one job's outputs)."""
    return experiment or run or record


def place_problem(uri: str, roots: Sequence[str]) -> str | None:
    """Why an output at `uri` is out of place for a project with `roots` (None: in place).
    A personal path is out of place whatever the roots; with no roots declared, any other
    URI is in place."""
    if _PERSONAL.search(uri):
        return f"{uri} is a personal path (a home or temporary directory)"
    if roots and not any(under(uri, root) for root in roots):
        return f"{uri} is outside the project's storage roots ({', '.join(roots)})"
    return None


def under(uri: str, root: str) -> bool:
    """Whether `uri` is `root` itself or below it (by whole path segments)."""
    base = root.rstrip("/")
    return uri == base or uri.startswith(base + "/")


_SEPARATORS = re.compile(r"[\s_\-.:/]+")
_WORDS = {"validation": "val", "valid": "val", "evaluation": "eval", "training": "train"}


def metric_key(name: str) -> str:
    """A metric name with its spelling folded: lower case, every separator a ``/``, and the
    common long words shortened (``validation`` -> ``val``)."""
    words = [w for w in _SEPARATORS.split(name.lower()) if w]
    return "/".join(_WORDS.get(w, w) for w in words)


def canonical_metric(name: str, aliases: Mapping[str, str]) -> str:
    """The name `name` is read under: its canonical name when it is a declared alias."""
    return aliases.get(name, name)


def alias_problem(aliases: Mapping[str, str]) -> str | None:
    """Why `aliases` (alias -> canonical) cannot be declared (None: it can)."""
    if len(aliases) > MAX_ALIASES:
        return f"at most {MAX_ALIASES} aliases"
    for alias, canonical in sorted(aliases.items()):
        if not alias or not canonical:
            return "an alias and its canonical name are non-empty"
        if alias == canonical:
            return f"{alias!r} is declared an alias of itself"
        if canonical in aliases:
            return (
                f"{alias!r} -> {canonical!r}, but {canonical!r} is itself an alias of "
                f"{aliases[canonical]!r}: name the canonical metric directly"
            )
    return None


@dataclass(frozen=True)
class Conventions:
    """A project's conventions as a policy states them (`project.policy.set` v3), in the form
    the fold keeps with each policy in the Project node's history (`stored`)."""

    metric_aliases: Mapping[str, str] = field(default_factory=dict)
    names: Mapping[str, str] = field(default_factory=dict)  # NamedKind value -> template
    require_names: bool = False
    storage_roots: tuple[str, ...] = ()
    require_places: bool = False

    def stored(self) -> dict[str, Any]:
        """The JSON fields kept with the policy: only those stated (a policy without
        conventions is kept as it was before there were any)."""
        fields: dict[str, Any] = {
            "metric_aliases": dict(sorted(self.metric_aliases.items())),
            "names": dict(sorted(self.names.items())),
            "require_names": self.require_names,
            "storage_roots": list(self.storage_roots),
            "require_places": self.require_places,
        }
        return {k: v for k, v in fields.items() if v}

    @classmethod
    def from_stored(cls, data: Mapping[str, Any]) -> Conventions:
        """The conventions a kept policy's JSON holds (`stored`); none when it holds none."""

        def strings(value: Any) -> dict[str, str]:
            items = value.items() if isinstance(value, Mapping) else ()
            return {str(k): str(v) for k, v in items}

        roots = data.get("storage_roots")
        return cls(
            strings(data.get("metric_aliases")),
            strings(data.get("names")),
            bool(data.get("require_names")),
            tuple(str(r) for r in roots) if isinstance(roots, list) else (),
            bool(data.get("require_places")),
        )

    def template(self, kind: NamedKind) -> str | None:
        """The naming rule of `kind`, if there is one."""
        return self.names.get(kind.value)


NO_CONVENTIONS = Conventions()
