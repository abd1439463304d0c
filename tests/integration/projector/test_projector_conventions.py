"""A project's conventions in the projector, for events written straight to Kafka: after
`provgraph policy set --name-rule ... --require-names --storage-root ... --require-places`, a
run whose name breaks the rule is dead-lettered (``name_breaks_rule``), a checkpoint out of
place too (``place_refused``) and one at a URI another experiment's run wrote
(``place_taken``), also within a poll batch several times the ingest batch limit;
what was logged before the policy is kept, verify agrees and replay refuses the same records."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from neo4j import Driver
from support.conventions_story import ROOT, RULE, checkpoint, run
from test_projector_discipline import command_line_log, dead_letter_reasons, project_log, rebuilt

from provgraph.cli.main import main
from provgraph.ingest.graphread import read_graph
from provgraph.ingest.settings import IngestSettings
from provgraph.ingest.tools.verify import verify
from provgraph.schemas import MAX_BATCH_EVENTS


def test_the_projector_dead_letters_names_and_places(
    settings: IngestSettings,
    neo4j_driver: Driver,
    project: str,
    produce: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    before = run(project, "early", 9, "anything")
    produce(settings, [before], [])
    project_log(settings, neo4j_driver)
    command_line_log(settings, monkeypatch)
    rules = ["--name-rule", f"run={RULE}", "--require-names"]
    rules += ["--storage-root", ROOT, "--require-places"]
    assert main(["policy", "set", project, *rules]) == 0
    project_log(settings, neo4j_driver)

    good, bad = run(project, "a", 1, "sft-r1"), run(project, "b", 2, "tmp")
    inside = checkpoint(project, "a", 1, f"{ROOT}/ckpt/1")
    outside = checkpoint(project, "a", 2, "file:///tmp/ckpt/2")
    produce(settings, [good, bad, inside, outside], [])
    project_log(settings, neo4j_driver)
    # Then another experiment's run saving where sft-r1's checkpoint is stored.
    other = run(project, "d", 1, "dpo-r1", "dpo")
    clash = checkpoint(project, "d", 1, f"{ROOT}/ckpt/1")
    produce(settings, [other, clash], [])
    project_log(settings, neo4j_driver)
    reasons = {b"name_breaks_rule": 1, b"place_refused": 1, b"place_taken": 1}
    assert dead_letter_reasons(settings) == Counter(reasons)
    nodes = read_graph(neo4j_driver, project).nodes
    assert all(e.subject in nodes for e in (before, good, inside, other))
    assert all(e.subject not in nodes for e in (bad, outside, clash))

    # One poll batch three times the ingest batch limit: exactly those out of line refused.
    count = 3 * MAX_BATCH_EVENTS
    many = [run(project, f"m{n}", n, "x" if n % 7 == 0 else f"sft-r{n}") for n in range(1, count)]
    produce(settings, many, [])
    wide = settings.model_copy(update={"projector_max_batch": 4 * MAX_BATCH_EVENTS})
    project_log(wide, neo4j_driver)
    broken = sum(1 for n in range(1, count) if n % 7 == 0)
    reasons[b"name_breaks_rule"] += broken
    assert dead_letter_reasons(settings) == Counter(reasons)
    assert verify(settings, neo4j_driver, project) == []
    records = 1 + 1 + 4 + 2 + len(many)  # before, the policy, the four, the two, the many
    assert rebuilt(settings, neo4j_driver, project) == (records, records - 3 - broken, 3 + broken)
