"""A training job that dies: the SDK crash tests run it as a separate process.

usage: crash_child.py BOOTSTRAP TOPIC SPOOL_DIR RECORD_FILE COUNT MODE

It runs one run of COUNT metric steps (one event each) that fails, so that its last event is
``run.failed``. Right after `emit()` returned for an event, the event is appended to
RECORD_FILE (with os.write: it survives the kill). MODE ``kill``: SIGKILL itself right after
the last emit returned. MODE ``wait``: create RECORD_FILE.ready and wait to be killed.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

from provgraph.client import Emitter, KafkaTransport
from provgraph.schemas import Event


class RecordingEmitter(Emitter):
    """An emitter that notes every event whose `emit()` returned."""

    record_fd = -1

    def emit(self, event: Event) -> None:
        super().emit(event)
        os.write(self.record_fd, event.to_json_bytes() + b"\n")


def main(bootstrap: str, topic: str, spool: str, record: str, count: int, mode: str) -> None:
    transport = KafkaTransport(bootstrap, topic=topic, timeout_s=2.0)
    # A long linger: the last partial batch is surely still unsent when the job dies.
    emitter = RecordingEmitter(transport, spool_dir=spool, project="crash", linger_s=5.0)
    emitter.record_fd = os.open(record, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        with emitter.run(environment=False, code=False, metrics_batch=1) as run:
            for step in range(count):
                run.log_metrics(step, loss=1.0 / (step + 1))
            raise MemoryError("the job runs out of memory")
    except MemoryError:
        if mode == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
    Path(record + ".ready").touch()
    time.sleep(600)


if __name__ == "__main__":
    main(*sys.argv[1:5], int(sys.argv[5]), sys.argv[6])
