"""A small thread-safe map that forgets its oldest entries: the per-process caches.

The service keeps, per process, what never changes (a table's seats and ruleset, a
player's key) and what it can always check against the database or the log (a hand's
last written row and its rules state, keyed by the hand's event count). A bound keeps
memory flat however many tables a process has served.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["Bounded"]

K = TypeVar("K")
V = TypeVar("V")


class Bounded(Generic[K, V]):
    """A dict of at most ``size`` entries; storing past the bound drops the oldest."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._data: dict[K, V] = {}
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        return self._data.get(key)

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._data.pop(key, None)
            if len(self._data) >= self.size:
                del self._data[next(iter(self._data))]
            self._data[key] = value

    def pop(self, key: K) -> V | None:
        with self._lock:
            return self._data.pop(key, None)

    def get_or_make(self, key: K, make: Callable[[], V]) -> V:
        """The entry for ``key``, made and stored atomically when absent."""
        with self._lock:
            value = self._data.get(key)
            if value is None:
                if len(self._data) >= self.size:
                    del self._data[next(iter(self._data))]
                value = self._data[key] = make()
            return value

    def __len__(self) -> int:
        return len(self._data)
