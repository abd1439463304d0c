"""`search`: what earlier attempts concluded, found by Neo4j's full-text index `lessons`.

The text is matched word by word (any word; more matches rank higher, as Lucene scores them;
English stop words left out, words stemmed: `schemas.graph.LESSONS_ANALYZER`)
against goals, conclusions, error messages, abort reasons, descriptions, change notes and
production incidents (`schemas.graph.LESSON_FIELDS`). Filters narrow the hits: a project, kinds
of node, a status, a run parameter's value, a dataset version used, and a metric condition
(`final:val/loss<1.5`), which is checked here on the runs the index returned. Each hit comes
with the text that matched.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from provgraph.query.errors import InvalidArgumentError
from provgraph.query.read.convert import as_number
from provgraph.query.read.lesson_reads import LessonFilter, LessonHit, LessonReads
from provgraph.query.read.model import NodeWhere, Scope
from provgraph.query.recipes.comparing import FINAL, LAST, MetricDef, metrics_of
from provgraph.schemas import IdKind, InvalidIdError, parse_id
from provgraph.schemas.graph import LESSON_FIELDS, Label
from provgraph.schemas.storage import parse_json

KINDS: dict[str, tuple[Label, ...]] = {
    "run": (Label.RUN,),
    "experiment": (Label.EXPERIMENT,),
    "dataset": (Label.DATASET, Label.DATASET_VERSION),
    "model": (Label.MODEL_VERSION,),
    "deployment": (Label.DEPLOYMENT,),
}
_LUCENE_SPECIAL = re.compile(r'([+\-&|!(){}\[\]^"~*?:\\/])')
_WORD = re.compile(r"\w+")
_CONDITION = re.compile(r"^\s*(?P<metric>[^<>=]+?)\s*(?P<op><=|>=|<|>|=)\s*(?P<value>\S+)\s*$")
_OPS: dict[str, Callable[[float, float], bool]] = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "=": operator.eq,
}
_STOPS = "a an and are as at be but by for if in into is it no not of on or such that the their "
STOP_WORDS = frozenset((_STOPS + "then there these they this to was will with").split())
"""The English stop words of Lucene's English analyser: never searched for."""
_SHOWN_FIELDS = {"feedback_incidents_json": "incidents"}
MAX_TEXT = 300
"""A matching text longer than this is cut around its first matching word."""


@dataclass(frozen=True)
class MetricCondition:
    """`<metric><op><number>`: a metric key (`final:val/loss`) or name, and a comparison."""

    metric: str
    op: str
    value: float

    @classmethod
    def parse(cls, text: str) -> MetricCondition:
        found = _CONDITION.match(text)
        number = as_number(found.group("value")) if found else None
        if found is None or number is None:
            raise InvalidArgumentError(
                f"metric: '{text}' is not a condition such as final:val/loss<1.5 "
                "(operators < <= > >= =)",
                argument="metric",
            )
        return cls(found.group("metric"), found.group("op"), number)

    def holds(self, props: Mapping[str, Any]) -> bool:
        """The run has the metric (a key, or a name: its final value, else its last logged
        one) and its value meets the condition."""
        metrics = metrics_of(props)
        wanted = [MetricDef(*self.metric.split(":", 1))] if ":" in self.metric else []
        wanted += [MetricDef(FINAL, self.metric), MetricDef(LAST, self.metric)]
        value = next((metrics[d][0] for d in wanted if d in metrics), None)
        return value is not None and _OPS[self.op](value, self.value)

    def text(self) -> str:
        return f"{self.metric}{self.op}{self.value:g}"


def lucene_query(text: str) -> str:
    """The words of `text` as a Lucene query matching any of them, every special character
    escaped (a user's `lr=2e-5` or `C++` is text, not query syntax)."""
    words = [_LUCENE_SPECIAL.sub(r"\\\1", w) for w in text.split()]
    if not words:
        raise InvalidArgumentError("text: give a word to search for", argument="text")
    return " ".join(words)


def _param(text: str | None) -> tuple[str, str] | None:
    """`NAME=VALUE` as `NodeWhere.param`'s (name, value)."""
    if text is None:
        return None
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise InvalidArgumentError(f"param: '{text}' is not NAME=VALUE (lr=2e-5)", argument="param")
    return name.strip(), value.strip()


def uses_version(version: str | None) -> str | None:
    """`version` when it is a dataset version id (or None), else `invalid_argument`."""
    if version is None:
        return None
    try:
        found = parse_id(version).kind
    except InvalidIdError as exc:
        raise InvalidArgumentError(f"uses: {exc}", argument="uses") from None
    if found is not IdKind.DATASET_VERSION:
        raise InvalidArgumentError(
            f"uses takes a dataset version id (dataset:p/name@v1), not {version}", argument="uses"
        )
    return version


def _labels(kinds: Sequence[str]) -> tuple[str, ...]:
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        raise InvalidArgumentError(
            f"kind: {', '.join(unknown)} is not one of {', '.join(KINDS)}", argument="kind"
        )
    return tuple(label.value for k in dict.fromkeys(kinds) for label in KINDS[k])


