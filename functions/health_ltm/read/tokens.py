"""Token counting for the context budget, offline, with the target model family's tokenizer.

Uses OpenAI's o200k_base encoding through the ``bpe_openai`` package (tiktoken-compatible ids,
no download at run time). Importing ``bpe_openai`` takes about half a second, so it is never
imported with this module: the encoding is loaded on first use and cached, and
``warm_up_in_background()`` lets a handler load it at init while it serves nothing yet.
If ``bpe_openai`` is not installed, counts fall back to an estimate of one token per 3.5
characters; ``tokenizer_name()`` tells which one is in use.
"""

from __future__ import annotations

import math
import threading
from typing import Any

ENCODING = "o200k_base"
FALLBACK = "chars/3.5"
_CHARS_PER_TOKEN = 3.5


_lock = threading.Lock()
_state: dict[str, Any] = {}  # "encoding": the loaded encoding or None, once loaded


def _encoding() -> Any | None:
    """The o200k_base encoding, or None when bpe_openai is unavailable; loaded once."""
    if "encoding" not in _state:
        with _lock:  # a request and the warm-up thread may ask at the same moment
            if "encoding" not in _state:
                _state["encoding"] = _load()
    return _state["encoding"]


def _load() -> Any | None:
    try:
        import bpe_openai  # lazy on purpose: the import alone takes ~0.45 s
    except ImportError:
        return None
    return bpe_openai.get_encoding(ENCODING)


def tokenizer_name() -> str:
    return ENCODING if _encoding() is not None else FALLBACK


def is_ready() -> bool:
    """True once the exact tokenizer is loaded (or known to be unavailable)."""
    return "encoding" in _state


def count_tokens(text: str, wait: bool = True) -> int:
    """Exact o200k_base count. With ``wait=False`` (the hot read path) and the tokenizer still
    loading in the background, an upper-bound estimate is returned instead of blocking, so a
    budget computed with it is still respected."""
    if not text:
        return 0
    if not wait and not is_ready():
        return estimate_upper_bound(text)
    encoding = _encoding()
    if encoding is None:
        return math.ceil(len(text) / _CHARS_PER_TOKEN)
    # encode_ordinary: user text such as "<|endoftext|>" is plain text here, never a special token.
    return len(encoding.encode_ordinary(text))


def estimate_upper_bound(text: str) -> int:
    """Over-estimate: a CJK character is at most a token, other text runs well above 2 characters
    per token in o200k_base (about 4 for English, 3 for Russian)."""
    cjk = sum(1 for ch in text if "\u3000" <= ch <= "\u9fff" or "\uac00" <= ch <= "\ud7af")
    return cjk + math.ceil((len(text) - cjk) / 2)


def truncate_to_tokens(text: str, max_tokens: int) -> str:
    """The longest prefix of ``text`` within ``max_tokens`` tokens (never a broken character)."""
    if max_tokens <= 0 or not text:
        return ""
    encoding = _encoding()
    if encoding is None:
        return text[: int(max_tokens * _CHARS_PER_TOKEN)]
    tokens = encoding.encode_ordinary(text)
    if len(tokens) <= max_tokens:
        return text
    keep = max_tokens
    while True:
        # A token may end inside a multi-byte character: drop the incomplete tail.
        prefix = encoding.decode_bytes(tokens[:keep]).decode("utf-8", errors="ignore")
        # Re-encoding a cut text can merge differently; shrink until it fits.
        if keep == 0 or len(encoding.encode_ordinary(prefix)) <= max_tokens:
            return prefix
        keep -= 1


def warm_up_in_background() -> threading.Thread:
    """Load the tokenizer in a daemon thread so the first request does not pay for it."""
    thread = threading.Thread(target=_encoding, name="tokenizer-warm-up", daemon=True)
    thread.start()
    return thread
