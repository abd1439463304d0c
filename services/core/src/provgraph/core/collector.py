"""The cyclic garbage collector, set for processes that build large answers in batches.

Folding a batch of events allocates a few hundred objects an event (the decoded event, its
mutations, their rows), and they all live until the batch is written; a lineage answer builds
a view and a row for each of up to 10,000 nodes, all alive until the answer is sent. Nothing of
it is garbage yet. With Python's default first-generation threshold (700 allocations), the
collector runs every few events or nodes and, as each run finds them all still alive, promotes
them and walks them again in the older generations: about a third of the time a 5,000-event
batch takes to fold (docs/performance.md). Reference counting frees them once done with; the
collector is only there for cycles, which neither makes. So the projector, replay, verify and
the query service run it less often (it is process-wide: a service owns its process).
"""

from __future__ import annotations

import gc


def collect_less(threshold: int) -> None:
    """Run the first-generation collection every `threshold` allocations instead of Python's
    700 (the older generations' thresholds are left as they are); 0 leaves Python's own."""
    if threshold < 0:
        raise ValueError(f"a collector threshold is a count of allocations, got {threshold}")
    if threshold:
        _, older, oldest = gc.get_threshold()
        gc.set_threshold(threshold, older, oldest)
