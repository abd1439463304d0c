"""`project.policy.set`: who may set a project's policy, and the command that builds it."""

from __future__ import annotations

import pytest

from provgraph.authz import ForbiddenError, Principal, authorize_events
from provgraph.authz.admin import policy_set
from provgraph.authz.cli import describe, policy_event
from provgraph.cli.main import build_parser

pytestmark = pytest.mark.unit


def test_a_project_admin_sets_the_policy_a_writer_may_not() -> None:
    event = policy_set("p", "user:pa", require_conclusion=True, reason="write it down")
    assert (event.event_type, event.subject) == ("project.policy.set", "project:p")
    assert event.payload.required.run == ("conclusion",)
    authorize_events(Principal("user:pa", roles={"p": frozenset({"admin"})}), [event])
    writer = Principal("user:w", roles={"p": frozenset({"writer"})})
    with pytest.raises(ForbiddenError) as refused:
        authorize_events(writer, [event])
    assert refused.value.status == 403
    assert refused.value.details["right"] == "admin"
    assert refused.value.details["project"] == "p"
    other_admin = Principal("user:qa", roles={"q": frozenset({"admin"})})
    with pytest.raises(ForbiddenError, match="'admin' right on project 'p'"):
        authorize_events(other_admin, [event])


@pytest.mark.parametrize(
    ("flag", "required"), [("--require-conclusion", True), ("--no-require-conclusion", False)]
)
def test_policy_set_parses_the_project_and_the_rule(flag: str, required: bool) -> None:
    args = build_parser().parse_args(["policy", "set", "llm-pretrain", flag, "--reason", "why"])
    assert (args.project, args.require_conclusion, args.reason) == ("llm-pretrain", required, "why")


def test_policy_set_needs_the_rule_stated(capsys: pytest.CaptureFixture[str]) -> None:
    args = build_parser().parse_args(["policy", "set", "llm-pretrain"])
    assert args.func(args) == 2  # nothing appended: the log is never reached
    assert "state the policy" in capsys.readouterr().err


def test_policy_set_states_the_required_elements_of_each_kind() -> None:
    argv = ["policy", "set", "vision", "--require", "run:inputs,code", "--require", "run:code"]
    argv += ["--require", "dataset_version:licence", "--require-passed-gates"]
    event = policy_event(build_parser().parse_args([*argv, "--require-conclusion"]))
    assert event.schema_version == 3
    assert event.payload.required.run == ("code", "conclusion", "inputs")
    assert event.payload.required.dataset_version == ("licence",)
    assert event.payload.required.model_version == ()
    assert event.payload.require_passed_gates is True
    assert describe(event.payload) == (
        "run requires code, conclusion, inputs; dataset_version requires "
        "licence; runs train only on dataset versions whose quality checks passed"
    )
    assert describe(policy_set("p", "u:a", require_conclusion=False).payload) == "requires nothing"


@pytest.mark.parametrize(
    ("given", "named"),
    [
        ("run:code,commit", "'commit' is not an element of a run record"),
        ("checkpoint:uri", "'checkpoint' is not a kind of record"),
        ("run:", "no element is an element of a run record"),
    ],
)
def test_an_unknown_kind_or_element_is_refused_naming_it(
    given: str, named: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        build_parser().parse_args(["policy", "set", "vision", "--require", given])
    assert stopped.value.code == 2
    assert named in capsys.readouterr().err
