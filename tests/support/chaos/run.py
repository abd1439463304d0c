"""One chaos run from start to audit: stack up, tokens, traffic and faults for the planned
time, drain, then the audit; the result holds the findings and prints the counts."""

from __future__ import annotations

import logging
import shutil
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .attacker import Attacker
from .audit import Audit, Findings
from .faults import FaultLog, Faults, Supervisor
from .ledger import Ledger
from .plan import ChaosPlan
from .producers import start_producers, stop_producers
from .stack import ChaosStack

PROJECTS = ("alpha", "beta", "gamma", "delta", "epsilon")
DRAIN_S = 150.0
"""How long the projectors get, after the last producer stopped, to apply everything."""


@dataclass
class Result:
    """What a run did and found."""

    plan: ChaosPlan
    ledger: Ledger
    faults: FaultLog = field(default_factory=FaultLog)
    findings: Findings = field(default_factory=Findings)
    phases: dict[str, float] = field(default_factory=dict)
    attacks: Counter[str] = field(default_factory=Counter)
    kept_logs: Path | None = None

    @property
    def failed(self) -> bool:
        return bool(self.findings.failures)

    def report(self) -> str:
        f = self.findings
        lines = [self.plan.describe()]
        lines.append("time: " + ", ".join(f"{k} {v:.0f}s" for k, v in self.phases.items()))
        lines += _block("acknowledged records by producer/kind", self.ledger.counts())
        lines += _block("hand-overs (producer outcome: requests)", self.ledger.answers)
        lines += _block("attacks sent by kind", self.attacks)
        lines += _block("hostile records refused over HTTP (kind -> status)", self.ledger.refused())
        lines += _block("faults injected", self.faults.injected)
        lines.append(f"projector exits on their own: {len(self.faults.unexpected_exits)}")
        lines += _block("dead letters by reason", f.dead_letters)
        lines += _block("outcomes of the records in the log", f.counts)
        lines += ["timeline:", *(f"  {t}" for t in self.faults.timeline)]
        notes = sorted(set(f.notes))
        lines += [f"note: {n}" for n in notes[:12]]
        if len(notes) > 12:
            lines.append(f"note: ... and {len(notes) - 12} more")
        lines += f.lines()
        if self.kept_logs is not None:
            lines.append(f"service logs kept in {self.kept_logs}")
        verdict = "FAILED" if self.failed else "passed"
        lines.append(f"chaos run {verdict}; repeat it with --chaos-seed {self.plan.seed}")
        return "\n".join(lines)


def _block(title: str, counts: Any) -> list[str]:
    items = sorted(counts.items())
    return [f"{title}:", *(f"  {k}: {v}" for k, v in items)] if items else [f"{title}: none"]


def run_chaos(home: Path, kafka: Any, neo4j: Any, plan: ChaosPlan) -> Result:
    """Run `plan` on the private servers `kafka` and `neo4j`; never raises for a finding."""
    result = Result(plan, Ledger())
    projects = [f"chaos-{name}" for name in PROJECTS[: plan.projects]]
    started = time.monotonic()
    # The clients' own complaints while servers come and go would bury the run's report.
    kafka_log = logging.getLogger("kafka")
    level = kafka_log.level
    kafka_log.setLevel(logging.CRITICAL)
    try:
        _run(home, kafka, neo4j, result, projects)
    finally:
        kafka_log.setLevel(level)
    result.phases["total"] = time.monotonic() - started
    _write_answers(home, result.ledger)
    if result.failed:
        result.kept_logs = _keep_logs(home, plan.seed)
    return result


def _keep_logs(home: Path, seed: int) -> Path:
    """Copy the services' logs where pytest's temporary-directory cleanup does not reach."""
    kept = Path(tempfile.gettempdir()) / f"provgraph-chaos-{seed}"
    kept.mkdir(parents=True, exist_ok=True)
    for log in home.glob("*.log"):
        shutil.copy(log, kept / log.name)
    return kept


def _write_answers(home: Path, ledger: Ledger) -> None:
    """Every producer's hand-over, timed, beside the services' logs."""
    (home / "producers.log").write_text("\n".join(ledger.timeline) + "\n")


def _run(home: Path, kafka: Any, neo4j: Any, result: Result, projects: list[str]) -> None:
    started, plan = time.monotonic(), result.plan
    with ChaosStack(home, kafka, neo4j, plan, result.ledger) as stack:
        stack.start()
        stack.issue_tokens(projects)
        result.phases["setup"] = time.monotonic() - started
        t0 = time.monotonic()
        supervisor = Supervisor(stack, result.faults, t0)
        supervisor.start()
        try:
            _traffic_and_faults(stack, result, projects, home / "spool", t0)
            mark = time.monotonic()
            lag = stack.wait_idle(DRAIN_S)
            result.phases["drain"] = time.monotonic() - mark
        finally:
            supervisor.stop_event.set()
            supervisor.join(timeout=30)
        _check_projection(result, lag)
        mark = time.monotonic()
        _audit(stack, result)
        result.phases["audit"] = time.monotonic() - mark


def _traffic_and_faults(
    stack: ChaosStack, result: Result, projects: list[str], spool: Path, t0: float
) -> None:
    plan = result.plan
    producers = start_producers(stack, plan, result.ledger, projects, spool)
    attacker = Attacker(stack, plan, result.ledger, projects)
    faults = Faults(stack, plan, result.faults, t0)
    attacker.start()
    faults.start()
    try:
        time.sleep(plan.seconds)
        faults.join(timeout=plan.seconds + 300)  # a fault that started late runs to its end
    finally:
        faults.stop_event.set()
        attacker.finish()
        attacker.close()
        result.attacks = attacker.sent
        for failure in attacker.failures:
            result.findings.fail("the attacker could not send", failure)
        for kind in sorted(set(plan.hostile) - set(attacker.sent)):
            result.findings.fail("an attack never sent (no target in time)", kind)
        result.phases["faults"] = time.monotonic() - t0
        mark = time.monotonic()
        for failure in stop_producers(producers):
            result.findings.fail("a producer could not deliver", failure)
        result.phases["producers' flush"] = time.monotonic() - mark


def _check_projection(result: Result, lag: dict[int, int]) -> None:
    if lag:
        result.findings.fail("projection did not catch up", f"records left per partition {lag}")
    for text in result.faults.unexpected_exits:
        result.findings.fail("a projector exited on its own", text)
    for text in result.faults.errors:
        result.findings.fail("a fault could not be injected", text)


def _audit(stack: ChaosStack, result: Result) -> None:
    findings = Audit(stack.settings, stack.driver, result.ledger).run()
    for category, examples in result.findings.failures.items():
        findings.failures[category].extend(examples)
    result.findings = findings
