"""Typed ids: stable, readable strings derived from an event alone.

| kind             | format                                         |
|------------------|------------------------------------------------|
| dataset          | ``dataset:<project>/<name>``                   |
| dataset_version  | ``dataset:<project>/<name>@<version>``         |
| run              | ``run:<run_id>`` (a UUID or a producer's slug) |
| experiment       | ``experiment:<project>/<key>``                 |
| checkpoint       | ``checkpoint:<run_id>/<step>`` or ``checkpoint:<explicit-id>`` |
| model            | ``model:<project>/<name>``                     |
| model_version    | ``model:<project>/<name>@<version>``           |
| environment      | ``environment:<project>/<digest-or-name>``     |
| evaluation       | ``evaluation:<uuid>``                          |
| deployment       | ``deployment:<project>/<name>``                |
| project          | ``project:<project>``                          |
| job              | ``job:<project>/<name>`` (OpenLineage jobs)    |
| principal        | ``principal:<user|group|service>:<name>`` (a token holder) |

The regular expressions below are shared by the parser and the generated JSON Schema, so a
producer in any language checks ids the same way (anchored with `patterns.whole`, so that a
trailing newline is refused by every validator).
"""

from __future__ import annotations

import re
from enum import StrEnum
from functools import lru_cache
from typing import Annotated, NamedTuple
from uuid import UUID

from pydantic import AfterValidator, WithJsonSchema

from provgraph.schemas.errors import InvalidIdError
from provgraph.schemas.patterns import whole

PROJECT_RE = r"[a-z0-9][a-z0-9_-]{0,63}"
NAME_RE = r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}"
VERSION_RE = r"[A-Za-z0-9][A-Za-z0-9._+-]{0,63}"
RUN_KEY_RE = r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}"
STEP_RE = r"(?:0|[1-9][0-9]{0,17})"
MAX_STEP = 10**18 - 1
"""The largest step a checkpoint id can carry (18 digits)."""
ENV_KEY_RE = r"[A-Za-z0-9][A-Za-z0-9._:+-]{0,199}"
UUID_RE = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
PRINCIPAL_RE = r"(?:user|group|service):[A-Za-z0-9][A-Za-z0-9._@-]{0,127}"


class IdKind(StrEnum):
    """The kind of entity a typed id names."""

    DATASET = "dataset"
    DATASET_VERSION = "dataset_version"
    RUN = "run"
    EXPERIMENT = "experiment"
    CHECKPOINT = "checkpoint"
    MODEL = "model"
    MODEL_VERSION = "model_version"
    ENVIRONMENT = "environment"
    EVALUATION = "evaluation"
    DEPLOYMENT = "deployment"
    PROJECT = "project"
    JOB = "job"
    PRINCIPAL = "principal"


# Prefixes refused outright; ``job:`` is in use only in its ``job:<project>/<name>`` form.
RESERVED_PREFIXES: frozenset[str] = frozenset()

# kind -> (human-readable template, body regex without the prefix)
_FORMATS: dict[IdKind, tuple[str, str]] = {
    IdKind.DATASET: ("dataset:<project>/<name>", rf"({PROJECT_RE})/({NAME_RE})"),
    IdKind.DATASET_VERSION: (
        "dataset:<project>/<name>@<version>",
        rf"({PROJECT_RE})/({NAME_RE})@({VERSION_RE})",
    ),
    IdKind.RUN: ("run:<run_id>", rf"({RUN_KEY_RE})"),
    IdKind.EXPERIMENT: ("experiment:<project>/<key>", rf"({PROJECT_RE})/({NAME_RE})"),
    IdKind.CHECKPOINT: (
        "checkpoint:<run_id>/<step> or checkpoint:<explicit-id>",
        rf"(?:({RUN_KEY_RE})/({STEP_RE})|({NAME_RE}))",
    ),
    IdKind.MODEL: ("model:<project>/<name>", rf"({PROJECT_RE})/({NAME_RE})"),
    IdKind.MODEL_VERSION: (
        "model:<project>/<name>@<version>",
        rf"({PROJECT_RE})/({NAME_RE})@({VERSION_RE})",
    ),
    IdKind.ENVIRONMENT: (
        "environment:<project>/<digest-or-name>",
        rf"({PROJECT_RE})/({ENV_KEY_RE})",
    ),
    IdKind.EVALUATION: ("evaluation:<uuid>", rf"({UUID_RE})"),
    IdKind.DEPLOYMENT: ("deployment:<project>/<name>", rf"({PROJECT_RE})/({NAME_RE})"),
    IdKind.PROJECT: ("project:<project>", rf"({PROJECT_RE})"),
    IdKind.JOB: (
        "job:<project>/<name> (every other job: form stays reserved)",
        rf"({PROJECT_RE})/({NAME_RE})",
    ),
    IdKind.PRINCIPAL: ("principal:<user|group|service>:<name>", rf"({PRINCIPAL_RE})"),
}

