"""`FeedbackReads` in memory: the model version nodes, and each one's feedback records."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from fake_reader import seen_by

from provgraph.query.read.feedback_reads import FeedbackRecord
from provgraph.query.read.model import NodeView, Scope


@dataclass(frozen=True)
class FeedbackCall:
    """One call of `feedback`, as asked."""

    ids: tuple[str, ...]
    scope: Scope
    as_of: str | None
    first: int


class FakeFeedbackReads:
    """A version's records, newest first, when the version is readable at `as_of`; a record's
    deployment the caller may not read is answered as none (and with it what it held), as the
    reader answers it. Every call is kept."""

    def __init__(
        self,
        versions: Sequence[NodeView] = (),
        feedback: Mapping[str, Sequence[FeedbackRecord]] | None = None,
    ) -> None:
        self.versions = {version.id: version for version in versions}
        self.stored = {k: list(v) for k, v in (feedback or {}).items()}
        self.calls: list[FeedbackCall] = []

    def feedback(
        self, ids: Sequence[str], scope: Scope, *, as_of: str | None = None, first: int = 50
    ) -> list[list[FeedbackRecord]]:
        self.calls.append(FeedbackCall(tuple(ids), scope, as_of, first))

        def of(version_id: str) -> list[FeedbackRecord]:
            version = self.versions.get(version_id)
            if version is None or not seen_by(version, scope, as_of):
                return []
            kept = [r for r in self.stored.get(version_id, []) if as_of is None or r.at <= as_of]
            kept.sort(key=lambda r: (r.at, r.event_id), reverse=True)
            return [_as_read(r, scope, as_of) for r in kept[:first]]

        return [of(version_id) for version_id in ids]


def _as_read(record: FeedbackRecord, scope: Scope, as_of: str | None) -> FeedbackRecord:
    deployment = record.deployment
    if deployment is None or seen_by(deployment, scope, as_of):
        return record
    return replace(record, deployment=None, metrics=None, incidents=None)
