"""Token counting: o200k_base offline, loaded lazily, with a truncation that never overshoots."""

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


@pytest.mark.parametrize("limit", [1, 2, 3, 5, 8, 13, 40])
def test_truncation_keeps_a_prefix_within_the_limit(limit):
    text = "Аллергия на пенициллин: крапивница. Penicillin allergy: hives. 青霉素过敏。 " * 5
    cut = tokens.truncate_to_tokens(text, limit)
    assert text.startswith(cut)
    assert 0 < tokens.count_tokens(cut) <= limit
    assert "\ufffd" not in cut


def test_truncation_leaves_short_text_alone_and_zero_gives_nothing():
    assert tokens.truncate_to_tokens("короткий текст", 100) == "короткий текст"
    assert tokens.truncate_to_tokens("короткий текст", 0) == ""
    assert tokens.truncate_to_tokens("", 5) == ""


def test_truncation_never_splits_a_multibyte_character():
    # One CJK character can span several tokens' bytes; a cut inside it must drop it whole.
    text = "𠜎𠜱𠝹𠱓" * 10
    for limit in range(1, 12):
        cut = tokens.truncate_to_tokens(text, limit)
        assert text.startswith(cut)
        assert "\ufffd" not in cut


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


def test_background_warm_up_loads_it_in_a_daemon_thread():
    out = run_python(
        "import sys; from health_ltm.read import tokens;"
        "t = tokens.warm_up_in_background(); t.join(30);"
        "print(t.daemon, 'bpe_openai._bindings' in sys.modules, tokens.tokenizer_name())"
    )
    assert out == "True True o200k_base"


def test_without_bpe_openai_counts_fall_back_to_an_estimate(monkeypatch):
    monkeypatch.setattr(tokens, "_state", {"tokenizer": None})
    assert tokens.tokenizer_name() == tokens.FALLBACK
    assert tokens.count_tokens("abcdefg") == math.ceil(7 / 2)
    assert tokens.truncate_to_tokens("abcdefghij", 2) == "abcd"
