"""The authenticator's bounded cache and rate limits: random tokens cost a bounded number of
store reads, never push out valid tokens, and answer 429 with `Retry-After` past the limits."""

from __future__ import annotations

from collections import Counter

import pytest
from fastapi import Depends, FastAPI
from fastapi.testclient import TestClient
from support.memory_stores import MemoryPrincipals

from provgraph.authz import (
    Authenticator,
    AuthLimits,
    AuthUnavailableError,
    Principal,
    RateLimitedError,
    UnauthenticatedError,
    hash_token,
    new_token,
)
from provgraph.authz.limits import LruMap, TokenBuckets
from provgraph.authz.web import authenticate
from provgraph.core.http import install_error_handlers


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class CountingPrincipals(MemoryPrincipals):
    """Counts store reads per token hash."""

    def __init__(self, principals: dict[str, Principal]) -> None:
        super().__init__(principals)
        self.reads: Counter[str] = Counter()

    def lookup(self, token_hash: str) -> Principal | None:
        self.reads[token_hash] += 1
        return super().lookup(token_hash)


def bearer(token: str) -> str:
    return f"Bearer {token}"


def test_lru_map_evicts_the_least_recently_used() -> None:
    lru: LruMap[str, int] = LruMap(2)
    lru.put("a", 1)
    lru.put("b", 2)
    assert lru.get("a") == 1  # "a" is now the most recent
    lru.put("c", 3)
    assert ("a" in lru, "b" in lru, "c" in lru, len(lru)) == (True, False, True, 2)
    with pytest.raises(ValueError):
        LruMap(0)


def test_token_bucket_refills_at_its_rate() -> None:
    buckets = TokenBuckets(rate_per_s=2.0, burst=3, max_entries=10)
    assert [buckets.take("k", 0.0) for _ in range(4)] == [True, True, True, False]
    assert buckets.retry_after_s("k", 0.0) == 1
    assert buckets.take("k", 0.5) and not buckets.take("k", 0.5)  # one token in 0.5 s
    assert buckets.take("other", 0.5)  # buckets are per key
    assert buckets.available("k", 10.0) == 3  # never above the burst
    off = TokenBuckets(rate_per_s=0, burst=1, max_entries=1)
    assert all(off.take("k", 0.0) for _ in range(100))


def _authn(
    valid: dict[str, Principal], limits: AuthLimits, clock: Clock
) -> tuple[Authenticator, CountingPrincipals]:
    source = CountingPrincipals({hash_token(t): p for t, p in valid.items()})
    return Authenticator(source, cache_s=1.0, limits=limits, clock=clock), source


def test_random_tokens_never_evict_valid_ones() -> None:
    token, clock = new_token(), Clock()
    limits = AuthLimits(cache_entries=4, failure_rate_per_s=0)
    authn, source = _authn({token: Principal("user:a")}, limits, clock)
    assert authn.authenticate(bearer(token)).name == "user:a"
    for _ in range(50):
        with pytest.raises(UnauthenticatedError):
            authn.authenticate(bearer(new_token()), "10.0.0.1")
    assert authn.authenticate(bearer(token)).name == "user:a"
    assert source.reads[hash_token(token)] == 1  # still the cached answer: not pushed out


def test_valid_tokens_are_an_lru_of_their_own() -> None:
    tokens, clock = [new_token() for _ in range(3)], Clock()
    valid = {t: Principal(f"user:{i}") for i, t in enumerate(tokens)}
    authn, source = _authn(valid, AuthLimits(cache_entries=2), clock)
    for t in (tokens[0], tokens[1], tokens[0], tokens[2]):  # tokens[1] is the least recent
        authn.authenticate(bearer(t))
    authn.authenticate(bearer(tokens[0]))
    authn.authenticate(bearer(tokens[1]))
    assert [source.reads[hash_token(t)] for t in tokens] == [1, 2, 1]


def test_unknown_tokens_are_cached_briefly() -> None:
    unknown, clock = new_token(), Clock()
    authn, source = _authn({}, AuthLimits(), clock)
    for _ in range(5):
        with pytest.raises(UnauthenticatedError):
            authn.authenticate(bearer(unknown))
    assert source.reads[hash_token(unknown)] == 1
    clock.now += 1.01  # past the bound: a token issued meanwhile works now
    source.principals[hash_token(unknown)] = Principal("user:new")
    assert authn.authenticate(bearer(unknown)).name == "user:new"


