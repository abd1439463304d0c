"""The chaos harness: a seeded randomised run of producers, attacks and faults on a private
stack, and the audit of what it left (tests/e2e/test_chaos.py runs it).

- `plan`: the seed, the time, the fault schedule, the attacks chosen;
- `stack`: private Kafka and Neo4j, the ingest service and a projector group as processes;
- `workload`, `hostile`: the legitimate jobs and the attacks;
- `producers`, `attacker`: the threads that send them, entering each record in the `ledger`;
- `faults`: kill -9, zombie, broker restart, Neo4j stop, and the projectors' supervisor;
- `audit`: the invariants; `run`: one run from start to findings.
"""

from .plan import ChaosPlan, timeout_s
from .run import Result, run_chaos

__all__ = ["ChaosPlan", "Result", "run_chaos", "timeout_s"]