def _texts(hit: LessonHit) -> dict[str, str]:
    """The indexed texts of a hit, by the name shown (incidents: their summaries)."""
    out: dict[str, str] = {}
    for prop in LESSON_FIELDS.get(Label(hit.type), ()):
        value = hit.props.get(prop)
        if prop == "feedback_incidents_json" and isinstance(value, str):
            incidents = parse_json(value) or []
            value = "; ".join(str(i.get("summary")) for i in incidents if isinstance(i, dict))
        if isinstance(value, str) and value:
            out[_SHOWN_FIELDS.get(prop, prop)] = value
    return out


def _cut(text: str, words: set[str]) -> str:
    if len(text) <= MAX_TEXT:
        return text
    found = (m.start() for m in _WORD.finditer(text) if _holds(m.group(), words))
    first = next(found, 0)
    start = max(0, first - MAX_TEXT // 3)
    piece = text[start : start + MAX_TEXT]
    return ("..." if start else "") + piece + ("..." if start + MAX_TEXT < len(text) else "")


def _same_word(a: str, b: str) -> bool:
    """Roughly what the index's stemming finds alike: one word, or words sharing their first
    five letters (all of the shorter one's when it has fewer): `diverged` and `divergence`."""
    n = min(len(a), len(b), 5)
    return a == b or a[:n] == b[:n]


def _holds(text: str, words: set[str]) -> bool:
    return any(_same_word(w.lower(), q) for w in _WORD.findall(text) for q in words)


def matches(hit: LessonHit, text: str) -> list[dict[str, str]]:
    """The texts of `hit` holding a word of `text` (any case, English stop words aside, alike
    as `_same_word` says); all its texts when none does (the index's analyser matched more)."""
    words = {w.lower() for w in _WORD.findall(text)} - STOP_WORDS
    texts = _texts(hit)
    found = {k: v for k, v in texts.items() if _holds(v, words)}
    return [{"field": k, "text": _cut(v, words)} for k, v in (found or texts).items()]


def _hit_view(hit: LessonHit, text: str) -> dict[str, Any]:
    p = hit.props
    return {
        "id": p["id"],
        "type": hit.type,
        "project": p.get("project"),
        "name": p.get("name"),
        "status": p.get("status"),
        "experiment": hit.experiment,
        "score": round(hit.score, 4),
        "matches": matches(hit, text),
    }


class Lessons:
    """`search` over a `LessonReads`: the text is matched against the best `candidates`
    matches of the index; at most `max_first` hits in one answer."""

    def __init__(self, reads: LessonReads, candidates: int, max_first: int) -> None:
        self._reads = reads
        self._candidates = candidates
        self._max_first = max_first

    def search(
        self,
        text: str,
        scope: Scope,
        *,
        project: str | None = None,
        kinds: Sequence[str] = (),
        status: str | None = None,
        metric: str | None = None,
        param: str | None = None,
        uses: str | None = None,
        first: int = 20,
    ) -> dict[str, Any]:
        """The hits, best first, each with the text that matched."""
        if not 1 <= first <= self._max_first:
            raise InvalidArgumentError(f"first must be 1..{self._max_first}", argument="first")
        query = lucene_query(text)
        condition = MetricCondition.parse(metric) if metric is not None else None
        named, labels = _param(param), _labels(kinds)
        node_where = NodeWhere(project=project, status=status, param=named, uses=uses_version(uses))
        where = LessonFilter(node_where, labels)
        fetch = self._candidates if condition is not None else first + 1
        hits = self._reads.lessons(query, where, self._candidates, fetch, scope)
        if condition is not None:
            hits = [h for h in hits if h.type == Label.RUN and condition.holds(h.props)]
        return {
            "text": text,
            "query": query,
            "filters": {
                "project": project,
                "kinds": list(dict.fromkeys(kinds)),
                "status": status,
                "metric": None if condition is None else condition.text(),
                "param": param,
                "uses": uses,
            },
            "hits": [_hit_view(h, text) for h in hits[:first]],
            "truncated": len(hits) > first,
            "candidates": self._candidates,
        }


def render_lessons(answer: Mapping[str, Any]) -> str:
    """One block per hit: rank, id, type, status, experiment, then each matching text."""
    filters = [
        f"{k} {' '.join(v) if isinstance(v, list) else v}"
        for k, v in answer["filters"].items()
        if v not in (None, [])
    ]
    head = f"search {answer['text']!r}" + (f" ({', '.join(filters)})" if filters else "")
    hits = answer["hits"]
    count = f"{len(hits)} hit" + ("" if len(hits) == 1 else "s")
    count += " (more: raise --limit)" if answer["truncated"] else ""
    lines = [f"{head}: {count if hits else 'no hit'}"]
    for rank, hit in enumerate(hits, 1):
        facts = [hit["type"], hit["status"], hit["experiment"]]
        lines += ["", f"{rank}. {hit['id']}  " + "  ".join(str(f) for f in facts if f)]
        lines += [f"   {m['field']}: {m['text']}" for m in hit["matches"]]
    return "\n".join(lines)