_PROJECT_SCOPED = frozenset(_FORMATS) - {
    IdKind.RUN,
    IdKind.CHECKPOINT,
    IdKind.EVALUATION,
    IdKind.PRINCIPAL,
}

_SEGMENT_RULES = {
    "project": "lowercase letters, digits, '-', '_', 1-64 chars, starting alphanumeric",
    "name": "letters, digits, '.', '_', '-', 1-128 chars, starting alphanumeric",
    "version": "letters, digits, '.', '_', '-', '+', 1-64 chars, starting alphanumeric",
    "run_id": "a UUID or letters, digits, '.', '_', '-', 1-128 chars, starting alphanumeric",
    "environment key": "an image digest or a name: letters, digits, '.', '_', '-', ':', '+'",
    "principal": "user:, group: or service: and a name: letters, digits, '.', '_', '@', '-'",
}
_RULES = "; ".join(f"{k}: {v}" for k, v in _SEGMENT_RULES.items())


def prefix_of(kind: IdKind) -> str:
    """The text before ``:`` for ids of this kind (versions share their entity's prefix)."""
    return kind.value.removesuffix("_version")


def id_pattern(*kinds: IdKind) -> str:
    """An anchored regular expression matching ids of any of `kinds` (the same in ECMA 262,
    Python and every other engine: see `patterns`)."""
    return whole("|".join(f"{prefix_of(k)}:{_FORMATS[k][1]}" for k in kinds))


_COMPILED = {k: re.compile(id_pattern(k)) for k in _FORMATS}


class ParsedId(NamedTuple):
    """A typed id split into its kind and its parts (``("proj", "name", "v1")``)."""

    kind: IdKind
    parts: tuple[str, ...]

    @property
    def project(self) -> str | None:
        """The owning project for project-scoped kinds, else None (runs, checkpoints, ...)."""
        return self.parts[0] if self.kind in _PROJECT_SCOPED else None


def _kind_for(prefix: str, body: str) -> IdKind:
    if prefix in RESERVED_PREFIXES:
        raise InvalidIdError(f"id prefix {prefix!r} is reserved and not yet in use")
    if prefix in ("dataset", "model") and "@" in body:
        return IdKind(f"{prefix}_version")
    try:
        return IdKind(prefix)
    except ValueError:
        known = sorted({prefix_of(k) for k in IdKind})
        raise InvalidIdError(f"unknown id prefix {prefix!r}; known: {', '.join(known)}") from None


@lru_cache(maxsize=65_536)
def parse_id(value: str) -> ParsedId:
    """Split a typed id into (kind, parts); raise `InvalidIdError` with the expected format.

    Memoised (bounded): the projector parses the same few ids in event after event; an
    invalid id raises every time (exceptions are not cached)."""
    prefix, sep, body = value.partition(":")
    if not sep:
        raise InvalidIdError(f"typed id {value!r} has no '<kind>:' prefix (e.g. 'run:<run_id>')")
    kind = _kind_for(prefix, body)
    match = _COMPILED[kind].search(value)  # as a JSON Schema validator reads the pattern
    if match is None:
        template = _FORMATS[kind][0]
        raise InvalidIdError(f"malformed {kind} id {value!r}: expected {template} ({_RULES})")
    return ParsedId(kind, tuple(g for g in match.groups() if g is not None))


@lru_cache(maxsize=65_536)
def _segment(label: str, regex: str, value: str) -> str:
    if re.fullmatch(regex, value) is None:
        rule = _SEGMENT_RULES.get(label, _SEGMENT_RULES["name"])
        raise InvalidIdError(f"{label} {value!r} is not valid: expected {rule}")
    return value


def dataset_id(project: str, name: str) -> str:
    """``dataset:<project>/<name>``."""
    return f"dataset:{_segment('project', PROJECT_RE, project)}/{_segment('name', NAME_RE, name)}"


def dataset_version_id(project: str, name: str, version: str) -> str:
    """``dataset:<project>/<name>@<version>``."""
    return f"{dataset_id(project, name)}@{_segment('version', VERSION_RE, version)}"


def run_id(run: str | UUID) -> str:
    """``run:<run_id>`` where run_id is a UUID or a slug chosen by the producer."""
    return f"run:{_segment('run_id', RUN_KEY_RE, str(run))}"


def experiment_id(project: str, key: str) -> str:
    """``experiment:<project>/<key>``."""
    return f"experiment:{_segment('project', PROJECT_RE, project)}/{_segment('key', NAME_RE, key)}"


def checkpoint_id(run: str | UUID, step: int) -> str:
    """``checkpoint:<run_id>/<step>``: the default id of a checkpoint."""
    if not 0 <= step <= MAX_STEP:
        raise InvalidIdError(f"step {step} must be within 0..{MAX_STEP}")
    return f"checkpoint:{_segment('run_id', RUN_KEY_RE, str(run))}/{step}"


def explicit_checkpoint_id(key: str) -> str:
    """``checkpoint:<explicit-id>``: for producers that name checkpoints themselves."""
    return f"checkpoint:{_segment('checkpoint key', NAME_RE, key)}"


