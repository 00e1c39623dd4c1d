"""Quality filter (seed 001): noise and the replies to noise are dropped; short bursts are glued."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from health_ltm.domain.clock import FixedClock
from health_ltm.domain.models import Message, Role
from health_ltm.domain.sections import Section
from health_ltm.write.quality import filter_messages, reject_reason
from health_ltm.write.rules import RuleExtractor
from tests.unit.test_rules_table import NOW

REASONS = {
    "numbers_only",
    "punctuation_only",
    "one_word",
    "too_few_letters",
    "keyboard_mash",
    "reply_to_filtered",
}


def user(text: str) -> Message:
    return Message(role=Role.USER, text=text)


def bot(text: str) -> Message:
    return Message(role=Role.ASSISTANT, text=text)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("456", "numbers_only"),
        ("12:30", "numbers_only"),
        ("+7 999 123-45-67", "numbers_only"),
        ("!!!", "punctuation_only"),
        ("...", "punctuation_only"),
        ("", "punctuation_only"),
        ("   ", "punctuation_only"),
        ("да", "one_word"),
        ("привет", "one_word"),
        ("Энап", "one_word"),
        ("ок да", "too_few_letters"),
        ("я тут", "too_few_letters"),
        ("5 мг", "too_few_letters"),
        ("ыва", "keyboard_mash"),
        ("asdf", "keyboard_mash"),
        ("фывапролдж", "keyboard_mash"),
        ("qwerty", "keyboard_mash"),
        ("йцукен", "keyboard_mash"),
        ("ааааааа", "keyboard_mash"),
        ("хахахаха", "keyboard_mash"),
        ("sdfgh", "keyboard_mash"),
        ("ksdjfhskdjf", "keyboard_mash"),
        ("asdf qwerty zxcv", "keyboard_mash"),
    ],
)
def test_noise_is_recognised(text: str, reason: str) -> None:
    assert reject_reason(text) == reason


@pytest.mark.parametrize(
    "text",
    [
        "У меня аллергия на арахис",
        "мне 30 лет",
        "Мне 30",  # a number with a word is a statement in a health chat
        "I'm 34",
        "вешу 80",
        "Пью Энап 5 мг по утрам",
        "Третий день болит голова",
        "Про лор: был у врача",  # real words that sit on one keyboard row are not mash
        "ыва у меня аллергия на арахис",  # a stray mash word does not sink a real sentence
    ],
)
def test_real_statements_pass(text: str) -> None:
    assert reject_reason(text) is None


def test_ten_garbage_messages_in_a_row_are_all_dropped_with_the_replies() -> None:
    garbage = ["ыва", "456", "!!!", "asdf", "...", "qwerty", "ааааа", "123", "фывапролдж", "??"]
    messages = [m for g in garbage for m in (user(g), bot("Могу я чем-то помочь?"))]
    result = filter_messages(messages)
    assert result.all_filtered and result.kept == ()
    assert len(result.dropped) == 20
    assert set(result.reasons) == {"keyboard_mash", "numbers_only", "punctuation_only", "reply_to_filtered"}


@pytest.mark.parametrize(
    "garbage",
    [
        ["ок", "да", "ну", "хм", "ага", "лол", "угу", "ясно", "ладно", "ок"],  # fillers never glue
        [
            "кот",
            "стол",
            "окно",
            "синий",
            "дом",
            "лес",
            "река",
            "гора",
            "чай",
            "снег",
        ],  # too many to be a burst
        ["кот", "стол", "окно"],  # a short burst without an anchor is not a statement
        ["456", "789", "123", "1", "2", "3", "4", "5", "6", "7"],  # numbers glue into numbers
    ],
)
def test_garbage_runs_stay_garbage(garbage: list[str]) -> None:
    result = filter_messages([user(g) for g in garbage])
    assert result.all_filtered and result.glued == ()
    assert len(result.dropped) == len(garbage)


def test_glued_fragments_survive_and_reach_the_extractor() -> None:
    result = filter_messages([user("мне"), user("30"), user("лет"), bot("Понял!")])
    assert [m.text for m in result.kept] == ["мне 30 лет", "Понял!"]
    assert result.glued == ((0, 1, 2),) and result.dropped == ()
    [age] = RuleExtractor(clock=FixedClock(NOW)).extract(list(result.kept), [Section.DEMOGRAPHICS])
    assert age.attributes == {"birth_year": 1995} and age.evidence == "мне 30 лет"


def test_a_burst_with_a_dose_is_glued_into_one_statement() -> None:
    result = filter_messages([user("Пью Энап"), user("5 мг"), user("по утрам")])
    assert [m.text for m in result.kept] == ["Пью Энап 5 мг по утрам"]


def test_a_burst_keeps_the_time_of_its_last_piece() -> None:
    from datetime import UTC, datetime

    t1, t2 = datetime(2025, 1, 1, 10, tzinfo=UTC), datetime(2025, 1, 1, 10, 1, tzinfo=UTC)
    result = filter_messages(
        [Message(role=Role.USER, text="аллергия", at=t1), Message(role=Role.USER, text="на арахис", at=t2)]
    )
    assert [(m.text, m.at) for m in result.kept] == [("аллергия на арахис", t2)]


def test_the_reply_to_garbage_goes_the_reply_to_a_statement_stays() -> None:
    messages = [
        user("ыва"),
        bot("Не понял, уточните?"),
        user("У меня аллергия на арахис"),
        bot("Запомнил."),
    ]
    result = filter_messages(messages)
    assert [m.text for m in result.kept] == ["У меня аллергия на арахис", "Запомнил."]
    assert [(d.index, d.reason) for d in result.dropped] == [(0, "keyboard_mash"), (1, "reply_to_filtered")]
    assert not result.all_filtered


def test_an_assistant_opening_is_kept() -> None:
    result = filter_messages([bot("Здравствуйте! Чем помочь?"), user("У меня болит голова уже два дня")])
    assert len(result.kept) == 2


def test_a_one_word_answer_naming_a_known_term_is_kept_after_a_question() -> None:
    result = filter_messages([bot("На что у вас аллергия?"), user("пенициллин"), bot("Понял.")])
    assert [m.text for m in result.kept] == ["На что у вас аллергия?", "пенициллин", "Понял."]
    # the same word with no question before it is one-word noise, as in seed 001
    assert filter_messages([user("пенициллин")]).all_filtered


def test_a_fragment_without_user_words_is_all_filtered() -> None:
    assert filter_messages([]).all_filtered
    assert filter_messages([bot("Привет!")]).all_filtered


_PIECES = st.sampled_from(
    [
        "мне",
        "30",
        "лет",
        "ыва",
        "!!!",
        "ок",
        "У меня аллергия на арахис",
        "asdf",
        "пенициллин",
        "5 мг",
        "Пью Энап",
        "да",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.one_of(_PIECES, st.text(max_size=40))), max_size=12))
def test_every_message_is_accounted_for(turns: list[tuple[bool, str]]) -> None:
    messages = [user(t) if is_user else bot(t) for is_user, t in turns]
    result = filter_messages(messages)
    glued_away = sum(len(run) - 1 for run in result.glued)
    assert len(result.kept) + len(result.dropped) + glued_away == len(messages)
    assert {d.reason for d in result.dropped} <= REASONS
    for d in result.dropped:
        assert (d.reason == "reply_to_filtered") == (d.message.role is Role.ASSISTANT)
    for m in result.kept:
        if m.role is Role.USER and m not in messages:
            assert reject_reason(m.text) is None  # a glued message passes the filter itself
