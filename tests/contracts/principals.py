"""The principals store's contract (`authz.PrincipalSource`): who a token hash belongs to, with
its global roles and its roles per project, as the token and grant events folded into the graph
leave them. The in-memory stand-in of the unit tests (`support.memory_stores.MemoryPrincipals`)
and `authz.Neo4jPrincipals` over what the Neo4j writer stored answer the same.

Token and grant events are ordered by the log's time (`projection/governance.py`): each event
here is folded with the log time it is given, `at(n)`, and the answer never depends on the
order in which the folded events reach the store.

A subclass per adapter gives `fresh()`: a store over a graph that holds nothing of this test's
principals and projects, and how to apply projected events to it; and `prefix`, unique to the
test, which every principal and project name of the test starts with.
"""

from __future__ import annotations

import itertools
import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta

from provgraph.authz import Principal, PrincipalSource
from provgraph.authz.admin import access_event, token_issued, token_revoked
from provgraph.authz.tokens import hash_token, new_token
from provgraph.ingest.projection import project_event
from provgraph.ingest.projection.mutations import EventMutations, LogStamp
from provgraph.schemas import AccessGranted, Event
from provgraph.schemas.events.governance import AccessGrantedPayload, AccessRole
from provgraph.schemas.events.tokens import GlobalRole
from provgraph.schemas.storage import format_time

Apply = Callable[[Sequence[EventMutations]], None]

ACTOR = "user:contract"
START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


def at(n: int) -> str:
    """The log time of the n-th step of a test (string order = step order)."""
    return format_time(START + timedelta(seconds=n))


