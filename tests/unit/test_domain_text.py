"""The shared folds and the CJK ranges: what each fold keeps, and which characters count as CJK."""

from __future__ import annotations

import re

import pytest

from health_ltm.domain.text import CJK, UNSPACED, fold, fold_case, fold_in_place


def test_fold_compares_quotes_whatever_the_case_spacing_and_yo():
    assert fold("  Ёлка\u00a0 и\tЕЛЬ\n") == "елка и ель"
    assert fold("Straße") == "strasse"  # case-folded, not only lower-cased


@pytest.mark.parametrize("text", ["İstanbul", "Ёж’s Ёлка", "ΣΑΣ", "", "Мой\u00a0дом"])
def test_fold_in_place_keeps_every_offset(text):
    folded = fold_in_place(text)
    assert len(folded) == len(text)
    assert folded == fold_in_place(folded)


def test_fold_in_place_and_fold_case_differ_only_where_offsets_or_apostrophes_need_it():
    assert fold_in_place("Ёж’s") == "еж's" and fold_case("Ёж’s") == "еж’s"
    assert len(fold_case("İ")) == 2  # plain lower(): the embedder's tokens stay as they were
    assert fold_in_place("İ") == "i"


@pytest.mark.parametrize(
    ("char", "chinese"),
    [
        ("\u3400", True),  # Extension A, first
        ("\u4db5", True),  # Extension A
        ("\u4e2d", True),  # 中
        ("\u9fff", True),
        ("\ufa0e", True),  # a unified ideograph in the compatibility block (NFKC keeps it)
        ("\u4dc0", False),  # a Yijing hexagram: a symbol between Extension A and the basic block
        ("\u3042", False),  # hiragana
        ("\uac00", False),  # hangul
        ("a", False),
    ],
)
def test_cjk_is_the_ideographs_with_extension_a_and_the_compatibility_block(char, chinese):
    assert bool(CJK.search(char)) is chinese


def test_unspaced_scripts_add_kana_and_hangul_to_the_ideographs():
    unspaced = re.compile(f"[{UNSPACED}]")
    assert all(unspaced.search(ch) for ch in "\u3042\u30a2\uac00\u4e2d\ufa0e")
    assert not unspaced.search("\u4dc0")
