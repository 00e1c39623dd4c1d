"""The write path's acceptance table, end to end into storage: once with the offline rules and
once through the model path (OpenAI adapters against the local fake OpenAI-compatible server)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from health_ltm.adapters.local_vector_index import LocalVectorIndex
from health_ltm.domain.clock import FixedClock
from health_ltm.domain.hashing_embedder import HashingEmbedder
from health_ltm.domain.ids import new_ulid
from health_ltm.domain.models import FragmentStatus, Message, Role
from health_ltm.settings import Settings
from health_ltm.storage.memory import InMemoryRepository
from health_ltm.write.intake import submit_fragment
from health_ltm.write.pipeline import WritePath
from health_ltm.write.rules import RuleExtractor, RuleSectionClassifier
from tests.fakes.fake_openai import FakeOpenAI
from tests.fakes.queues import ListQueue

NOW = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)


def fact(section, key, status=None, stage=None, **attrs):
    return ("fact", section, key, status, stage, attrs)


def section_status(section, status):
    return ("section", section, status)


# (fragments said one after another — a fragment is one message, or a list of messages —,
#  expectations on the stored state at the end)
TABLE = {
    "allergy_ru": (["У меня аллергия на арахис"], [fact("allergies", "peanut", "present", "active")]),
    "allergy_en": (["I'm allergic to peanuts"], [fact("allergies", "peanut", "present", "active")]),
    "no_allergies_ru": (["Аллергий нет"], [section_status("allergies", "confirmed_absent")]),
    "no_allergies_en": (["I don't have any allergies"], [section_status("allergies", "confirmed_absent")]),
    "unsure_ru": (["Не знаю, есть ли у меня аллергия"], [section_status("allergies", "unsure")]),
    "unsure_en": (["I'm not sure whether I have allergies"], [section_status("allergies", "unsure")]),
    "not_penicillin_ru": (["На пенициллин аллергии нет"], [fact("allergies", "penicillin", "absent")]),
    "not_penicillin_en": (["I'm not allergic to penicillin"], [fact("allergies", "penicillin", "absent")]),
    "enap": (
        ["Пью Энап 5 мг по утрам от давления"],
        [fact("medications", "enalapril", "active", "active", dose_value=5, dose_unit="mg")],
    ),
    "prescribed": (
        ["Врач назначил метформин 500 мг"],
        [fact("medications", "metformin", "prescribed", dose_value=500)],
    ),
    "started": (
        ["Врач назначил метформин 500 мг", "Начал принимать метформин"],
        [fact("medications", "metformin", "active", dose_value=500)],
    ),
    "dose_changed": (
        [
            "Врач назначил метформин 500 мг",
            "Начал принимать метформин",
            "Врач увеличил дозу метформина до 1000 мг",
        ],
        [fact("medications", "metformin", "active", dose_value=1000)],
    ),
    "stopped_ru": (
        ["Врач назначил метформин 500 мг", "Больше не принимаю метформин"],
        [fact("medications", "metformin", "stopped")],
    ),
    "stopped_en": (
        ["I take metformin 500 mg", "I stopped taking metformin"],
        [fact("medications", "metformin", "stopped")],
    ),
    "age_ru": (["Мне 34 года"], [fact("demographics", "birth_year", birth_year=NOW.year - 34)]),
    "age_en": (["I'm 34"], [fact("demographics", "birth_year", birth_year=NOW.year - 34)]),
    "age_down_held": (
        ["Мне 34 года", "Мне 30"],
        [fact("demographics", "birth_year", birth_year=NOW.year - 34), ("clarification", "demographics")],
    ),
    "age_corrected": (
        ["Мне 34 года", "Мне 30", "Ой, я ошибся, мне 30"],
        [fact("demographics", "birth_year", birth_year=NOW.year - 30)],
    ),
    "family_ru": (
        ["У мамы диабет 2 типа"],
        [fact("family_history", "mother:type_2_diabetes", "present", relative="mother")],
    ),
    "family_en": (
        ["My father had a heart attack"],
        [fact("family_history", "father:myocardial_infarction", "present", relative="father")],
    ),
    "no_chronic": (
        ["Хронических заболеваний нет"],
        [section_status("chronic_conditions", "confirmed_absent")],
    ),
    "hypertension": (["У меня гипертония"], [fact("chronic_conditions", "hypertension", "present")]),
    "headache": (["Третий день болит голова"], [fact("symptoms", "headache", "present", onset_days_ago=3)]),
    "appendix": (
        ["В 2019 году удалили аппендикс"],
        [fact("surgeries", "appendectomy", "present", year=2019)],
    ),
    "arm": (["Сломал руку в прошлом году"], [fact("injuries", "arm_fracture", year=NOW.year - 1)]),
    "flu_shot": (
        ["Сделал прививку от гриппа в октябре"],
        [fact("vaccinations", "influenza", "present", date=f"{NOW.year}-10")],
    ),
    "vegetarian_ru": (
        ["Я вегетарианец"],
        [fact("lifestyle", "diet", "present", "candidate", value="vegetarian")],
    ),
    "vegetarian_en": (["I don't eat meat"], [fact("lifestyle", "diet", "present", "candidate")]),
    "quit_smoking": (["Курю пачку в день", "Бросил курить"], [fact("lifestyle", "smoking", "stopped")]),
    "remember_gluten": (["Запомни: я не ем глютен"], [fact("lifestyle", "diet", "present", "active")]),
    "garbage": ([["ыва", "456", "!!!"]], [("nothing",)]),  # one fragment of three messages
}


class Harness:
    def __init__(self, classifier, extractor, clock):
        self.clock = clock
        self.repo = InMemoryRepository()
        self.path = WritePath(
            self.repo, classifier, extractor, clock, new_ulid, LocalVectorIndex(None), HashingEmbedder()
        )

    def say(self, said: str | list[str], session: str) -> FragmentStatus:
        texts = [said] if isinstance(said, str) else said
        messages = [Message(role=Role.USER, text=t) for t in texts]
        fragment = submit_fragment(self.repo, ListQueue(), self.clock, new_ulid, "u", session, messages)
        return self.path.process("u", fragment.id).status


@pytest.fixture(scope="module")
def fake_model():
    with FakeOpenAI(rules=True) as fake:
        yield fake


def offline(clock):
    return RuleSectionClassifier(), RuleExtractor(clock=clock)


def model_path(fake, clock):
    from health_ltm.adapters.openai_llm import OpenAIExtractor, OpenAISectionClassifier

    settings = Settings(OPENAI_BASE_URL=fake.base_url, LTM_LLM_TIMEOUT_S=5, LTM_LLM_MAX_RETRIES=0)
    return OpenAISectionClassifier(settings), OpenAIExtractor(settings)


@pytest.mark.parametrize("path", ["offline", "model"])
@pytest.mark.parametrize("row", sorted(TABLE))
def test_acceptance_table(row, path, request):
    said, expectations = TABLE[row]
    clock = FixedClock(NOW)
    classifier, extractor = (
        offline(clock) if path == "offline" else model_path(request.getfixturevalue("fake_model"), clock)
    )
    harness = Harness(classifier, extractor, clock)
    statuses = []
    for i, fragment in enumerate(said):
        statuses.append(harness.say(fragment, session=f"s{i}"))
        clock.advance(days=1)
    memory = harness.repo.load_memory("u")
    for expectation in expectations:
        kind = expectation[0]
        if kind == "nothing":
            assert memory.facts == [] and statuses == [FragmentStatus.REJECTED]
        elif kind == "section":
            _, section, status = expectation
            assert memory.section_status(section).value == status
        elif kind == "clarification":
            assert [c.section.value for c in memory.clarifications] == [expectation[1]]
        else:
            _, section, key, status, stage, attrs = expectation
            found = [f for f in memory.facts if f.section.value == section and f.key == key]
            assert found, (row, [(f.section.value, f.key) for f in memory.facts])
            (stored,) = found
            if status:
                assert stored.status.value == status
            if stage:
                assert stored.stage.value == stage
            for name, value in attrs.items():
                assert stored.attributes.get(name) == value, (name, stored.attributes)
