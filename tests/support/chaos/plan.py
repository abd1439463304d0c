"""The plan of a chaos run: its seed, how long faults go on, which faults and attacks.

The short form (the default, part of `make test`) injects every kind of fault once or twice
in about a minute; `--chaos-long` (or PROVGRAPH_CHAOS_SECONDS=600) keeps going for ten minutes.
`--chaos-seed N` (or PROVGRAPH_CHAOS_SEED) repeats a run's choices: the producers' ids and
payloads, the attacks and the fault schedule (timing against real servers still varies).
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, field
from typing import Any

from .hostile import KINDS

SHORT_S = 60.0
LONG_S = 600.0
# Setup (two private servers, ingest, projectors, tokens), drain and audit, beyond the faults.
OVERHEAD_S = 600.0

KILL, ZOMBIE, BROKER, NEO4J = "projector-kill-9", "projector-zombie", "broker-restart", "neo4j-stop"
FAULTS = (KILL, ZOMBIE, BROKER, NEO4J)


def _option(config: Any, name: str) -> Any:
    return config.getoption(name, default=None) if config is not None else None


def fault_seconds(config: Any = None) -> float:
    """How long faults go on: the environment, else the long or the short form."""
    if os.environ.get("PROVGRAPH_CHAOS_SECONDS"):
        return float(os.environ["PROVGRAPH_CHAOS_SECONDS"])
    return LONG_S if _option(config, "--chaos-long") else SHORT_S


def timeout_s(config: Any = None) -> float:
    """The whole test's time limit (pytest-timeout)."""
    return fault_seconds(config) * 1.5 + OVERHEAD_S


@dataclass(frozen=True)
class ChaosPlan:
    """Everything a run chooses up front."""

    seed: int
    seconds: float
    hostile: tuple[str, ...] = KINDS
    projects: int = 3
    projectors: int = 3
    partitions: int = 4
    session_timeout_ms: int = 6000  # the broker's group.min.session.timeout.ms
    schedule: list[tuple[float, str]] = field(default_factory=list)

    @classmethod
    def from_config(cls, config: Any = None) -> ChaosPlan:
        given = _option(config, "--chaos-seed") or os.environ.get("PROVGRAPH_CHAOS_SEED")
        seed = int(given) if given else random.SystemRandom().randrange(1, 10**9)
        seconds = fault_seconds(config)
        wanted = os.environ.get("PROVGRAPH_CHAOS_HOSTILE", "all")
        hostile = KINDS if wanted == "all" else tuple(k for k in wanted.split(",") if k)
        unknown = set(hostile) - set(KINDS)
        if unknown:
            raise ValueError(f"PROVGRAPH_CHAOS_HOSTILE: unknown kinds {sorted(unknown)}: {KINDS}")
        return cls(seed, seconds, hostile, schedule=schedule(random.Random(seed), seconds))

    @property
    def long(self) -> bool:
        return self.seconds > SHORT_S * 2

    @property
    def neo4j_down_s(self) -> float:
        return 20.0 if self.long else 8.0

    @property
    def zombie_s(self) -> float:
        """How long a projector stays stopped: past its session, so the group evicts it."""
        return self.session_timeout_ms / 1000 + 4.0

    def rng(self, purpose: str) -> random.Random:
        """A generator of its own for each producer or injector, derived from the seed."""
        return random.Random(f"{self.seed}:{purpose}")

    def describe(self) -> str:
        faults = ", ".join(f"{at:.0f}s {kind}" for at, kind in self.schedule)
        return (
            f"chaos seed {self.seed}: {self.seconds:.0f} s of faults ({faults}); "
            f"{self.projects} projects, {self.projectors} projectors, "
            f"attacks: {', '.join(self.hostile) or 'none'}"
        )


def schedule(rng: random.Random, seconds: float) -> list[tuple[float, str]]:
    """When each fault starts (seconds into the window), spread out and never overlapping:
    the short form has each kind once and a second kill; a long run repeats shuffled rounds."""
    if seconds <= SHORT_S * 2:
        kinds = [*FAULTS, KILL]
        rng.shuffle(kinds)
    else:
        kinds = []
        while len(kinds) < max(4, int(seconds // 25)):
            block = list(FAULTS)
            rng.shuffle(block)
            kinds += block
    slot = seconds / (len(kinds) + 0.5)
    return [(slot * (n + 0.25) + rng.uniform(0, slot * 0.25), kind) for n, kind in enumerate(kinds)]
