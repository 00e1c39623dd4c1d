"""Sortable ids made by code (ULID), monotonic within a process so that history events
written in the same millisecond keep their order."""

from __future__ import annotations

import os
import threading
import time

_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_lock = threading.Lock()
_last_ms = -1
_last_random = 0


def _encode(value: int, length: int) -> str:
    chars = []
    for _ in range(length):
        value, rem = divmod(value, 32)
        chars.append(_ALPHABET[rem])
    return "".join(reversed(chars))


def new_ulid(now_ms: int | None = None) -> str:
    """A 26-character ULID; strictly increasing across calls in this process."""
    global _last_ms, _last_random
    with _lock:
        ms = int(time.time() * 1000) if now_ms is None else now_ms
        if ms <= _last_ms:
            ms = _last_ms
            _last_random += 1
        else:
            _last_random = int.from_bytes(os.urandom(10), "big") >> 1  # room to increment
        _last_ms = ms
        return _encode(ms, 10) + _encode(_last_random, 16)
