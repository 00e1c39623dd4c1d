"""Token counting for the context budget, offline, with the target model family's tokenizer.

OpenAI's o200k_base encoding (gpt-4o / gpt-4.1 family) from the ``bpe-openai`` package's Rust
core. Importing the package the ordinary way costs ~0.45 s (its Python wrapper decodes every
bundled encoding's rank file); the Rust extension alone loads in ~1 ms and builds o200k_base from
its embedded tables in ~50 ms, so this module loads the extension directly, on first use.
If the package is missing, counts fall back to an estimate; ``tokenizer_name()`` says which.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import math
import os
import threading
from typing import Any

ENCODING = "o200k_base"
FALLBACK = "estimate"

_lock = threading.Lock()
_state: dict[str, Any] = {}  # "tokenizer": the loaded tokenizer, or None when unavailable


def _tokenizer() -> Any | None:
    if "tokenizer" not in _state:
        with _lock:  # two threads may ask at the same moment
            if "tokenizer" not in _state:
                _state["tokenizer"] = _load()
    return _state["tokenizer"]


def _load() -> Any | None:
    spec = importlib.util.find_spec("bpe_openai")  # finds the package without running its __init__
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = next(iter(spec.submodule_search_locations))
    binary = next(
        (f for f in os.listdir(folder) if f.startswith("_bindings.") and f.endswith((".so", ".pyd"))), None
    )
    if binary is None:
        return None
    loader = importlib.machinery.ExtensionFileLoader("bpe_openai._bindings", os.path.join(folder, binary))
    module_spec = importlib.util.spec_from_file_location("bpe_openai._bindings", loader.path, loader=loader)
    if module_spec is None:
        return None
    module = importlib.util.module_from_spec(module_spec)
    loader.exec_module(module)
    return module.tokenizer_for_encoding(ENCODING)


def is_ready() -> bool:
    """True once the tokenizer is loaded (or known to be unavailable)."""
    return "tokenizer" in _state


def tokenizer_name() -> str:
    return ENCODING if _tokenizer() is not None else FALLBACK


def count_tokens(text: str) -> int:
    """Exact o200k_base count (loading the tokenizer on first use, ~50 ms)."""
    if not text:
        return 0
    tokenizer = _tokenizer()
    if tokenizer is None:
        return estimate_upper_bound(text)
    return int(tokenizer.count(text))


def estimate_upper_bound(text: str) -> int:
    """Over-estimate for ordinary text: a CJK character is at most a token, other text runs well
    above 2 characters per token in o200k_base (about 4 for English, 3 for Russian)."""
    cjk = sum(1 for ch in text if "\u3000" <= ch <= "\u9fff" or "\uac00" <= ch <= "\ud7af")
    return cjk + math.ceil((len(text) - cjk) / 2)
