"""The conventions a policy enforces, judged from mutations alone
(`projection.conventions_rule` through `discipline.judge`)."""

from __future__ import annotations

from support.conventions_story import ROOT, checkpoint, conventions_policy, event, run
from support.record_policy import logged

from provgraph.ingest.projection import project_event
from provgraph.ingest.projection.conventions_rule import (
    NameBreaksRule,
    PlaceRefused,
    PlaceTaken,
    named,
)
from provgraph.ingest.projection.discipline import RecordFacts, judge, places_wanted
from provgraph.ingest.projection.mutations import own_node
from provgraph.schemas.conventions import NamedKind

P = "vision"


def _reasons(verdicts: list) -> list[str | None]:
    return [None if v is None else v.reason for v in verdicts]


def test_by_the_log_only_what_follows_the_policy_is_judged() -> None:
    changes = logged(
        [
            run(P, "early", 1, "anything"),
            conventions_policy(P),
            run(P, "a", 1, "sft-r1"),
            run(P, "b", 2, "tmp"),
            checkpoint(P, "a", 1, f"{ROOT}/c/1"),
            checkpoint(P, "a", 2, "s3://other/c/2"),
            checkpoint(P, "a", 3, "file:///home/ann/c"),
        ]
    )
    verdicts = judge(changes, RecordFacts())
    assert (
        _reasons(verdicts) == [None, None, None, "name_breaks_rule", None] + ["place_refused"] * 2
    )
    broken = verdicts[3]
    assert isinstance(broken, NameBreaksRule) and broken.suggestion == "sft-r2"
    assert "name it 'sft-r2'" in str(broken)
    refused = verdicts[5]
    assert isinstance(refused, PlaceRefused) and refused.roots == (ROOT,)


def test_at_ingest_the_requests_own_policy_counts_for_what_follows_it() -> None:
    changes = [project_event(e) for e in (conventions_policy(P), run(P, "b", 2, "tmp"))]
    assert _reasons(judge(changes, RecordFacts(), by_log=False)) == [None, "name_breaks_rule"]


def test_nothing_is_enforced_without_the_requirement() -> None:
    payload = {"names": {"run": "x-*"}, "storage_roots": [ROOT]}
    lax = event(P, "project.policy.set", payload)
    changes = logged([lax, run(P, "b", 2, "tmp"), checkpoint(P, "b", 1, "file:///tmp/x")])
    assert _reasons(judge(changes, RecordFacts())) == [None, None, None]


def test_the_facts_of_each_kind() -> None:
    started = project_event(run(P, "a", 3, "sft-r3"))
    kind, name, facts = named(started, own_node(started))  # type: ignore[arg-type,misc]
    assert (kind, name) == (NamedKind.RUN, "sft-r3")
    assert facts["experiment"] == "sft" and facts["run_number"] == "3"
    assert facts["run_id"] == f"{P}-a" and facts["date"] == "20260501"
    image = {"key": "train", "image": {"name": "registry/train", "tag": "1.0"}}
    snap = project_event(event(P, "environment.snapshot.recorded", image))
    _, image_name, env_facts = named(snap, own_node(snap))  # type: ignore[arg-type,misc]
    assert (image_name, env_facts["environment"]) == ("registry/train:1.0", "train")
    bare = project_event(event(P, "environment.snapshot.recorded", {"key": "bare"}))
    assert named(bare, own_node(bare)) is None  # type: ignore[arg-type]
    registered = {"name": "chat", "version": "v1", "produced_by_run": f"run:{P}-a"}
    mv = project_event(event(P, "model.version.registered", registered))
    _, version, mv_facts = named(mv, own_node(mv))  # type: ignore[arg-type,misc]
    assert (version, mv_facts["model"], mv_facts["run_id"]) == ("v1", "chat", f"{P}-a")


def test_one_uri_holds_one_jobs_output() -> None:
    shared = f"{ROOT}/ckpt/shared"
    changes = logged(
        [
            conventions_policy(P),
            run(P, "a", 1, "sft-r1"),
            run(P, "d", 1, "dpo-r1", "dpo"),
            checkpoint(P, "a", 1, shared),
            checkpoint(P, "a", 2, shared),  # the same job again: fine
            checkpoint(P, "d", 1, shared),  # another experiment's run: taken
        ]
    )
    verdicts = judge(changes, RecordFacts())
    assert _reasons(verdicts) == [None] * 5 + ["place_taken"]
    found = verdicts[5]
    assert isinstance(found, PlaceTaken)
    assert (found.other, found.other_job) == (f"checkpoint:{P}-a/1", f"experiment:{P}/sft")
    # What the store holds counts as well: read once the project requires places.
    stored = RecordFacts(writers={shared: [("checkpoint:old/1", "experiment:other")]})
    again = logged([conventions_policy(P), run(P, "a", 1, "sft-r1"), checkpoint(P, "a", 1, shared)])
    assert _reasons(judge(again, stored)) == [None, None, "place_taken"]
    assert places_wanted(again, RecordFacts()) == ([shared], [f"run:{P}-a"])
    lax = logged([run(P, "a", 1, "sft-r1"), checkpoint(P, "a", 1, shared)])
    assert places_wanted(lax, RecordFacts()) == ([], [])  # no project requires places
