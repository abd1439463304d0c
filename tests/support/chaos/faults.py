"""The faults of the chaos run, injected one at a time on the private servers and processes.

- projector-kill-9: SIGKILL a projector (no cleanup, no group leave), restart it 1-4 s later;
- projector-zombie: SIGSTOP a projector past its session, so the group evicts it and hands its
  partitions to the others, then SIGCONT: it wakes up holding a batch it no longer owns;
- broker-restart: stop the Kafka broker (SIGKILL or SIGTERM), start it again;
- neo4j-stop: stop Neo4j for a while, start it again.

A supervisor restarts projectors that exit on their own (as a service manager would) and
counts each such exit: one bad record must never stop a projector.
"""

from __future__ import annotations

import signal
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

from provgraph.infra.process import wait_until

from .plan import BROKER, KILL, NEO4J, ZOMBIE, ChaosPlan
from .stack import ChaosStack, Proc

STARTUP_GRACE_S = 6.0


@dataclass
class FaultLog:
    """What was injected, and what broke without being asked to."""

    injected: Counter[str] = field(default_factory=Counter)
    timeline: list[str] = field(default_factory=list)
    unexpected_exits: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def note(self, t0: float, text: str) -> None:
        self.timeline.append(f"{time.monotonic() - t0:6.1f}s {text}")


class Faults(threading.Thread):
    """Runs the plan's schedule (each fault at its time, or after the previous one ends)."""

    def __init__(self, stack: ChaosStack, plan: ChaosPlan, log: FaultLog, t0: float) -> None:
        super().__init__(name="chaos-faults", daemon=True)
        self.stack, self.plan, self.log, self.t0 = stack, plan, log, t0
        self.rng = plan.rng("faults")
        self.stop_event = threading.Event()

    def run(self) -> None:
        for at, kind in self.plan.schedule:
            if self.stop_event.wait(max(0.0, self.t0 + at - time.monotonic())):
                return
            with self.stack.fault_lock:
                try:
                    self._inject(kind)
                    self.log.injected[kind] += 1
                except Exception as exc:  # a fault that could not be injected is a finding
                    self.log.errors.append(f"{kind}: {type(exc).__name__}: {exc}")
                    self.log.note(self.t0, f"{kind} FAILED: {exc}")

    def _inject(self, kind: str) -> None:
        if kind == KILL:
            self._kill(self._victim())
        elif kind == ZOMBIE:
            self._zombie(self._victim())
        elif kind == BROKER:
            self._broker()
        elif kind == NEO4J:
            self._neo4j()

    def _victim(self) -> tuple[int, Proc]:
        running = list(self.stack.running_projectors())
        if not running:
            raise RuntimeError("no projector is running")
        return self.rng.choice(running)

    def _kill(self, victim: tuple[int, Proc]) -> None:
        n, proc = victim
        proc.kill9()
        pause = self.rng.uniform(1.0, 4.0)
        self.log.note(self.t0, f"{KILL}: projector-{n} killed, restart in {pause:.1f}s")
        time.sleep(pause)
        proc.start()
        # Past its start-up (topics, schema, group join) before the next fault may begin: a
        # projector started while the broker is down exits, and a service manager restarts it.
        if wait_until(lambda: proc.pid() is None, STARTUP_GRACE_S):
            self.log.unexpected_exits.append(f"projector-{n} exited at start:\n{proc.log_tail(12)}")
            proc.start()

    def _zombie(self, victim: tuple[int, Proc]) -> None:
        n, proc = victim
        proc.signal(signal.SIGSTOP)
        proc.paused = True
        self.log.note(self.t0, f"{ZOMBIE}: projector-{n} stopped for {self.plan.zombie_s:.0f}s")
        time.sleep(self.plan.zombie_s)
        proc.signal(signal.SIGCONT)
        proc.paused = False
        self.log.note(self.t0, f"{ZOMBIE}: projector-{n} continued")

    def _broker(self) -> None:
        hard = self.rng.random() < 0.5
        self.log.note(self.t0, f"{BROKER}: {'SIGKILL' if hard else 'stop'}")
        if hard:
            self.stack.kafka.kill()
        else:
            self.stack.kafka.stop()
        time.sleep(self.rng.uniform(1.0, 4.0))
        self.stack.kafka.start(timeout_s=120.0)
        self.log.note(self.t0, f"{BROKER}: broker back")

    def _neo4j(self) -> None:
        self.log.note(self.t0, f"{NEO4J}: stopping for {self.plan.neo4j_down_s:.0f}s")
        self.stack.neo4j.stop()
        time.sleep(self.plan.neo4j_down_s)
        self.stack.neo4j.start(timeout_s=180.0)
        self.log.note(self.t0, f"{NEO4J}: Neo4j back")


class Supervisor(threading.Thread):
    """Restarts a projector that exited on its own (outside a fault) and records why."""

    def __init__(self, stack: ChaosStack, log: FaultLog, t0: float) -> None:
        super().__init__(name="chaos-supervisor", daemon=True)
        self.stack, self.log, self.t0 = stack, log, t0
        self.stop_event = threading.Event()
        # A projector that dies at every start (a poison record) is restarted ever more slowly.
        self._delay = [2.0] * len(stack.projectors)
        self._next = [0.0] * len(stack.projectors)

    def run(self) -> None:
        while not self.stop_event.wait(1.0):
            self.check()

    def check(self) -> None:
        """One look at every projector (skipped while a fault is in progress)."""
        if not self.stack.fault_lock.acquire(blocking=False):
            return
        try:
            for n, proc in enumerate(self.stack.projectors):
                if proc.pid() is None and time.monotonic() >= self._next[n]:
                    self._restart(n, proc)
        finally:
            self.stack.fault_lock.release()

    def _restart(self, n: int, proc: Proc) -> None:
        tail = proc.log_tail(12)
        self.log.unexpected_exits.append(f"projector-{n} exited:\n{tail}")
        self.log.note(self.t0, f"projector-{n} exited on its own; restarting")
        proc.start()
        self._next[n] = time.monotonic() + self._delay[n]
        self._delay[n] = min(self._delay[n] * 2, 30.0)
