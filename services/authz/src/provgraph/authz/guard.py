"""Authentication with a short cache: the one place a bearer token becomes a `Principal`."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from provgraph.authz.errors import AuthUnavailableError, UnauthenticatedError
from provgraph.authz.model import DEV_PRINCIPAL, Principal
from provgraph.authz.store import PrincipalSource
from provgraph.authz.tokens import bearer_token, hash_token

logger = logging.getLogger(__name__)

DEFAULT_CACHE_S = 1.0
_MAX_ENTRIES = 10_000


class Authenticator:
    """Turns an ``Authorization`` header into a `Principal`, or raises `UnauthenticatedError`.

    Answers (known and unknown tokens alike) are reused for at most `cache_s` seconds, so a
    revocation or a grant applies to every request made `cache_s` after the projector applied
    it. With `disabled`, every caller is `DEV_PRINCIPAL` (development only).
    """

    def __init__(
        self,
        source: PrincipalSource | None,
        *,
        cache_s: float = DEFAULT_CACHE_S,
        disabled: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if source is None and not disabled:
            raise ValueError("an Authenticator needs a PrincipalSource unless disabled")
        self._source = source
        self.cache_s = cache_s
        self.disabled = disabled
        self._clock = clock
        self._lock = threading.Lock()
        self._cache: dict[str, tuple[float, Principal | None]] = {}

    def authenticate(self, authorization: str | None) -> Principal:
        """The caller of a request with this ``Authorization`` header (blocking: a thread)."""
        if self.disabled:
            return DEV_PRINCIPAL
        token = bearer_token(authorization)
        if token is None:
            raise UnauthenticatedError()
        principal = self._lookup(hash_token(token))
        if principal is None:
            raise UnauthenticatedError()
        return principal

    def _lookup(self, token_hash: str) -> Principal | None:
        now = self._clock()
        with self._lock:
            cached = self._cache.get(token_hash)
        if cached is not None and now - cached[0] < self.cache_s:
            return cached[1]
        assert self._source is not None
        try:
            principal = self._source.lookup(token_hash)
        except Exception as exc:  # the store is down: not the caller's fault, retry later
            logger.warning("cannot read principals: %s", exc)
            raise AuthUnavailableError(f"the permission store cannot be read: {exc}") from exc
        with self._lock:
            if len(self._cache) >= _MAX_ENTRIES:
                self._cache.clear()
            self._cache[token_hash] = (now, principal)
        return principal


def warn_if_disabled(authenticator: Authenticator, service: str) -> None:
    """Log, loudly and at every start, that a service runs without authentication."""
    if authenticator.disabled:
        logger.warning(
            "AUTHENTICATION IS DISABLED for the %s service (PROVGRAPH_AUTH_DISABLED=true): "
            "every caller is a global admin. Never run like this outside development.",
            service,
        )