def model_id(project: str, name: str) -> str:
    """``model:<project>/<name>``."""
    return f"model:{_segment('project', PROJECT_RE, project)}/{_segment('name', NAME_RE, name)}"


def model_version_id(project: str, name: str, version: str) -> str:
    """``model:<project>/<name>@<version>``."""
    return f"{model_id(project, name)}@{_segment('version', VERSION_RE, version)}"


def environment_id(project: str, key: str) -> str:
    """``environment:<project>/<digest-or-name>``."""
    project = _segment("project", PROJECT_RE, project)
    return f"environment:{project}/{_segment('environment key', ENV_KEY_RE, key)}"


def evaluation_id(evaluation: UUID | str) -> str:
    """``evaluation:<uuid>`` (canonical lowercase UUID)."""
    return f"evaluation:{UUID(str(evaluation))}"


def deployment_id(project: str, name: str) -> str:
    """``deployment:<project>/<name>``."""
    project = _segment("project", PROJECT_RE, project)
    return f"deployment:{project}/{_segment('name', NAME_RE, name)}"


def project_id(project: str) -> str:
    """``project:<project>``."""
    return f"project:{_segment('project', PROJECT_RE, project)}"


def job_id(project: str, name: str) -> str:
    """``job:<project>/<name>``: a job (an OpenLineage job, the thing whose runs run)."""
    return f"job:{_segment('project', PROJECT_RE, project)}/{_segment('name', NAME_RE, name)}"


def principal_id(principal: str) -> str:
    """``principal:<user|group|service>:<name>``: a token holder (``principal:user:alice``)."""
    return f"principal:{_segment('principal', PRINCIPAL_RE, principal)}"


def issued_name(stamp: str | None) -> str | None:
    """The principal ingest stamped on an event, named as its token was issued: the log and
    the graph keep the Principal's id (``principal:user:ann``), everything shown to people
    says ``user:ann``, the form of `provgraph token create`, the grants and the actors events
    claim. A stamp that is no principal id (a header written straight to Kafka) stays as it is."""
    if not stamp:
        return stamp
    try:
        parsed = parse_id(stamp)
    except InvalidIdError:
        return stamp
    return parsed.parts[0] if parsed.kind is IdKind.PRINCIPAL else stamp


def _expect(*kinds: IdKind) -> AfterValidator:
    def check(value: str) -> str:
        parsed = parse_id(value)
        if parsed.kind not in kinds:
            wanted = " or ".join(_FORMATS[k][0] for k in kinds)
            raise InvalidIdError(f"expected a {wanted} id, got a {parsed.kind} id {value!r}")
        return value

    return AfterValidator(check)


def _id_schema(*kinds: IdKind) -> WithJsonSchema:
    return WithJsonSchema({"type": "string", "pattern": id_pattern(*kinds)})


def _natural(label: str, regex: str) -> AfterValidator:
    return AfterValidator(lambda v: _segment(label, regex, v))


def _natural_schema(regex: str) -> WithJsonSchema:
    return WithJsonSchema({"type": "string", "pattern": whole(regex)})


_K = IdKind
DatasetId = Annotated[str, _expect(_K.DATASET), _id_schema(_K.DATASET)]
DatasetVersionId = Annotated[str, _expect(_K.DATASET_VERSION), _id_schema(_K.DATASET_VERSION)]
RunId = Annotated[str, _expect(_K.RUN), _id_schema(_K.RUN)]
ExperimentId = Annotated[str, _expect(_K.EXPERIMENT), _id_schema(_K.EXPERIMENT)]
JobId = Annotated[str, _expect(_K.JOB), _id_schema(_K.JOB)]
CheckpointId = Annotated[str, _expect(_K.CHECKPOINT), _id_schema(_K.CHECKPOINT)]
ModelVersionId = Annotated[str, _expect(_K.MODEL_VERSION), _id_schema(_K.MODEL_VERSION)]
EnvironmentId = Annotated[str, _expect(_K.ENVIRONMENT), _id_schema(_K.ENVIRONMENT)]
BaseModelRef = Annotated[
    str,
    _expect(_K.MODEL_VERSION, _K.CHECKPOINT),
    _id_schema(_K.MODEL_VERSION, _K.CHECKPOINT),
]
EntityId = Annotated[str, _expect(*IdKind), _id_schema(*IdKind)]

ProjectSlug = Annotated[str, _natural("project", PROJECT_RE), _natural_schema(PROJECT_RE)]
Name = Annotated[str, _natural("name", NAME_RE), _natural_schema(NAME_RE)]
VersionLabel = Annotated[str, _natural("version", VERSION_RE), _natural_schema(VERSION_RE)]
RunKey = Annotated[str, _natural("run_id", RUN_KEY_RE), _natural_schema(RUN_KEY_RE)]
PrincipalName = Annotated[str, _natural("principal", PRINCIPAL_RE), _natural_schema(PRINCIPAL_RE)]
EnvironmentKey = Annotated[
    str, _natural("environment key", ENV_KEY_RE), _natural_schema(ENV_KEY_RE)
]
