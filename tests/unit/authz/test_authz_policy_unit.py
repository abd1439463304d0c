"""`project.policy.set`: who may set a project's policy, and the command that builds it."""

from __future__ import annotations

import pytest

from provgraph.authz import ForbiddenError, Principal, authorize_events
from provgraph.authz.admin import policy_set
from provgraph.cli.main import build_parser

pytestmark = pytest.mark.unit


def test_a_project_admin_sets_the_policy_a_writer_may_not() -> None:
    event = policy_set("p", "user:pa", require_conclusion=True, reason="write it down")
    assert (event.event_type, event.subject) == ("project.policy.set", "project:p")
    assert event.payload.require_conclusion is True
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


def test_policy_set_needs_the_rule_stated() -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["policy", "set", "llm-pretrain"])
