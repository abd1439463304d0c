"""The attacker of the chaos run: a thread that sends hostile records among the legitimate
ones, each straight to Kafka (where nothing refuses it) or through HTTP ingest with an
ordinary writer token (where it should be refused up front)."""

from __future__ import annotations

import threading
import time
from collections import Counter

import httpx

from .hostile import Arsenal, Attack
from .ledger import HTTP, RAW_KAFKA, Ledger, Sent, of_raw
from .plan import ChaosPlan
from .producers import RawKafka, post
from .stack import ChaosStack

WARM_UP_S = 6.0
"""No attack before the victims have something applied to aim at."""
OVERTIME_S = 180.0
"""How long after the fault window a kind never sent yet may still find its target: a long
outage early in the window (a Neo4j restart taking a minute under load) can leave nothing
applied to aim at until the window ends."""


class Attacker(threading.Thread):
    """Sends one attack every 0.3-1 s until stopped."""

    def __init__(
        self, stack: ChaosStack, plan: ChaosPlan, ledger: Ledger, projects: list[str]
    ) -> None:
        super().__init__(name="chaos-attacker", daemon=True)
        self.stack, self.plan, self.ledger, self.projects = stack, plan, ledger, projects
        self.rng = plan.rng("attacker")
        self.arsenal = Arsenal(plan.rng("arsenal"), ledger.acked_events)
        s = stack.settings
        self.raw = RawKafka(s.kafka_bootstrap, s.events_topic, retry_for_s=20.0)
        self.client = httpx.Client(timeout=10.0)
        self.stop_event = threading.Event()
        self.overtime = threading.Event()
        self.failures: list[str] = []
        self.sent: Counter[str] = Counter()

    def run(self) -> None:
        if not self.plan.hostile or self.stop_event.wait(WARM_UP_S):
            return
        # Shuffled rounds of every kind, so that even a short run tries each one; a kind with
        # no target yet is tried again in the next turn.
        todo: list[str] = []
        while not self.stop_event.wait(self.rng.uniform(0.3, 1.0)):
            if self.overtime.is_set():  # only the kinds never sent, until each has been
                todo = [kind for kind in todo if not self.sent[kind]]
                if not todo and not self._unsent():
                    return
            if not todo:
                kinds = self._unsent() if self.overtime.is_set() else list(self.plan.hostile)
                todo = self.rng.sample(kinds, k=len(kinds))
            kind = todo.pop(0)
            try:
                if not self._attack(kind):
                    todo.append(kind)  # no target yet: the other kinds first
            except Exception as exc:  # a harness error must not end the attacks unseen
                self.failures.append(f"{kind}: {type(exc).__name__}: {exc}")

    def finish(self, timeout_s: float = OVERTIME_S) -> None:
        """End the attacks: at once for the kinds sent, within `timeout_s` for the others."""
        self.overtime.set()
        self.join(timeout=timeout_s)
        self.stop_event.set()
        self.join(timeout=60)

    def _unsent(self) -> list[str]:
        return [kind for kind in self.plan.hostile if not self.sent[kind]]

    def _attack(self, kind: str) -> bool:
        attacker, victim = self.rng.sample(self.projects, 2)
        attack = self.arsenal.build(kind, attacker, victim, self.stack.applied)
        if attack is None:
            return False
        self._send(attack, self.rng.choice((RAW_KAFKA, HTTP)))
        self.sent[kind] += 1
        return True

    def _send(self, attack: Attack, channel: str) -> None:
        entry = of_raw(channel, attack.kind, attack.value, attack.event_id, attack.project)
        entry.expected_reasons, entry.expected_statuses = attack.reasons, attack.statuses
        self.ledger.add(entry)
        if channel == RAW_KAFKA:
            where = self.raw.send(attack.key, attack.value)
            if where is not None:
                self.ledger.ack(entry, where)
            return
        self._post(attack, entry)

    def _post(self, attack: Attack, entry: Sent) -> None:
        token = self.stack.tokens[attack.token_project]
        body = b"[" + attack.value + b"]"
        for _ in range(4):  # "try later" answers only; a refusal is final
            status, answer = post(self.client, self.stack.ingest_url, token, body)
            self.ledger.answered([entry], status)
            if status == 202:
                where = answer["events"][0]
                self.ledger.ack(entry, (where["partition"], where["offset"]))
                return
            if status not in (0, 503):
                return
            time.sleep(1.0)

    def close(self) -> None:
        self.raw.close()
        self.client.close()
