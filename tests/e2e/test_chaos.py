"""The randomised proof: producers, attacks and faults at once, then every record accounted for.

SDK (Kafka and HTTP transports), HTTP ingest and raw Kafka producers write training jobs of
several projects, each with its own writer token, while an attacker sends cross-project
takeovers, reused event ids, values the store cannot hold, far-future times and unknown
types, and the harness kills projectors with SIGKILL, pauses one past its session (a zombie),
restarts the Kafka broker and stops Neo4j. The servers are private to this test.

At the end (tests/support/chaos/audit.py): every acknowledged record is applied or
dead-lettered, never both, never neither; hostile records are refused or dead-lettered with
their reason and have no effect; the graph hash equals the fold of the legitimate records.

`--chaos-seed N` repeats a run's choices; `--chaos-long` (or PROVGRAPH_CHAOS_SECONDS=600)
runs ten minutes of faults instead of the short form; PROVGRAPH_CHAOS_HOSTILE=kind,kind
narrows the attacks (see tests/support/chaos/hostile.py for the kinds).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.chaos import ChaosPlan, run_chaos

pytestmark = pytest.mark.chaos


def test_acknowledged_records_survive_faults_and_attacks(
    private_kafka: Any, private_neo4j: Any, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    plan = ChaosPlan.from_config(request.config)
    print(f"\n{plan.describe()}", flush=True)
    result = run_chaos(tmp_path / "chaos", private_kafka, private_neo4j, plan)
    report = result.report()
    print(report, flush=True)
    assert not result.failed, f"chaos run failed (seed {plan.seed}):\n{report}"
