"""Buffering metric points into ``run.metrics.logged`` batches."""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from datetime import UTC, datetime

from provgraph.schemas.events.run import MAX_METRIC_POINTS, MetricPoint

log = logging.getLogger(__name__)


class MetricsBuffer:
    """Collects points; `due` says when a batch should leave (size or age reached)."""

    def __init__(self, batch: int = 500, interval_s: float = 10.0) -> None:
        self.batch = min(max(batch, 1), MAX_METRIC_POINTS)
        self.interval_s = interval_s
        self._points: list[MetricPoint] = []
        self._since: datetime | None = None
        self._warned: set[str] = set()

    def add(self, step: int, metrics: Mapping[str, float]) -> None:
        """Add one point per metric; non-finite values (not JSON) are skipped with a warning."""
        now = datetime.now(UTC)
        for name, value in metrics.items():
            number = float(value)
            if math.isfinite(number):
                self._points.append(MetricPoint(name=name, step=step, value=number, timestamp=now))
            elif name not in self._warned:
                self._warned.add(name)
                log.warning("provgraph: metric %r is %s at step %d: skipped", name, number, step)
        self._since = self._since or now

    def due(self) -> bool:
        """True when the buffer holds a full batch or its oldest point is old enough."""
        if len(self._points) >= self.batch:
            return True
        age = (datetime.now(UTC) - (self._since or datetime.now(UTC))).total_seconds()
        return bool(self._points) and age >= self.interval_s

    def take(self) -> list[tuple[MetricPoint, ...]]:
        """Every buffered point, in batches of at most `batch`; the buffer is emptied."""
        points, self._points, self._since = self._points, [], None
        return [tuple(points[i : i + self.batch]) for i in range(0, len(points), self.batch)]
