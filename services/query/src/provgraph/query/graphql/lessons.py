"""`lessons`: search what earlier attempts concluded (`recipes/lessons.py`)."""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Any

import strawberry

from provgraph.query.graphql.context import Info
from provgraph.query.graphql.fields import field


@strawberry.enum(description="What a lessons search may be kept to.")
class LessonKind(Enum):
    RUN = "run"
    EXPERIMENT = "experiment"
    DATASET = "dataset"
    MODEL = "model"
    DEPLOYMENT = "deployment"


@strawberry.type(description="A text of a hit that holds a word searched for.")
class LessonMatch:
    field: str = strawberry.field(
        description="goal, description, conclusion, error_message, abort_reason, change_note, "
        "or incidents (the summaries of a deployment's latest incidents)"
    )
    text: str = strawberry.field(description="The text (cut around the word when long).")


@strawberry.type(description="A node whose recorded texts match the search, with those texts.")
class LessonHit:
    id: strawberry.ID
    type: str = strawberry.field(description="The node's label, e.g. `Run`.")
    project: str | None
    name: str | None
    status: str | None
    experiment: strawberry.ID | None = strawberry.field(description="A run's experiment.")
    score: float = strawberry.field(description="The index's relevance: higher is better.")
    matches: list[LessonMatch]


@strawberry.type(description="Lessons: hits best first, each with the text that matched.")
class LessonSearch:
    text: str
    query: str = strawberry.field(description="The text as the index's query (escaped).")
    hits: list[LessonHit]
    truncated: bool = strawberry.field(description="More hits than `first` matched.")
    candidates: int = strawberry.field(
        description="The filters narrow this many best matches of the text."
    )


def lesson_search(answer: Mapping[str, Any]) -> LessonSearch:
    """The typed answer of `Lessons.search`."""
    return LessonSearch(
        text=answer["text"],
        query=answer["query"],
        truncated=answer["truncated"],
        candidates=answer["candidates"],
        hits=[
            LessonHit(
                **{k: v for k, v in h.items() if k != "matches"},
                matches=[LessonMatch(**m) for m in h["matches"]],
            )
            for h in answer["hits"]
        ],
    )


@strawberry.type
class LessonsQuery:
    @field(
        description="Search what was concluded: goals, conclusions, error messages, abort "
        "reasons, descriptions, change notes and incidents, by Neo4j's full-text index (any of "
        "the words; more rank higher). Filters: `project`, `kinds`, `status`, `metric` (a run "
        "condition such as `final:val/loss<1.5`), `param` (`lr=2e-5`), `uses` (a dataset "
        "version the run, or the run that made the hit, used). At most `first` hits."
    )
    def lessons(
        self,
        info: Info,
        text: str,
        project: str | None = None,
        kinds: list[LessonKind] | None = None,
        status: str | None = None,
        metric: str | None = None,
        param: str | None = None,
        uses: strawberry.ID | None = None,
        first: int = 20,
    ) -> LessonSearch:
        ctx = info.context
        answer = ctx.services.lessons().search(
            text,
            ctx.scope,
            project=project,
            kinds=[k.value for k in kinds or ()],
            status=status,
            metric=metric,
            param=param,
            uses=None if uses is None else str(uses),
            first=first,
        )
        return lesson_search(answer)