class PrincipalsContract(ABC):
    """What every principals store answers for a token hash."""

    prefix: str

    @abstractmethod
    def fresh(self) -> tuple[PrincipalSource, Apply]:
        """A store with nothing of this test yet, and how to apply projected events to it."""

    # -- what a test folds ---------------------------------------------------------------------

    def name(self, who: str) -> str:
        return f"user:{self.prefix}-{who}"

    def slug(self, which: str) -> str:
        return f"{self.prefix}-{which}"

    def fold(self, apply: Apply, *steps: tuple[Event, int]) -> None:
        """Apply each event with the log time of its step, in the order given."""
        apply([project_event(event, LogStamp(logged_at=at(n))) for event, n in steps])

    def grant(self, who: str, project: str, role: AccessRole, *, grant: bool = True) -> Event:
        return access_event(self.name(who), self.slug(project), role, ACTOR, grant=grant)

    def grant_until(self, who: str, project: str, role: AccessRole, until: datetime) -> Event:
        payload = AccessGrantedPayload(
            principal=self.name(who), project=self.slug(project), role=role, expires_at=until
        )
        return AccessGranted.create(
            project=self.slug(project), producer="https://t/1", actor=ACTOR, payload=payload
        )

    def issued(self, who: str, *roles: GlobalRole) -> tuple[str, Event]:
        token = new_token()
        return hash_token(token), token_issued(self.name(who), token, list(roles), ACTOR)

    def revoked(self, who: str) -> Event:
        return token_revoked(self.name(who), ACTOR, "contract")

    def roles(self, **by_project: set[str]) -> dict[str, frozenset[str]]:
        return {self.slug(p): frozenset(r) for p, r in by_project.items()}

    # -- tokens --------------------------------------------------------------------------------

    def test_an_unknown_or_malformed_hash_is_nobody(self) -> None:
        store, apply = self.fresh()
        known, event = self.issued("a")
        self.fold(apply, (event, 1))
        assert store.lookup(hash_token(new_token())) is None
        for odd in ("", "sha256:", known.upper(), known[:-1], known + "0", known.split(":")[1]):
            assert store.lookup(odd) is None

    def test_an_issued_token_names_its_principal_and_global_roles(self) -> None:
        store, apply = self.fresh()
        plain, a = self.issued("plain")
        audit, b = self.issued("audit", GlobalRole.AUDITOR)
        both, c = self.issued("both", GlobalRole.ADMIN, GlobalRole.AUDITOR)
        self.fold(apply, (a, 1), (b, 2), (c, 3))
        assert store.lookup(plain) == Principal(self.name("plain"))
        assert store.lookup(audit) == Principal(self.name("audit"), frozenset({"auditor"}))
        found = store.lookup(both)
        assert found == Principal(self.name("both"), frozenset({"admin", "auditor"}))
        assert found is not None and found.is_global_admin and found.may_use_cypher

    def test_a_revoked_token_is_nobody_and_a_token_issued_after_works(self) -> None:
        store, apply = self.fresh()
        first, issued = self.issued("a", GlobalRole.AUDITOR)
        self.fold(apply, (issued, 1), (self.revoked("a"), 2))
        assert store.lookup(first) is None
        second, reissued = self.issued("a")
        self.fold(apply, (reissued, 3))
        assert store.lookup(first) is None
        assert store.lookup(second) == Principal(self.name("a"))  # its roles, not the old ones

    def test_a_revocation_at_the_same_log_time_as_the_issue_wins(self) -> None:
        store, apply = self.fresh()
        token, issued = self.issued("a")
        self.fold(apply, (issued, 1), (self.revoked("a"), 1))
        assert store.lookup(token) is None

    def test_a_revocation_logged_before_the_issue_does_not_touch_it(self) -> None:
        store, apply = self.fresh()
        token, issued = self.issued("a")
        self.fold(apply, (self.revoked("a"), 1))  # a revocation of nothing yet
        self.fold(apply, (issued, 2))
        assert store.lookup(token) == Principal(self.name("a"))

    def test_a_rotation_replaces_the_hash_and_the_roles(self) -> None:
        store, apply = self.fresh()
        old, first = self.issued("a", GlobalRole.ADMIN)
        new, second = self.issued("a", GlobalRole.AUDITOR)
        self.fold(apply, (first, 1), (second, 2))
        assert store.lookup(old) is None
        assert store.lookup(new) == Principal(self.name("a"), frozenset({"auditor"}))

    def test_the_answer_does_not_depend_on_the_order_the_events_arrive_in(self) -> None:
        """issue (1), revoke (2), re-issue (3), a rotation logged earlier (0): in six arrival
        orders (each event first in some), each event in a batch of its own, the token of step
        3 alone works."""
        orders = list(itertools.permutations(range(4)))[::4]
        for k, order in enumerate(orders):
            store, apply = self.fresh()
            who = f"a{k}"
            h0, e0 = self.issued(who, GlobalRole.ADMIN)
            h1, e1 = self.issued(who)
            h3, e3 = self.issued(who, GlobalRole.AUDITOR)
            steps = [(e1, 1), (self.revoked(who), 2), (e3, 3), (e0, 0)]
            for i in order:
                self.fold(apply, steps[i])
            assert [store.lookup(h0), store.lookup(h1)] == [None, None], order
            want = Principal(self.name(who), frozenset({"auditor"}))
            assert store.lookup(h3) == want, order

    def test_a_copy_of_an_applied_event_changes_nothing(self) -> None:
        store, apply = self.fresh()
        token, issued = self.issued("a")
        revoke = self.revoked("a")
        self.fold(apply, (issued, 2), (issued, 2))
        self.fold(apply, (issued, 2))
        assert store.lookup(token) == Principal(self.name("a"))
        self.fold(apply, (revoke, 3), (revoke, 3))
        assert store.lookup(token) is None
        self.fold(apply, (issued, 2))
        assert store.lookup(token) is None

    def test_many_principals_each_answer_their_own(self) -> None:
        store, apply = self.fresh()
        issued = [
            self.issued(f"p{i}", *([GlobalRole.AUDITOR] if i % 3 == 0 else [])) for i in range(60)
        ]
        self.fold(apply, *((event, i) for i, (_, event) in enumerate(issued)))
        self.fold(apply, *((self.revoked(f"p{i}"), 100) for i in range(0, 60, 5)))
        for i, (token, _) in enumerate(issued):
            want = None
            if i % 5:
                want = Principal(self.name(f"p{i}"), frozenset({"auditor"} if i % 3 == 0 else ()))
            assert store.lookup(token) == want, i

    # -- grants --------------------------------------------------------------------------------

    def test_a_principal_without_grants_has_no_project_roles(self) -> None:
        store, apply = self.fresh()
        token, issued = self.issued("a")
        self.fold(apply, (issued, 1), (self.grant("b", "p", AccessRole.READER), 2))
        found = store.lookup(token)
        assert found is not None and found.roles == {}

    def test_grants_are_per_project_and_per_role(self) -> None:
        store, apply = self.fresh()
        token, issued = self.issued("a")
        self.fold(
            apply,
            (issued, 1),
            (self.grant("a", "p", AccessRole.READER), 2),
            (self.grant("a", "p", AccessRole.WRITER), 3),
            (self.grant("a", "q", AccessRole.DELETE), 4),
            (self.grant("a", "p", AccessRole.READER), 5),  # granted again: still one role
        )
        assert store.lookup(token) == Principal(
            self.name("a"), roles=self.roles(p={"reader", "writer"}, q={"delete"})
        )

    def test_grants_come_whether_logged_before_or_after_the_token(self) -> None:
        store, apply = self.fresh()
        token, issued = self.issued("a")
        self.fold(apply, (self.grant("a", "p", AccessRole.AUDITOR), 1))
        self.fold(apply, (issued, 2), (self.grant("a", "q", AccessRole.ADMIN), 3))
        assert store.lookup(token) == Principal(
            self.name("a"), roles=self.roles(p={"auditor"}, q={"admin"})
        )

    def test_a_revoked_grant_is_gone_and_the_last_in_the_log_wins(self) -> None:
        store, apply = self.fresh()
        token, issued = self.issued("a")
        reader, writer = AccessRole.READER, AccessRole.WRITER
        self.fold(
            apply,
            (issued, 1),
            (self.grant("a", "p", reader), 2),
            (self.grant("a", "p", writer), 3),
            (self.grant("a", "q", reader), 4),
        )
        # Arriving in reverse: the revoke of reader on p is logged last, that of q first.
        self.fold(apply, (self.grant("a", "p", reader, grant=False), 6))
        self.fold(apply, (self.grant("a", "q", reader, grant=False), 3))
        assert store.lookup(token) == Principal(
            self.name("a"), roles=self.roles(p={"writer"}, q={"reader"})
        )
        self.fold(apply, (self.grant("a", "p", reader), 5))  # logged before the revoke: loses
        self.fold(apply, (self.grant("a", "p", writer, grant=False), 7))
        assert store.lookup(token) == Principal(self.name("a"), roles=self.roles(q={"reader"}))
        self.fold(apply, (self.grant("a", "p", reader), 8))
        assert store.lookup(token) == Principal(
            self.name("a"), roles=self.roles(p={"reader"}, q={"reader"})
        )

    def test_an_expired_grant_is_left_out_and_an_open_one_replaces_it(self) -> None:
        store, apply = self.fresh()
        token, issued = self.issued("a")
        past, future = datetime(2020, 1, 1, tzinfo=UTC), datetime(2999, 1, 1, tzinfo=UTC)
        self.fold(
            apply,
            (issued, 1),
            (self.grant_until("a", "p", AccessRole.READER, past), 2),
            (self.grant_until("a", "p", AccessRole.WRITER, future), 3),
            (self.grant_until("a", "q", AccessRole.READER, past), 4),
        )
        assert store.lookup(token) == Principal(self.name("a"), roles=self.roles(p={"writer"}))
        self.fold(apply, (self.grant("a", "q", AccessRole.READER), 5))  # open-ended now
        self.fold(apply, (self.grant_until("a", "p", AccessRole.WRITER, past), 6))
        assert store.lookup(token) == Principal(self.name("a"), roles=self.roles(q={"reader"}))

    def test_grants_of_a_name_that_extends_another_stay_its_own(self) -> None:
        """`user:x-a` and `user:x-a.reader`, `user:x-ab`: property names are
        `access.<principal>.<role>`, and one principal's prefix must not read another's."""
        store, apply = self.fresh()
        token, issued = self.issued("a")
        longer, issued_longer = self.issued("a.reader")
        self.fold(
            apply,
            (issued, 1),
            (issued_longer, 2),
            (self.grant("a.reader", "p", AccessRole.WRITER), 3),
            (self.grant("a.b", "p", AccessRole.READER), 4),
            (self.grant("ab", "q", AccessRole.READER), 5),
            (self.grant("a", "r", AccessRole.AUDITOR), 6),
        )
        assert store.lookup(token) == Principal(self.name("a"), roles=self.roles(r={"auditor"}))
        assert store.lookup(longer) == Principal(
            self.name("a.reader"), roles=self.roles(p={"writer"})
        )

    def test_a_revoked_token_takes_its_grants_with_it_until_reissued(self) -> None:
        store, apply = self.fresh()
        first, issued = self.issued("a")
        self.fold(apply, (issued, 1), (self.grant("a", "p", AccessRole.WRITER), 2))
        self.fold(apply, (self.revoked("a"), 3))
        assert store.lookup(first) is None
        second, reissued = self.issued("a")
        self.fold(apply, (reissued, 4))
        assert store.lookup(second) == Principal(self.name("a"), roles=self.roles(p={"writer"}))

    def test_every_grant_of_many_projects_comes_back(self) -> None:
        """No page or limit: 120 projects, two roles each, and every role on one project."""
        store, apply = self.fresh()
        token, issued = self.issued("a", GlobalRole.AUDITOR)
        grants = [
            (self.grant("a", f"p{i}", role), 2 + i)
            for i in range(120)
            for role in (AccessRole.READER, AccessRole.WRITER)
        ]
        every = [(self.grant("a", "all", role), 300) for role in AccessRole]
        others = [(self.grant("b", f"p{i}", AccessRole.ADMIN), 400) for i in range(0, 120, 7)]
        self.fold(apply, (issued, 1), *grants, *every, *others)
        want = {self.slug(f"p{i}"): frozenset({"reader", "writer"}) for i in range(120)}
        want[self.slug("all")] = frozenset(role.value for role in AccessRole)
        assert store.lookup(token) == Principal(self.name("a"), frozenset({"auditor"}), want)


def unique_prefix() -> str:
    """A prefix of names no other test uses (principal names and project slugs)."""
    return f"pc{uuid.uuid4().hex[:10]}"
