"""Token counting: o200k_base offline, loaded lazily, an estimate without it."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest

from health_ltm.read import tokens


def run_python(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.strip()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", 0),
        ("Hello, world!", 4),
        ("Можно ли мне ибупрофен от головной боли?", 12),
        ("我以前吃过什么药？", 7),
        ("hi <|endoftext|> there", 9),  # user text: a special token's name is plain text
    ],
)
def test_counts_of_known_strings_are_stable(text, expected):
    assert tokens.count_tokens(text) == expected


def test_the_target_models_tokenizer_is_in_use():
    assert tokens.tokenizer_name() == "o200k_base"


def test_importing_the_module_does_not_import_the_tokenizer():
    out = run_python(
        "import sys, health_ltm.read.tokens, health_ltm.read.classify;print('bpe_openai' in sys.modules)"
    )
    assert out == "False"


def test_first_count_loads_the_tokenizer():
    out = run_python(
        "import sys; from health_ltm.read.tokens import count_tokens;"
        "n = count_tokens('Hello, world!'); print('bpe_openai._bindings' in sys.modules, n)"
    )
    assert out == "True 4"


def test_without_bpe_openai_counts_fall_back_to_an_estimate(monkeypatch):
    monkeypatch.setattr(tokens, "_state", {"tokenizer": None})
    assert tokens.tokenizer_name() == tokens.FALLBACK
    assert tokens.count_tokens("abcdefg") == math.ceil(7 / 2)
