"""Allergy patterns held out from the rule tables: a past allergy with its reaction, and a mention
taken back because it was a relative's (RU / EN / ZH), through the whole write path."""

from __future__ import annotations

import pytest

from health_ltm.domain.models import Role
from health_ltm.domain.sections import FactStatus, Section, SectionStatus

from .test_dialogue_memory import Dialogue

_RU_IBUPROFEN = "Запишите аллергию на ибупрофен. Ой, нет, это у сестры. У меня на него аллергии нет"
_RU_LATEX = "у меня аллергия на латекс, хотя нет, перепутал — это у сына. у меня на него всё в порядке"
_EN_NAPROXEN = "I first said allergic to naproxen, but no, I mixed it up — it's my son. I'm fine with it."


def _allergies(d: Dialogue) -> dict[str, tuple[FactStatus, dict]]:
    return {f.key: (f.status, f.attributes) for f in d.memory.facts if f.section is Section.ALLERGIES}


def _section(d: Dialogue) -> SectionStatus | None:
    state = d.memory.sections.get(Section.ALLERGIES)
    return state.status if state else None


@pytest.mark.parametrize(
    ("text", "key", "reaction"),
    [
        ("на цефтриаксон у меня когда-то была аллергия, покрылась сыпью", "ceftriaxone", "rash"),
        ("после цефазолина была аллергия — крапивница", "cefazolin", "hives"),
        ("была реакция на цефаклор, зуд по всему телу", "cefaclor", "itching"),
        ("на ампициллин была аллергия, горло отекло", "ampicillin", "breathing difficulty"),
        ("Years ago I had a bad reaction to cefuroxime, broke out in a rash", "cefuroxime", "rash"),
        ("I reacted badly to cefotaxime, got hives", "cefotaxime", "hives"),
        ("I was allergic to cefepime in hospital — my lips swelled up", "cefepime", "swelling"),
        ("小时候对头孢唑林过敏过，身上起红疹", "cefazolin", "rash"),
    ],
)
def test_a_past_allergy_with_its_reaction_is_an_allergy(text: str, key: str, reaction: str) -> None:
    d = Dialogue()
    d.say((Role.USER, text))
    facts = _allergies(d)
    assert key in facts, facts
    status, attributes = facts[key]
    assert status is FactStatus.PRESENT
    assert reaction in attributes.get("reaction", "")
    assert set(facts) == {key}  # the reaction is no allergen of its own


@pytest.mark.parametrize(
    "text",
    [
        "у меня была аллергия на цефотаксим, сыпь",
        "allergic to cefaclor, hives",
    ],
)
def test_the_reaction_after_the_allergen_is_not_an_allergen(text: str) -> None:
    d = Dialogue()
    d.say((Role.USER, text))
    assert len(_allergies(d)) == 1


def test_a_reaction_said_not_to_have_happened_is_no_allergy() -> None:
    d = Dialogue()
    d.say((Role.USER, "I had no reaction to ceftriaxone"))
    assert "ceftriaxone" not in _allergies(d) or _allergies(d)["ceftriaxone"][0] is not FactStatus.PRESENT


@pytest.mark.parametrize(
    ("text", "key", "section"),
    [
        # taken back, then the user's own statement
        (
            "I'm allergic to codeine. No, sorry, that's my mother. I have no allergies.",
            "codeine",
            SectionStatus.CONFIRMED_ABSENT,
        ),
        (_RU_IBUPROFEN, "ibuprofen", None),
        (_RU_LATEX, "latex", None),
        ("我对阿司匹林过敏。不对，是我妈妈过敏，不是我", "acetylsalicylic_acid", None),
        # one sentence: someone else's, "not me"
        ("Hold on, no, it's my husband who is allergic to aspirin, not me", "acetylsalicylic_acid", None),
        ("аллергия на пенициллин не у меня, а у мужа", "penicillin", None),
    ],
)
def test_a_relatives_allergy_taken_back_is_not_the_users(
    text: str, key: str, section: SectionStatus | None
) -> None:
    d = Dialogue()
    d.say((Role.USER, text))
    facts = _allergies(d)
    assert facts.get(key, (None,))[0] is not FactStatus.PRESENT, facts
    if section is not None:
        assert _section(d) is section


@pytest.mark.parametrize(
    ("text", "key"),
    [
        (_RU_IBUPROFEN, "ibuprofen"),
        (_RU_LATEX, "latex"),
        (_EN_NAPROXEN, "naproxen"),
        ("Hold on, no, it's my husband who is allergic to aspirin, not me", "acetylsalicylic_acid"),
        ("аллергия на пенициллин не у меня, а у мужа", "penicillin"),
    ],
)
def test_the_users_own_no_after_the_relative_is_absent(text: str, key: str) -> None:
    d = Dialogue()
    d.say((Role.USER, text))
    assert _allergies(d).get(key, (None,))[0] is FactStatus.ABSENT, _allergies(d)


@pytest.mark.parametrize(
    "turns",
    [
        ("I'm allergic to sulfa drugs", "oops, no — that's my dad"),
        ("У меня аллергия на сульфаниламиды", "ой, нет, это у папы"),
        ("我对磺胺过敏", "说错了，是我爸爸过敏，不是我"),
    ],
)
def test_a_later_message_of_the_fragment_takes_the_relatives_allergy_back(turns: tuple[str, str]) -> None:
    d = Dialogue()
    d.say(*((Role.USER, t) for t in turns))
    assert _allergies(d).get("sulfonamides", (None,))[0] is not FactStatus.PRESENT, _allergies(d)


@pytest.mark.parametrize(
    "text",
    [
        "I'm allergic to penicillin, my brother too",
        "I'm allergic to penicillin and so is my wife",
        "у меня аллергия на пенициллин, у брата тоже",
        "у меня аллергия на пенициллин, а не у мужа",
        "我对青霉素过敏，我哥哥也是",
        "I'm allergic to penicillin. I'm fine with it though.",
        "I'm allergic to penicillin. Actually, it's my brother who got me tested.",
        "У меня аллергия на пенициллин, нет, это у мамы тоже",
    ],
)
def test_the_users_own_allergy_stays_when_a_relative_shares_it(text: str) -> None:
    d = Dialogue()
    d.say((Role.USER, text))
    facts = _allergies(d)
    assert facts.get("penicillin", (None,))[0] is FactStatus.PRESENT, facts
    assert set(facts) == {"penicillin"}  # "brother", "wife" are no allergens


def test_a_pronoun_with_nothing_taken_back_names_no_allergy() -> None:
    d = Dialogue()
    d.say((Role.USER, "My son is allergic to amoxicillin. I'm fine with it."))
    assert _allergies(d) == {}
