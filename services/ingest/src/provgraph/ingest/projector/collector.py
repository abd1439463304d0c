"""The cyclic garbage collector, set for folding batches of events.

Folding a batch allocates a few hundred objects an event (the decoded event, its mutations,
their rows), and they all live until the batch is written: nothing of it is garbage yet. With
Python's default first-generation threshold (700 allocations), the collector runs every few
events and, as each run finds the batch still alive, promotes it and walks it again in the
older generations: about a third of the time a 5,000-event batch takes to fold
(benchmarks: docs/performance.md). The batch is freed by reference counting once written; the
collector is only there for cycles, which folding does not make. So the projector, replay and
verify run it less often: a process that folds owns its collector (it is process-wide).
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