def test_failed_authentications_are_limited_per_address() -> None:
    clock = Clock()
    limits = AuthLimits(failure_rate_per_s=2.0, failure_burst=5)
    authn, source = _authn({}, limits, clock)
    answers = []
    for _ in range(20):
        try:
            authn.authenticate(bearer(new_token()), "10.0.0.1")
        except (UnauthenticatedError, RateLimitedError) as exc:
            answers.append(exc.status)
    assert answers == [401] * 5 + [429] * 15
    assert sum(source.reads.values()) == 5  # past the budget, no store read at all
    with pytest.raises(RateLimitedError) as limited:
        authn.authenticate(None, "10.0.0.1")  # no token at all: the same budget
    assert limited.value.headers() == {"Retry-After": "1"}
    assert limited.value.code == "rate_limited"
    with pytest.raises(UnauthenticatedError):
        authn.authenticate(bearer(new_token()), "10.0.0.2")  # another address: its own budget
    clock.now += 1.0  # two tokens back
    with pytest.raises(UnauthenticatedError):
        authn.authenticate(bearer(new_token()), "10.0.0.1")


def test_a_known_token_passes_while_its_address_is_throttled() -> None:
    token, clock = new_token(), Clock()
    limits = AuthLimits(failure_rate_per_s=0.5, failure_burst=2)
    authn, source = _authn({token: Principal("user:a")}, limits, clock)
    authn.authenticate(bearer(token), "10.0.0.1")
    for _ in range(5):
        with pytest.raises((UnauthenticatedError, RateLimitedError)):
            authn.authenticate(bearer(new_token()), "10.0.0.1")
    clock.now += 1.01  # the valid answer is stale; half a failure token: still throttled
    with pytest.raises(RateLimitedError):
        authn.authenticate(bearer(new_token()), "10.0.0.1")
    assert authn.authenticate(bearer(token), "10.0.0.1").name == "user:a"
    assert source.reads[hash_token(token)] == 2  # re-read: a revocation still applies


def test_requests_per_token_are_limited() -> None:
    token, other, clock = new_token(), new_token(), Clock()
    valid = {token: Principal("user:a"), other: Principal("user:b")}
    authn, _ = _authn(valid, AuthLimits(token_rate_per_s=10.0, token_burst=3), clock)
    for _ in range(3):
        authn.authenticate(bearer(token))
    with pytest.raises(RateLimitedError) as limited:
        authn.authenticate(bearer(token))
    assert limited.value.status == 429 and limited.value.retry_after_s == 1
    assert "requests with this token" in limited.value.message
    assert authn.authenticate(bearer(other)).name == "user:b"  # each token its own bucket
    clock.now += 0.15
    assert authn.authenticate(bearer(token)).name == "user:a"


class BrokenPrincipals:
    def lookup(self, token_hash: str) -> Principal | None:
        raise OSError("bolt://10.1.2.3:7687 refused: secret detail")


def test_a_store_error_answers_without_its_text() -> None:
    authn = Authenticator(BrokenPrincipals())
    with pytest.raises(AuthUnavailableError) as caught:
        authn.authenticate(bearer(new_token()))
    assert caught.value.status == 503
    assert "secret" not in str(caught.value.body()) and "10.1.2.3" not in caught.value.message


def test_http_answers_429_with_retry_after() -> None:
    app = FastAPI()
    install_error_handlers(app)
    limits = AuthLimits(failure_rate_per_s=0.5, failure_burst=1)
    app.state.authenticator = Authenticator(MemoryPrincipals(), limits=limits)

    @app.get("/x", dependencies=[Depends(authenticate)])
    def route() -> None: ...

    with TestClient(app) as http:
        first = http.get("/x", headers={"Authorization": bearer(new_token())})
        second = http.get("/x", headers={"Authorization": bearer(new_token())})
    assert first.status_code == 401
    assert second.status_code == 429 and second.headers["Retry-After"] == "2"
    assert second.json()["error"]["code"] == "rate_limited"
    assert second.json()["error"]["details"] == {"retry_after_s": 2}
