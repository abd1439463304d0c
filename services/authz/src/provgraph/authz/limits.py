"""Bounded memory for the authenticator: an LRU map and per-key token buckets.

Both hold at most `max_entries` keys and forget the least recently used one first, so a flood
of new keys (random bearer tokens, many client addresses) costs a bounded amount of memory and
pushes out only other entries of the same map, never all of them at once.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class LruMap(Generic[K, V]):
    """A dict bounded to `max_entries` keys, evicting the least recently used (not thread-safe:
    the owner locks)."""

    def __init__(self, max_entries: int) -> None:
        if max_entries < 1:
            raise ValueError(f"max_entries must be at least 1, got {max_entries}")
        self.max_entries = max_entries
        self._items: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        """The value of `key` (now the most recently used), or None."""
        value = self._items.get(key)
        if value is not None:
            self._items.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.max_entries:
            self._items.popitem(last=False)

    def pop(self, key: K) -> None:
        self._items.pop(key, None)

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items


@dataclass
class _Bucket:
    tokens: float
    at: float


class TokenBuckets:
    """One token bucket per key: `burst` tokens, refilled at `rate_per_s`; a key's bucket
    starts full. `rate_per_s <= 0` turns the limit off (every take succeeds)."""

    def __init__(self, rate_per_s: float, burst: int, max_entries: int) -> None:
        self.rate_per_s = rate_per_s
        self.burst = max(1, burst)
        self._buckets: LruMap[str, _Bucket] = LruMap(max_entries)

    @property
    def enabled(self) -> bool:
        return self.rate_per_s > 0

    def available(self, key: str, now: float) -> float:
        """Tokens `key` has now (refilled, not taken)."""
        if not self.enabled:
            return float(self.burst)
        return self._refill(key, now).tokens

    def take(self, key: str, now: float) -> bool:
        """Take one token of `key`; False (and nothing taken) when its bucket is empty."""
        if not self.enabled:
            return True
        bucket = self._refill(key, now)
        if bucket.tokens < 1:
            return False
        bucket.tokens -= 1
        return True

    def retry_after_s(self, key: str, now: float) -> int:
        """Whole seconds until `key` has a token again (at least 1)."""
        missing = 1 - self.available(key, now)
        return max(1, math.ceil(missing / self.rate_per_s)) if self.enabled else 1

    def _refill(self, key: str, now: float) -> _Bucket:
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = _Bucket(float(self.burst), now)
            self._buckets.put(key, bucket)
        elapsed = max(0.0, now - bucket.at)
        bucket.tokens = min(float(self.burst), bucket.tokens + elapsed * self.rate_per_s)
        bucket.at = now
        return bucket
