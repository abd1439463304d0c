"""Timing a checkpoint's save: `Run.saving_checkpoint` measures the write and records it.

```python
with run.saving_checkpoint(step, "s3://ckpt/run-7/step-2000/") as saved:
    torch.save(state, path)          # the timed part
    saved.size_bytes = path.stat().st_size
print(saved.id)                      # checkpoint:<run>/2000, once the block is left
```

`save_seconds` (the time inside the block) is what `provgraph advise-checkpoints` reads as the
cost of one save. A block left by an exception records nothing: that save did not happen.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from types import TracebackType
from typing import Any, Self

Clock = Callable[[], float]
"""Seconds from an arbitrary origin; only differences are used (a monotonic clock)."""
Record = Callable[..., str]
"""`Run.checkpoint`: emits ``checkpoint.saved`` and returns the checkpoint id."""


class CheckpointSave:
    """A context manager around writing one checkpoint. On a normal exit it emits
    ``checkpoint.saved`` with `save_seconds`; attributes set inside the block (`checksum`,
    `size_bytes`, `metrics`, ...) go into the event too."""

    def __init__(
        self,
        record: Record,
        step: int,
        uri: str,
        options: dict[str, Any],
        clock: Clock = time.perf_counter,
    ) -> None:
        self._record, self._clock = record, clock
        self.step, self.uri = step, uri
        self.checksum: str | None = options.pop("checksum", None)
        self.size_bytes: int | None = options.pop("size_bytes", None)
        self.options = options
        self.save_seconds: float | None = None
        self.id: str | None = None
        self._started: float | None = None

    def __enter__(self) -> Self:
        self._started = self._clock()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is not None or self._started is None:
            return
        self.save_seconds = max(0.0, self._clock() - self._started)
        extra = {"checksum": self.checksum, "size_bytes": self.size_bytes}
        self.id = self._record(
            self.step,
            self.uri,
            save_seconds=self.save_seconds,
            **{k: v for k, v in extra.items() if v is not None},
            **self.options,
        )
