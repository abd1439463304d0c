"""Where a GraphQL request's reads run: the whole request on one worker thread, never on the
caller's event loop; `execute_here` on the calling thread itself."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import Any

from fake_reader import FakeReader
from fakes import fake_readers
from query_graphql_fake import FakeRecipes, story

from provgraph.query.graphql.schema import make_context, make_schema
from provgraph.query.read.model import Direction, NodeView, Scope
from provgraph.query.settings import QuerySettings

# A root lookup and three neighbour relations: four reads, through two kinds of DataLoader.
_RUNS = """{ a: node(id: "run:r1") { id ... on Run { experiment { id } inputs { role }
             checkpoints { id } } }
             b: node(id: "run:r2") { id ... on Run { experiment { id } } } }"""


class ThreadNoting(FakeReader):
    """The story's reader, noting the thread of every read and the event loop running on that
    thread, if any; `barrier`, when set, holds each `nodes` read until as many reads wait on
    it as it has parties."""

    def __init__(self, barrier: threading.Barrier | None = None) -> None:
        base = story()
        super().__init__(list(base.by_id.values()), base.edges, base.events)
        self.threads: list[int] = []
        self.loops: list[asyncio.AbstractEventLoop | None] = []
        self.barrier = barrier

    def _note(self) -> None:
        self.threads.append(threading.get_ident())
        try:
            self.loops.append(asyncio.get_running_loop())
        except RuntimeError:
            self.loops.append(None)

    def nodes(
        self, ids: Sequence[str], scope: Scope, as_of: str | None = None
    ) -> list[NodeView | None]:
        self._note()
        if self.barrier is not None:
            self.barrier.wait()
        return super().nodes(ids, scope, as_of)

    def neighbours(
        self,
        ids: Sequence[str],
        rel: str,
        direction: Direction,
        scope: Scope,
        as_of: str | None = None,
    ) -> Any:
        self._note()
        return super().neighbours(ids, rel, direction, scope, as_of)


def _context(reader: FakeReader) -> Any:
    return make_context(QuerySettings(), fake_readers(reader), FakeRecipes())


def test_a_request_reads_on_one_worker_thread_and_never_on_the_event_loop() -> None:
    reader, schema = ThreadNoting(), make_schema(QuerySettings())

    async def request() -> tuple[int, asyncio.AbstractEventLoop, Any]:
        loop_thread, loop = threading.get_ident(), asyncio.get_running_loop()
        return loop_thread, loop, await schema.execute(_RUNS, context_value=_context(reader))

    loop_thread, loop, result = asyncio.run(request())
    assert result.errors is None
    assert result.data["a"]["experiment"] == {"id": "experiment:p/e1"}
    # Still batched as before: one root read, one read per relation for both runs.
    assert reader.calls["nodes"] == 1 and reader.calls["neighbours"] == 3
    assert len(reader.threads) == 4
    assert len(set(reader.threads)) == 1 and reader.threads[0] != loop_thread
    # Each read is made in place, inside the request's own loop on that thread: one hop per
    # request, not one per read.
    assert len(set(map(id, reader.loops))) == 1
    assert reader.loops[0] is not None and reader.loops[0] is not loop


def test_the_event_loop_answers_other_requests_while_one_waits_on_a_read() -> None:
    # Each request's root read waits until the other request's has started too: run on the
    # event loop's thread, the first would hold it and the barrier would break.
    reader, schema = ThreadNoting(threading.Barrier(2, timeout=10)), make_schema(QuerySettings())

    async def both() -> list[Any]:
        query = '{ node(id: "run:r1") { id } }'
        calls = [schema.execute(query, context_value=_context(reader)) for _ in range(2)]
        return list(await asyncio.gather(*calls))

    results = asyncio.run(both())
    assert [r.errors for r in results] == [None, None]
    assert [r.data for r in results] == [{"node": {"id": "run:r1"}}] * 2
    assert len(set(reader.threads)) == 2


def test_execute_here_answers_on_the_calling_thread_as_execute_answers() -> None:
    reader, schema = ThreadNoting(), make_schema(QuerySettings())
    here = [schema.execute_here(_RUNS, context_value=_context(reader)) for _ in range(3)]
    assert set(reader.threads) == {threading.get_ident()}
    assert len(set(map(id, reader.loops[:12]))) == 1 and None not in reader.loops
    remote = asyncio.run(schema.execute(_RUNS, context_value=_context(reader)))
    assert remote.errors is None
    assert [r.data for r in here] == [remote.data] * 3
