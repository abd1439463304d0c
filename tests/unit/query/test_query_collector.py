"""The query service sets the interpreter's collector threshold from its settings when its
app is made (`provgraph.core.collector`): a large answer is not walked again and again."""

from __future__ import annotations

import gc

import pytest
from pydantic import ValidationError

from provgraph.query.http.app import create_app
from provgraph.query.settings import QuerySettings

pytestmark = pytest.mark.usefixtures("gc_thresholds_kept")


def test_the_app_sets_the_collector_threshold_from_its_settings() -> None:
    gc.set_threshold(700, 10, 10)
    create_app(QuerySettings(query_gc_threshold=7_777))
    assert gc.get_threshold() == (7_777, 10, 10)
    gc.set_threshold(700, 10, 10)
    create_app(QuerySettings(query_gc_threshold=0))  # Python's own is kept
    assert gc.get_threshold() == (700, 10, 10)
    assert QuerySettings().query_gc_threshold == 10_000
    with pytest.raises(ValidationError, match="query_gc_threshold"):
        QuerySettings(query_gc_threshold=-1)
