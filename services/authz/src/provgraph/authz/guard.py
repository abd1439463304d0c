"""Authentication with a short, bounded cache and rate limits: the one place a bearer token
becomes a `Principal`."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from provgraph.authz.errors import AuthUnavailableError, RateLimitedError, UnauthenticatedError
from provgraph.authz.limits import LruMap, TokenBuckets
from provgraph.authz.model import DEV_PRINCIPAL, Principal
from provgraph.authz.store import PrincipalSource
from provgraph.authz.tokens import bearer_token, hash_token

logger = logging.getLogger(__name__)

DEFAULT_CACHE_S = 1.0
UNKNOWN_CLIENT = "unknown"


@dataclass(frozen=True)
class AuthLimits:
    """How much the authenticator remembers and how fast a caller may go (0 rate: no limit).

    `token_*`: requests per valid token; `failure_*`: failed authentications (no token, an
    unknown or revoked one) per client address, and lookups of never-seen tokens once that
    address is out of budget.
    """

    cache_entries: int = 10_000
    token_rate_per_s: float = 500.0
    token_burst: int = 1_000
    failure_rate_per_s: float = 20.0
    failure_burst: int = 100


@dataclass(frozen=True)
class _Known:
    at: float
    principal: Principal


class Authenticator:
    """Turns an ``Authorization`` header into a `Principal`, or raises `UnauthenticatedError`
    (401) or `RateLimitedError` (429).

    Answers (known and unknown tokens alike) are reused for at most `cache_s` seconds, so a
    revocation or a grant applies to every request made `cache_s` after the projector applied
    it. Valid and unknown tokens are kept in two separate LRU maps: unknown tokens, however
    many, never push out the entries of valid ones. A token once valid stays known (its
    principal re-read after `cache_s`); a never-seen token is looked up in the store only
    while its client address has failure budget left, so random tokens cost at most
    `failure_rate_per_s` store reads per address. With `disabled`, every caller is
    `DEV_PRINCIPAL` (development only).
    """

    def __init__(
        self,
        source: PrincipalSource | None,
        *,
        cache_s: float = DEFAULT_CACHE_S,
        disabled: bool = False,
        limits: AuthLimits | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if source is None and not disabled:
            raise ValueError("an Authenticator needs a PrincipalSource unless disabled")
        limits = limits or AuthLimits()
        self._source = source
        self.cache_s = cache_s
        self.disabled = disabled
        self._clock = clock
        self._lock = threading.Lock()
        self._known: LruMap[str, _Known] = LruMap(limits.cache_entries)
        self._unknown: LruMap[str, float] = LruMap(limits.cache_entries)
        entries = limits.cache_entries
        self._per_token = TokenBuckets(limits.token_rate_per_s, limits.token_burst, entries)
        self._failures = TokenBuckets(limits.failure_rate_per_s, limits.failure_burst, entries)

    def authenticate(self, authorization: str | None, client: str | None = None) -> Principal:
        """The caller of a request with this ``Authorization`` header, sent from address
        `client` (blocking: call it in a thread)."""
        if self.disabled:
            return DEV_PRINCIPAL
        address = client or UNKNOWN_CLIENT
        token = bearer_token(authorization)
        if token is None:
            raise self._failed(address)
        token_hash = hash_token(token)
        principal = self._principal(token_hash, address)
        if principal is None:
            raise self._failed(address)
        self._count_request(token_hash)
        return principal

    def _principal(self, token_hash: str, address: str) -> Principal | None:
        now = self._clock()
        with self._lock:
            known = self._known.get(token_hash)
            if known is not None and now - known.at < self.cache_s:
                return known.principal
            seen_unknown = self._unknown.get(token_hash)
            if seen_unknown is not None and now - seen_unknown < self.cache_s:
                return None
            if known is None and self._failures.available(address, now) < 1:
                raise self._limited(self._failures, address, now, "failed authentications")
        principal = self._lookup(token_hash)
        with self._lock:
            self._remember(token_hash, principal, now)
        return principal

    def _lookup(self, token_hash: str) -> Principal | None:
        assert self._source is not None
        try:
            return self._source.lookup(token_hash)
        except Exception as exc:  # the store is down: not the caller's fault, retry later
            logger.warning("cannot read principals: %s", exc)
            raise AuthUnavailableError("the permission store cannot be read; retry later") from exc

    def _remember(self, token_hash: str, principal: Principal | None, now: float) -> None:
        if principal is None:
            self._known.pop(token_hash)
            self._unknown.put(token_hash, now)
        else:
            self._unknown.pop(token_hash)
            self._known.put(token_hash, _Known(now, principal))

    def _failed(self, address: str) -> UnauthenticatedError | RateLimitedError:
        """The error of a failed authentication, charged to the client address."""
        now = self._clock()
        with self._lock:
            if self._failures.take(address, now):
                return UnauthenticatedError()
            return self._limited(self._failures, address, now, "failed authentications")

    def _count_request(self, token_hash: str) -> None:
        now = self._clock()
        with self._lock:
            if not self._per_token.take(token_hash, now):
                raise self._limited(self._per_token, token_hash, now, "requests with this token")

    @staticmethod
    def _limited(buckets: TokenBuckets, key: str, now: float, what: str) -> RateLimitedError:
        retry = buckets.retry_after_s(key, now)
        return RateLimitedError(
            f"too many {what} (over {buckets.rate_per_s:g} per second): retry after {retry} s",
            retry_after_s=retry,
        )


def warn_if_disabled(authenticator: Authenticator, service: str) -> None:
    """Log, loudly and at every start, that a service runs without authentication."""
    if authenticator.disabled:
        logger.warning(
            "AUTHENTICATION IS DISABLED for the %s service (PROVGRAPH_AUTH_DISABLED=true): "
            "every caller is a global admin. Never run like this outside development.",
            service,
        )
