"""The spool directories of one emitter name: the name's own, and one per extra process.

The first process of a name uses the name's directory; a second live one (several processes
of one job, one per GPU say) uses ``<dir>/pid-<pid>`` of its own. Whichever process runs
next drains every one of them that no live process holds: its lock is free once the
process that held it is gone, however it ended.
"""

from __future__ import annotations

import logging
import os
import uuid
from pathlib import Path

from provgraph.client.spool import Spool, SpoolLockedError

log = logging.getLogger(__name__)

PID_PREFIX = "pid-"


def open_own(root: Path, *, fsync_interval_s: float | None) -> Spool:
    """This process's spool: `root` when free, else a ``pid-*`` directory below it."""
    try:
        return Spool(root, fsync_interval_s=fsync_interval_s)
    except SpoolLockedError:
        pass
    own = root / f"{PID_PREFIX}{os.getpid()}"
    log.warning("provgraph: spool %s is in use by another process, using %s", root, own)
    try:
        return Spool(own, fsync_interval_s=fsync_interval_s)
    except SpoolLockedError:  # the same pid in another pid namespace, on a shared disk
        unique = root / f"{PID_PREFIX}{os.getpid()}-{uuid.uuid4().hex[:8]}"
        return Spool(unique, fsync_interval_s=fsync_interval_s)


def claim_orphans(root: Path, own: Path) -> list[Spool]:
    """Lock every spool directory of `root` that no live process holds and that has events
    pending; empty ``pid-*`` directories found on the way are removed."""
    claimed: list[Spool] = []
    for directory in [root, *sorted(root.glob(f"{PID_PREFIX}*"))]:
        if directory == own or not directory.is_dir():
            continue
        try:
            spool = Spool(directory, create=False, fsync_interval_s=None)
        except OSError:
            continue  # alive (locked), or removed by another process meanwhile
        if spool.pending:
            claimed.append(spool)
        else:
            spool.close(remove=directory != root)
    return claimed
