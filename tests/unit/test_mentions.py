"""Critical mentions (allergies, drugs): the recall guard and the read-your-writes pending block."""

from __future__ import annotations

import pytest

from health_ltm.domain.models import Message, Role
from health_ltm.domain.sections import Section
from health_ltm.write.mentions import detect_critical_mentions

A, M = Section.ALLERGIES, Section.MEDICATIONS


def user(text: str) -> Message:
    return Message(role=Role.USER, text=text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("У меня аллергия на арахис", [(A, "У меня аллергия на арахис")]),
        (
            "I'm allergic to penicillin",
            [(A, "I'm allergic to penicillin"), (M, "I'm allergic to penicillin")],
        ),
        ("Аллергий нет", [(A, "Аллергий нет")]),  # "none" matters to the next answer too
        ("Непереносимость лактозы", [(A, "Непереносимость лактозы")]),
        ("Пью Энап по утрам", [(M, "Пью Энап по утрам")]),
        ("Нурофеном лечусь", [(M, "Нурофеном лечусь")]),
        ("Take 50 mg of the new one", [(M, "Take 50 mg of the new one")]),
        ("Врач назначил новые таблетки", [(M, "Врач назначил новые таблетки")]),
        ("我对青霉素过敏", [(A, "我对青霉素过敏"), (M, "我对青霉素过敏")]),
        ("Сегодня хорошая погода", []),
        ("Болит голова третий день", []),
        ("Забудь всё про мою аллергию", []),  # an instruction, not a statement
    ],
)
def test_detects_allergies_and_drugs(text: str, expected: list[tuple[Section, str]]) -> None:
    assert detect_critical_mentions([user(text)]) == expected


def test_sentence_by_sentence_user_only() -> None:
    messages = [
        Message(role=Role.ASSISTANT, text="У вас есть аллергия? Какие лекарства вы пьёте?"),
        user("Привет. У меня аллергия на кошек.\nА ещё пью Конкор 5 мг."),
    ]
    assert detect_critical_mentions(messages) == [
        (A, "У меня аллергия на кошек."),
        (M, "А ещё пью Конкор 5 мг."),
    ]


def test_sections_are_section_members() -> None:
    [(section, _)] = detect_critical_mentions([user("аллергия на пыльцу")])
    assert isinstance(section, Section) and Section(section) is A
