"""RuleExtractor: the offline extractor (Russian + English), deterministic and cheap.

It reads only the user's messages, sentence by sentence; a sentence that gives the assistant an
instruction ("забудь всё", "ignore previous instructions...") yields nothing. Relative dates and
ages are computed from the day the message was sent (``Message.at``), else from ``now`` or the
clock given to the constructor; with none of these, facts that need a date are skipped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime

from pydantic import ValidationError

from ...domain.attributes import Relative, validate_attributes
from ...domain.models import Assertion, AssertionKind, EvidenceKind, Experiencer, Message, Role
from ...domain.sections import FactStatus, Section
from ...domain.text import CJK, fold_in_place
from ...ports import Clock
from ..dialogue import AnswerShape, affirms, answer_shape, leads_with_yes, question_of
from ..normalize import find_terms, kinds_for, normalize_name, word_set
from . import (
    allergies,
    answers,
    chinese,
    conditions,
    demographics,
    events,
    followups,
    lifestyle,
    medications,
    symptoms,
)
from .text import (
    CORRECTION,
    FIRST_PERSON,
    INSTRUCTION,
    NEGATION,
    RELATIVE,
    RELATIVE_BY_WORD,
    REMEMBER,
    RESULTS_CAME,
    RETRACTION,
    TAKEN_BACK_FOR,
    THIRD_PARTY,
    Context,
    Draft,
    Sentence,
    edge_trim,
    hypothetical,
    name_at,
    rx,
    split_sentences,
)

_DIGIT = rx(r"\d")
_RULES = (allergies, medications, conditions, symptoms, events, demographics, lifestyle, chinese)


def _answers_habit(draft: Draft, habits: set[str]) -> bool:
    """The draft is the habit the assistant's question asked about."""
    if draft.section is not Section.LIFESTYLE or draft.retracted:
        return False
    return normalize_name(draft.section, draft.name, draft.hint).key in habits


# What a presupposing question may carry over: a condition or a symptom the user lives with.
_PRESUPPOSABLE = frozenset({Section.CHRONIC_CONDITIONS, Section.SYMPTOMS})


@dataclass
class _MessageReading:
    drafts: list[tuple[Draft, Sentence, bool, bool]] = field(default_factory=list)  # with markers
    relative_in_focus: Relative | None = None  # for the next message's "she"
    takes_back_previous_message: bool = False


class RuleExtractor:
    name = "rules-v1"

    def __init__(self, clock: Clock | None = None) -> None:
        self._clock = clock

    def extract(
        self, messages: Sequence[Message], sections: Sequence[Section], now: datetime | None = None
    ) -> list[Assertion]:
        wanted = frozenset(Section(s) for s in sections)
        # The symptom rules run for a drug too: a symptom a stopped drug caused is the stop's reason.
        reach = wanted | {Section.SYMPTOMS} if Section.MEDICATIONS in wanted else wanted
        rules = [r for r in _RULES if r.SECTIONS & reach]
        if not rules:
            return []
        out: list[Assertion] = []
        seen: set[str] = set()
        relative_in_focus = None
        previous_message: list[int] = []  # indexes in ``out`` of the last user message's assertions
        open_topic: Message | None = None  # the last assistant question that named a subject
        patient: str | None = None  # whom the assistant's questions are about (answers.asked_of)
        for index, message in enumerate(messages):
            if message.role is not Role.USER:
                continue  # the assistant's words never make a fact
            question = question_of(messages, index)
            subjects = answers.read_question(question.text).subjects if question else []
            subjects_asked = subjects  # of the assistant's words as said, before any topic is carried
            carried = False
            one_more = (
                answers.one_more_under(open_topic.text, question.text)
                if question is not None and open_topic is not None and open_topic is not question
                else None
            )
            asked_verbatim = question.text if question is not None else None
            if question is not None and one_more is not None:  # "А от ковида?" after "Какие прививки
                # делали?": the frame holds
                question = Message(role=Role.ASSISTANT, text=one_more, at=question.at)
                subjects = answers.read_question(one_more).subjects
            elif question is not None and subjects:
                open_topic = question
            elif question is not None and open_topic is not None and answers.follows_up(question.text):
                # "Do you know their names?", "Which one?": the follow-up keeps the topic.
                question, subjects = open_topic, answers.read_question(open_topic.text).subjects
                carried = True
            # "How is your son?" / "still coughing a lot", "宝宝多大了？" … "咳嗽几天了？" / "三天了": his
            if asked_verbatim is not None:
                patient = answers.asked_of(asked_verbatim, subjects_asked, patient)
            about_others = asked_verbatim is not None and patient in ("child", "other")
            if about_others and not any(x.section is Section.FAMILY_HISTORY for x in subjects):
                # the answer is the other person's: no question of the user's to read it with
                question, subjects, carried, asked_verbatim = None, [], False, None
            asked = frozenset(x.section for x in subjects)
            ctx = Context(
                today=self._today(message, now),
                relative_in_focus=relative_in_focus,
                asked=asked,
                others_before=about_others,
            )
            reading = self._read_message(message, ctx, rules)
            drafts, relative_in_focus = reading.drafts, reading.relative_in_focus
            drafts = [
                x
                for x in drafts
                if not answers.said_not_an_allergy(x[0], message.text)
                and not (
                    Section.ALLERGIES in asked
                    and answers.tolerated_after_allergy_question(x[0], message.text)
                )
            ]
            topic = answers.user_topic(message.text) if question is None and not about_others else None
            said_keys = frozenset(d.identity() for d, _, _, _ in drafts if not d.retracted)
            if question is not None or topic is not None:
                whole = Sentence(message.text, fold_in_place(message.text), ())
                subject = question.text if question is not None else topic[0]  # type: ignore[index]
                correction = any(c for _, _, c, _ in drafts)
                remember = any(r for _, _, _, r in drafts)
                answered = answers.extract(
                    subject, message.text, ctx, said_keys, topic_from_user=question is None, carried=carried
                )
                # "Аллергия есть?" / "на пенициллин, ой нет, не то, на цефтриаксон": the answer reads
                # no name the user took back in it
                answered = _not_taken_back(answered, message.text)
                answered = [
                    d
                    for d in answered
                    if not answers.said_not_an_allergy(d, message.text)
                    and not _drug_only_asked_about(d, message.text)
                ]
                if one_more is not None:
                    for d in answered:  # the evidence quotes what the assistant said, not the reading
                        if d.context_evidence:
                            d.context_evidence = asked_verbatim
                drafts += [(d, whole, correction, remember) for d in answered]
                if asked_verbatim is not None:  # "What dose?" / "10 mg": the drug in focus, or the one asked
                    already = [d for d, _, _, _ in drafts]
                    drafts += [
                        (d, whole, correction, remember)
                        for d in followups.dose_answer(asked_verbatim, message.text, already)
                    ]
                    sex = demographics.sex_answer(asked_verbatim, message.text)
                    if sex:  # "Are you male or female?" / "female, 41", "性别？" / "女": read as the
                        # answer, which a bare "女" said unasked is too short to be
                        drafts = [
                            x
                            for x in drafts
                            if not (x[0].section is Section.DEMOGRAPHICS and x[0].hint == "sex")
                        ]
                        drafts += [(d, whole, correction, remember) for d in sex]
                if question is not None and not carried:  # "Have you started the losartan?" / "yep"
                    already = [d for d, _, _, _ in drafts]
                    drafts += [
                        (d, whole, correction, remember)
                        for d in followups.started_answer(question.text, message.text, ctx, already)
                    ]
                if (
                    question is not None
                    and not carried
                    and answer_shape(message.text) is not AnswerShape.NO
                    and not answers.asks_if_normal(question.text, message.text)
                ):
                    confirmed = (
                        self._restatement(question.text, message.text, ctx, rules, wanted)
                        if affirms(message.text)
                        # "yep. oh, it was my legs as well": a recap confirmed, with an addition
                        or (leads_with_yes(message.text) and answers.recaps(question.text))
                        else []
                    )
                    statement = None if confirmed else answers.presupposed(question.text, message.text)
                    if statement is not None:  # "How's your asthma?" / "Much better": taken for granted
                        confirmed = self._restatement(
                            question.text,
                            message.text,
                            ctx,
                            rules,
                            wanted,
                            statement,
                            _PRESUPPOSABLE,
                            EvidenceKind.ANSWER_TO_QUESTION,  # an answer, not a yes to a summary
                        )
                    confirmed = _confirmed_allergens_are_not_drugs(confirmed)
                    # what the user says themselves of the same thing wins ("yeah that's right. oh,
                    # i'm actually 48 now"); the rest of the summary stands
                    out += [
                        a
                        for a in confirmed
                        if (a.section, normalize_name(a.section, a.name, a.normalized_hint).key)
                        not in said_keys
                    ]
            if index and messages[index - 1].role is Role.USER:  # "just levothyroxin" / "75mcg every morning"
                named = {
                    _key(out[i]): out[i]
                    for i in previous_message
                    if out[i].section is Section.MEDICATIONS and not out[i].retracted
                }
                whole = Sentence(message.text, fold_in_place(message.text), ())
                drug = next(iter(named.values())) if len(named) == 1 else None
                drafts += [
                    (d, whole, False, False)
                    for d in followups.dose_after_the_drug(message.text, [d for d, _, _, _ in drafts], drug)
                ]
            if index and messages[index - 1].role is Role.ASSISTANT:
                # "i'm going to start you on omeprazole" / "okay": said or not as a question
                whole = Sentence(message.text, fold_in_place(message.text), ())
                orders = self._clinician_orders(messages[index - 1].text, message.text, ctx, rules, drafts)
                drafts += [(d, whole, False, False) for d in orders]
            if Section.ALLERGIES in asked:
                drafts = _reactions_are_not_symptoms(drafts)
            drafts = _reaction_told_after(drafts)
            drafts = _reaction_to_a_drug(drafts)
            drafts = _allergens_are_not_drugs(drafts)
            # after a question, "my dad too" has what the question asked, not what was said before it
            said_before = out if not asked else []
            drafts += _relatives_too(message.text, [d for d, _, _, _ in drafts], said_before)
            drafts += _self_too(message.text, [d for d, _, _, _ in drafts], said_before)
            drafts = _family_named_over_wide(drafts)
            taken_back: list[int] = []
            if reading.takes_back_previous_message:
                # A bare "scratch that": the user takes back what their previous message said; but
                # "Do you smoke?" / "oh no, never" answers the question, it takes no allergy back.
                for i in previous_message:
                    if not asked or out[i].section in asked:
                        out[i] = out[i].model_copy(update={"retracted": True})
                        taken_back.append(i)
            habits = {x.slot for x in subjects if x.section is Section.LIFESTYLE and x.slot}
            if habits:  # "Спортом занимаетесь?" / "бегаю по утрам": asked and answered, as explicit
                drafts = [  # as "remember this" (a habit said in passing waits for a second mention)
                    (d, sentence, correction, remember or _answers_habit(d, habits))
                    for d, sentence, correction, remember in drafts
                ]
            current: list[int] = []
            for draft, sentence, correction, remember in drafts:
                assertion = (
                    _assertion(draft, sentence, correction, remember) if draft.section in wanted else None
                )
                if assertion is None:
                    continue
                fingerprint = assertion.model_dump_json(exclude={"evidence", "context_evidence"})
                if fingerprint not in seen:
                    seen.add(fingerprint)
                    current.append(len(out))
                    out.append(assertion)
            current += _put_right(out, current, message.text)
            voided_here = [i for i in current if out[i].retracted]
            current += _meant_instead(out, taken_back + voided_here, message.text)
            said_here = {  # names and "none"s: "不对 说错了 是75" puts a dose right, not a name
                d.identity()
                for d, _, _, _ in drafts
                if not d.retracted and ((d.name or "").strip() or d.kind is not AssertionKind.FACT)
            }
            _replace_previous(out, previous_message, said_here, message.text)
            previous_message = current or previous_message
        return out

    def _restatement(
        self,
        question: str,
        answer: str,
        ctx: Context,
        rules: list,
        wanted: frozenset[Section],
        summary: str | None = None,
        sections: frozenset[Section] | None = None,
        kind: EvidenceKind = EvidenceKind.CONFIRMED_RESTATEMENT,
    ) -> list[Assertion]:
        """ "It says here you've had a tonsillectomy." / "Yes": what the user confirmed, read from
        the assistant's summary (or ``summary``: what a question took for granted, in
        ``sections``); the user's answer is the evidence, the summary the context."""
        summary = summary or answers.restated(question)
        if summary is None:
            return []
        if sections is not None:
            wanted = wanted & sections
        asked = answers.summary_sentence(question)
        drafts = self._read_message(Message(role=Role.USER, text=summary), ctx, rules).drafts
        out = []
        for draft, sentence, correction, remember in drafts:
            assertion = _assertion(draft, sentence, correction, remember) if draft.section in wanted else None
            if assertion is None or draft.retracted:
                continue
            if assertion.name and fold_in_place(assertion.name) not in fold_in_place(asked):
                continue  # the name must be the assistant's own words, which the user confirmed
            out.append(
                assertion.model_copy(
                    update={
                        "evidence": answer.strip()[:1000],
                        "evidence_kind": kind,
                        "context_evidence": asked,
                    }
                )
            )
        return out

    def _clinician_orders(
        self, asked: str, answer: str, ctx: Context, rules: list, drafts: list
    ) -> list[Draft]:
        """A clinician's order the user takes up ("i'm going to start you on omeprazole, 20 mg once a
        day" / "okay. how long do i take it for?", "先给您开氨溴索，一次一片" / "好嘞", "stop the
        ibuprofen completely" / "okay"): the new drug is prescribed, the stopped one stopped, read
        from the clinician's words as the user's own; a refusal or a question about it alone takes
        nothing up."""
        if not followups.takes_up(answer, asked):
            return []
        said = {d.identity() for d, _, _, _ in drafts}
        out: list[Draft] = []
        for statement, status in followups.orders(asked):
            read = self._read_message(Message(role=Role.USER, text=statement), ctx, rules).drafts
            for draft, _, _, _ in read:
                if draft.section is not Section.MEDICATIONS or not draft.name or draft.identity() in said:
                    continue
                draft.status = status
                draft.span = (0, len(answer))
                draft.context_evidence = asked
                out.append(draft)
        return out

    def _read_message(self, message: Message, ctx: Context, rules: list) -> _MessageReading:
        """Drafts of one user message, sentence by sentence, with retraction and focus applied."""
        reading = _MessageReading(relative_in_focus=ctx.relative_in_focus)
        correction = remember = False
        previous: list[Draft] = []  # the previous sentence's drafts
        for sentence in split_sentences(message.text):
            if not ctx.others_before and THIRD_PARTY.search(sentence.low):
                ctx = replace(ctx, others_before=True)  # this sentence names them: so do the next
            news_here = bool(RESULTS_CAME.search(sentence.low)) and not FIRST_PERSON.search(sentence.low)
            # A marker counts for its own sentence and the rest of the message ("Я ошибся. Мне 30").
            correction = correction or bool(CORRECTION.search(sentence.low))
            remember = remember or bool(REMEMBER.search(sentence.low))
            retraction = RETRACTION.search(sentence.low)
            said_after = sentence.low[retraction.end() :] if retraction else ""
            if CORRECTION.search(sentence.low) and _DIGIT.search(said_after):
                retraction = None  # "不对，说错了，78", "I misspoke, 25 mg": a new value, not a take-back
            if INSTRUCTION.search(sentence.low) and not retraction:
                continue
            found = _chinese_reads_chinese(
                sentence, [(rule, d) for rule in rules for d in rule.extract(sentence, ctx)]
            )
            meds = [d.span[0] for d in found if d.section is Section.MEDICATIONS]
            if not meds:
                found += followups.extract(sentence, ctx)  # a change the drug rules could not place
            else:  # "... so I quit it, and the doctor switched me to valsartan": "it" comes first
                found = followups.stopped_before(sentence, ctx, min(meds)) + found
                _put_dose_right(found, sentence)
            found = followups.side_effects_of_stop(sentence, found, previous)
            found = _vaccines_are_not_diseases(found, sentence)
            if retraction:
                # "I said I'm allergic to codeine — scratch that": what precedes the marker is void;
                # a bare "Scratch that." voids the previous sentence, or the previous message.
                before = [d for d in found if d.span[1] <= retraction.start()]
                # ... by where its name is said (a draft's evidence may span the marker); a denial the
                # rules already read ("не у меня, а у мужа": absent) stays as read
                before = before or [
                    d
                    for d in found
                    if d.status is not FactStatus.ABSENT
                    and name_at(d, sentence.low, end=retraction.start()) >= 0
                ]
                about = _ABOUT.match(sentence.low, retraction.end())
                # "scratch that about the sulfa allergy": what the marker is about is void too
                after = [d for d in found if about and name_at(d, sentence.low, start=about.end()) >= 0]
                voided = before or after or ([] if found else previous)
                for d in voided:
                    d.retracted = True
                if not voided and not reading.drafts:
                    reading.takes_back_previous_message = True
            found = allergies.resolve_references(found, [d for d, _, _, _ in reading.drafts])
            for d in found:
                if _whose_result_unsaid(d, sentence, ctx):
                    d.experiencer = Experiencer.UNKNOWN
            reading.drafts += [(d, sentence, correction, remember) for d in found]
            if news_here != ctx.news_before:  # the next sentence follows this one's news, or not
                ctx = replace(ctx, news_before=news_here)
            previous = found or previous
            mentioned = list(RELATIVE.finditer(sentence.low))
            named = (
                RELATIVE_BY_WORD[mentioned[-1].group(0)] if mentioned else chinese.relative_named(sentence)
            )
            if named is not None:
                reading.relative_in_focus = named
                ctx = replace(ctx, relative_in_focus=named)
        return reading

    def _today(self, message: Message, now: datetime | None) -> date | None:
        moment = message.at or now or (self._clock.now() if self._clock is not None else None)
        return moment.date() if moment is not None else None


def _reactions_are_not_symptoms(
    drafts: list[tuple[Draft, Sentence, bool, bool]],
) -> list[tuple[Draft, Sentence, bool, bool]]:
    """An answer about allergies that names a reaction ("磺胺类的，吃了会起疹子"): the rash is the
    allergy's reaction (the answer rules keep it as such), not a symptom the user has now."""
    if not any(d.section is Section.ALLERGIES and d.status is FactStatus.PRESENT for d, _, _, _ in drafts):
        return drafts  # "no, but I have a rash right now": a symptom
    return [
        d
        for d in drafts
        if not (d[0].section is Section.SYMPTOMS and answers.is_reaction(d[1].text[slice(*d[0].span)]))
    ]


def _put_dose_right(found: list[Draft], sentence: Sentence) -> None:
    """ "lisinopril 10 mg, sorry, I mean 20 mg": the dose put right in the drug's own sentence is the
    dose of the drug named last before it."""
    corrected = followups.corrected_dose(sentence)
    if corrected is None:
        return
    (at, _), attributes = corrected
    before = [d for d in found if d.section is Section.MEDICATIONS and d.span[0] < at]
    if before:
        drug = before[-1]
        drug.attributes = {**drug.attributes, **attributes}


def _allergens_are_not_drugs(
    drafts: list[tuple[Draft, Sentence, bool, bool]],
) -> list[tuple[Draft, Sentence, bool, bool]]:
    """A drug the message says the user is allergic to is no drug they took ("青霉素 打过一次全身起
    疹子" to an allergy question): the taking is the allergy's story."""
    allergens = _allergen_keys(d for d, _, _, _ in drafts)
    if not allergens:
        return drafts
    return [
        x
        for x in drafts
        if not (x[0].section is Section.MEDICATIONS and x[0].name and x[0].identity()[1] in allergens)
    ]


def _allergen_keys(items) -> set[str]:
    """The medication keys of what ``items`` (drafts or assertions) say the user is allergic to."""
    return {
        normalize_name(Section.MEDICATIONS, x.name, None).key
        for x in items
        if x.section is Section.ALLERGIES and x.status is FactStatus.PRESENT and x.name
    }


def _confirmed_allergens_are_not_drugs(confirmed: list[Assertion]) -> list[Assertion]:
    """A recap confirmed with a yes ("you're on microgynon, and you're allergic to trimethoprim"):
    the drug it says the user is allergic to is not one they take."""
    allergens = _allergen_keys(confirmed)
    return [
        a
        for a in confirmed
        if not (
            a.section is Section.MEDICATIONS
            and a.name
            and normalize_name(Section.MEDICATIONS, a.name, a.normalized_hint).key in allergens
        )
    ]


# What happened when the allergen was taken: "got an itchy rash all over last time i took it",
# "от него отёк был", "吃了就起疹子"
_WHEN_TAKEN = rx(
    r"\b(?:when|after|every\s+time|last\s+time|the\s+time)\s+i\s+(?:took|take|had|used|tried)\s+(?:it|them|that)\b"
    r"|\bот\s+(?:него|неё|нее|них)\b|\bпосле\s+(?:него|неё|нее|них|при[её]ма)\b|吃了(?:就|会|以后|之后|后)|打了(?:就|以后|之后|后)"
)


def _reaction_to_a_drug(
    drafts: list[tuple[Draft, Sentence, bool, bool]],
) -> list[tuple[Draft, Sentence, bool, bool]]:
    """ "amoxicillin gave me hives", "吃了阿莫西林起了一身疹子": the hives are the allergy's reaction
    (``allergies.DRUG_REACTION``), not a symptom the user has now."""
    reacted = {
        id(sentence)
        for d, sentence, _, _ in drafts
        if d.section is Section.ALLERGIES
        and d.status is FactStatus.PRESENT
        and allergies.DRUG_REACTION.search(sentence.low)
    }
    if not reacted:
        return drafts
    return [
        x
        for x in drafts
        if not (
            x[0].section is Section.SYMPTOMS
            and id(x[1]) in reacted
            and answers.is_reaction(x[1].text[slice(*x[0].span)])
        )
    ]


def _reaction_told_after(
    drafts: list[tuple[Draft, Sentence, bool, bool]],
) -> list[tuple[Draft, Sentence, bool, bool]]:
    """A reaction the message tells of the one allergen it names, in words of taking it ("i might be
    allergic to amoxicillin? got an itchy rash last time i took it"): the allergy's reaction, not a
    symptom the user has now."""
    allergies = [
        d for d, _, _, _ in drafts if d.section is Section.ALLERGIES and d.status is FactStatus.PRESENT
    ]
    if len({d.name for d in allergies}) != 1:
        return drafts
    reactions = [
        x
        for x in drafts
        if x[0].section is Section.SYMPTOMS
        and _WHEN_TAKEN.search(x[1].low)
        and answers.is_reaction(x[1].text[slice(*x[0].span)])
    ]
    if not reactions:
        return drafts
    allergy = allergies[0]
    if "reaction" not in allergy.attributes:
        names = ", ".join(dict.fromkeys(d.name for d, _, _, _ in reactions if d.name))
        if names:
            allergy.attributes = {**allergy.attributes, "reaction": names[:120]}
    return [x for x in drafts if x not in reactions]


# "… and my sister got diagnosed with it last year too", "у мамы диабет, у бабушки тоже", "и бабушка
# тоже с ним была": a relative who has what was just said
_TOO = rx(
    r"\btoo\b|\bas\s+well\b|\balso\b|\bтоже\b|\bтакже\b|\bтак\s+же\b|\bwith\s+it\b|\bс\s+ним\b|\bс\s+ней\b"
)
_AND_NEXT = rx(r"[\s,]*(?:and|и)?\s*")
_HAS_IT = rx(r"\b(?:has|had|have|got|gets)\s+(?:had\s+)?it\b|\bwith\s+it\b")
_CONDITION_SECTIONS = (Section.FAMILY_HISTORY, Section.CHRONIC_CONDITIONS)
# The only words the rest of such a clause may hold ("got diagnosed with it last year too")
_HAS_IT_TOO = word_set(
    "has had have got gets is was does did diagnosed with it that the same too also as well one last year "
    "and my years ago recently when she he was a kid тоже также так же была был были есть с ним ней "
    "болеет болела болел этим этого в детстве году лет назад"
)


def _relatives_too(
    text: str, said: list[Draft], out: list[Assertion]
) -> list[tuple[Draft, Sentence, bool, bool]]:
    """A blood relative said to have it too, with no condition of their own named: the condition
    said last before them (the user's or a relative's, in this message or an earlier one) is theirs
    as well."""
    low = fold_in_place(text)
    earlier = [
        (a.name, a.normalized_hint)
        for a in out
        if a.section in _CONDITION_SECTIONS and a.status is FactStatus.PRESENT and a.name and not a.retracted
    ]
    conditions = sorted(
        (low.find(fold_in_place(d.name)), d.name, d.hint)
        for d in said
        if d.section in _CONDITION_SECTIONS and d.status is FactStatus.PRESENT and d.name and not d.retracted
    )
    added: list[tuple[Draft, Sentence, bool, bool]] = []
    offset = 0
    for sentence in split_sentences(text):
        offset = low.find(sentence.low, offset)
        for m in RELATIVE.finditer(sentence.low):
            relative = RELATIVE_BY_WORD.get(m.group(0))
            start, end = m.start(), sentence.clause(m.start())[1]
            if not sentence.low[m.end() : end].strip() and end < len(sentence.low):
                glue = _AND_NEXT.match(sentence.low, end)  # "my aunt and my grandpa have it"
                end = sentence.clause(min(glue.end() if glue else end, len(sentence.low) - 1))[1]
            rest = sentence.low[start:end]
            if relative is None or not (_TOO.search(rest) or _HAS_IT.search(rest)) or NEGATION.search(rest):
                continue  # "my sister too", "gout runs in the family, my dad has it"
            if find_terms(kinds_for(Section.FAMILY_HISTORY), rest):
                continue  # "and my sister has asthma too": the rules read her own
            others = RELATIVE.sub(" ", rest[m.end() - start :])  # "my aunt and my grandpa have it"
            if any(w not in _HAS_IT_TOO for w in re.findall(r"[^\W\d_]+", others)):
                continue  # "my sister also lives with us": something else about her
            said_last = _said_last(conditions, offset + start, earlier)
            if said_last is None:
                continue
            name, hint = said_last
            draft = Draft(
                Section.FAMILY_HISTORY,
                (start, end),
                name=name,
                hint=hint,
                status=FactStatus.PRESENT,
                attributes={"relative": relative.value},
                experiencer=Experiencer.RELATIVE,
            )
            added.append((draft, sentence, False, False))
    return added


# The user said to have it too, with no condition named: "my mom has diabetes and I have it too", "ive
# had it since my 30s", "у мамы диабет, и у меня он тоже", "我妈有糖尿病，我也有"
_SELF_TOO = rx(
    r"(?:\b(?:i\s+(?:have|had|got|get)|i'?ve\s+(?:had|got)|me\s+too|me\s+as\s+well|so\s+do\s+i|so\s+have\s+i)"
    r"|\bу\s+меня\b|\bя\b)"
)
_SELF_TOO_ZH = re.compile(r"我也(?:有|是|得了|查出)")
_ZH_PART = re.compile(r"[^\s，,。；;]*")
_SELF_TOO_WORDS = word_set(
    "i i've ive i'm im me my myself have had got get it too also as well since for years year ago the same "
    "one a kid so do и у меня я он она оно тоже также так же уже лет с детства давно болею болела болел есть "
    "since in about like from childhood age"
)


def _self_too(text: str, said: list[Draft], out: list[Assertion]) -> list[tuple[Draft, Sentence, bool, bool]]:
    """The user said to have too what a relative has (the relative's condition said last before
    it, in this message or an earlier one): the user's own condition as well."""
    low = fold_in_place(text)
    earlier = [
        (a.name, a.normalized_hint)
        for a in out
        if a.section is Section.FAMILY_HISTORY
        and a.status is FactStatus.PRESENT
        and a.name
        and not a.retracted
    ]
    relatives = sorted(
        (low.find(fold_in_place(d.name)), d.name, d.hint)
        for d in said
        if d.section is Section.FAMILY_HISTORY
        and d.status is FactStatus.PRESENT
        and d.name
        and not d.retracted
    )
    own = {d.identity()[1] for d in said if d.section is Section.CHRONIC_CONDITIONS}
    added: list[tuple[Draft, Sentence, bool, bool]] = []
    offset = 0
    for sentence in split_sentences(text):
        offset = low.find(sentence.low, offset)
        found = [(m.start(), sentence.clause(m.start())) for m in _SELF_TOO.finditer(sentence.low)]
        found += [(m.start(), sentence.clause(m.start())) for m in _SELF_TOO_ZH.finditer(sentence.low)]
        for at, (start, end) in found:
            rest = sentence.low[start:end]
            if _SELF_TOO_ZH.match(sentence.low, at):  # "我妈有高血压 我也有 在吃…": up to the next space
                piece = _ZH_PART.match(sentence.low, at)
                start, end = at, piece.end() if piece else end
                rest = sentence.low[start:end]
            if (
                NEGATION.search(rest)
                or RELATIVE.search(rest)
                or find_terms(kinds_for(Section.FAMILY_HISTORY), rest)
            ):
                continue  # "and I don't", "my sister has it", "I have asthma": not a "me too"
            zh = _SELF_TOO_ZH.match(sentence.low, at)
            words = re.findall(r"[^\W\d_]+", re.sub(r"\d+\w*", " ", rest))  # "since my 30s"
            if not zh and (not (_TOO.search(rest) or re.search(r"\bit\b|\bон\b|\bона\b", rest))):
                continue
            if not zh and any(w not in _SELF_TOO_WORDS for w in words):
                continue  # "I have a question too": something else
            said_last = _said_last(relatives, offset + at, earlier)
            if said_last is None:
                continue
            name, hint = said_last
            draft = Draft(
                Section.CHRONIC_CONDITIONS, (start, end), name=name, hint=hint, status=FactStatus.PRESENT
            )
            if draft.identity()[1] not in own:
                own.add(draft.identity()[1])
                added.append((draft, sentence, False, False))
    return added


def _said_last(
    named: Sequence[tuple[int, str, str | None]], before: int, earlier: Sequence[tuple[str, str | None]]
) -> tuple[str, str | None] | None:
    """The condition named last before ``before`` in this message, else the last of earlier ones."""
    said = [(name, hint) for at, name, hint in named if 0 <= at < before]
    return said[-1] if said else earlier[-1] if earlier else None


def _family_named_over_wide(drafts: list) -> list:
    """ "gout runs in the family, my dad has it": the relative named replaces "someone in the family"."""
    named = {
        d.identity()[1]
        for d, _, _, _ in drafts
        if d.section is Section.FAMILY_HISTORY
        and d.attributes.get("relative") not in (None, Relative.OTHER.value)
    }
    return [
        x
        for x in drafts
        if not (
            x[0].section is Section.FAMILY_HISTORY
            and x[0].attributes.get("relative") == Relative.OTHER.value
            and x[0].identity()[1] in named
            and x[0].status is FactStatus.PRESENT
        )
    ]


def _key(assertion: Assertion) -> str:
    return normalize_name(assertion.section, assertion.name or "", assertion.normalized_hint).key


_NAMED = (Section.MEDICATIONS, Section.ALLERGIES)


def _put_right(out: list[Assertion], current: list[int], text: str) -> list[int]:
    """A drug name put right ("не эналаприл, а лизиноприл"): the wrong name's mention in this
    fragment is void and the right name takes its place, with what was said of it (dose, status,
    section); a wrong name said before this fragment is taken back (a clarification for a stored
    fact, the pipeline decides). Returns the indexes of assertions added to ``out``."""
    added: list[int] = []
    for wrong, name, normalized in followups.name_corrections(text):
        earlier = [
            i for i, a in enumerate(out) if a.section in _NAMED and not a.retracted and _key(a) == wrong
        ]
        base = out[earlier[-1]] if earlier else None
        for i in earlier:
            out[i] = out[i].model_copy(update={"retracted": True})
        right = normalize_name(Section.MEDICATIONS, name).key
        said = [
            i for i in current if out[i].section in _NAMED and not out[i].retracted and _key(out[i]) == right
        ]
        carried = {k: v for k, v in (base.attributes if base else {}).items() if k != "atc_code"}
        if said:
            for i in said:
                out[i] = out[i].model_copy(
                    update={"attributes": {**carried, **out[i].attributes}, "correction": True}
                )
            continue
        if base is None:
            base = Assertion(section=Section.MEDICATIONS, status=FactStatus.ACTIVE, evidence=text[:1000])
            added.append(len(out))
            out.append(base.model_copy(update={"name": wrong, "retracted": True}))
        added.append(len(out))
        out.append(
            base.model_copy(
                update={
                    "name": name,
                    "normalized_hint": normalized,
                    "attributes": carried,
                    "retracted": False,
                    "correction": True,
                    "evidence": text.strip()[:1000],
                }
            )
        )
    return added


# what a retraction marker is about ("scratch that about the codeine", "забудь про аспирин")
_ABOUT = rx(r"[\s,]*(?:about|re|regarding|насч[её]т|про|关于|那个)\b|[\s,]*(?:关于|那个)")
# "Scratch that, I meant tramadol", "забудь, я имела в виду ибупрофен", "说错了，我是说布洛芬"
_MEANT = rx(r"\b(?:i\s+)?meant\b|\bi\s+mean\b|\bимел[аи]?\s+в\s+виду\b|我是说|我指的是|应该是")
# A message that opens by putting the previous one right: "penicillin" / "wait no, it was
# amoxicillin", "sorry, I mean amoxicillin", "ой, нет, на амоксициллин", "不对，是阿莫西林".
_REPLACES_PREVIOUS = rx(
    r"^\W*(?:(?:wait,?\s+no|no,?\s+sorry|sorry,?\s+no|sorry,?\s+i\s+mean[t]?|i\s+meant|my\s+(?:mistake|bad)"
    r"|ой,?\s+нет|нет,?\s+(?:точнее|вернее|стоп|погоди\w*|подожди\w*)|точнее|вернее|ошиб(?:ся|лась))\b"
    r"|(?:哦|噢|啊|诶|呃)?\s*(?:不对|说错了|搞错了|记错了))"
)


_DISEASES = frozenset({Section.CHRONIC_CONDITIONS, Section.REPORTED_DIAGNOSES})
_HAD_ILLNESS = rx(
    r"\b(?:had|have|has|got|caught|diagnosed|болел\w*|переболел\w*|был[аио]?|нашли|диагноз\w*)\b|得|患|感染"
)


def _vaccines_are_not_diseases(found: list[Draft], sentence: Sentence) -> list[Draft]:
    """A disease named inside what a vaccination rule read ("гепатит б в детстве ставили", "打了
    破伤风") is the vaccine's, not an illness the user had."""
    given = [d.span for d in found if d.section is Section.VACCINATIONS and d.status is FactStatus.PRESENT]
    if not given:
        return found
    kept = []
    for d in found:
        at = name_at(d, sentence.low, d.span[0])
        at = at if at >= 0 else d.span[0]
        inside = any(a <= at < b for a, b in given)
        # "I had hepatitis B as a kid and got the hep B vaccine later": had, and vaccinated
        had = _HAD_ILLNESS.search(sentence.low, sentence.clause(at)[0], at)
        if d.section not in _DISEASES or not inside or had:
            kept.append(d)
    return kept


def _drug_only_asked_about(draft: Draft, text: str) -> bool:
    """A drug an answer names only in a question or a plan of its own ("What do you take?" / "我自己
    啥药都没吃" / "那我能不能也吃点二甲双胍"): asked about, not taken."""
    if draft.section is not Section.MEDICATIONS or draft.status is not FactStatus.ACTIVE or not draft.name:
        return False
    name = fold_in_place(draft.name)
    said = [s for s in split_sentences(text) if name in s.low]
    return bool(said) and all(
        (
            chinese.hypothetical(s, s.low.find(name))
            if CJK.search(s.text)
            else hypothetical(s, s.low.find(name))
        )
        for s in said
    )


def _chinese_reads_chinese(sentence: Sentence, found: list[tuple[object, Draft]]) -> list[Draft]:
    """A Chinese sentence the other rules read too ("没有呕吐、黑便": they saw no negation before 黑便):
    where chinese.py reads the same thing with another status, its reading stands."""
    if not CJK.search(sentence.text):
        return [d for _, d in found]
    zh = {d.identity(): d.status for rule, d in found if rule is chinese}
    return [
        d
        for rule, d in found
        if rule is chinese
        or (zh.get(d.identity(), d.status) == d.status and not chinese.burning_said_of_a_pain(sentence, d))
    ]


def _not_taken_back(answered: list[Draft], text: str) -> list[Draft]:
    """An answer that takes a name back for another ("на пенициллин, ой нет, не то, на
    цефтриаксон"): the names said only before the take-back are void."""
    back = TAKEN_BACK_FOR.search(text)
    if back is None:
        return answered
    low = fold_in_place(text)
    before, after = low[: back.start()], low[back.end() :]

    def only_before(d: Draft) -> bool:
        if d.section not in _NAMED:
            return False  # "168, вес 72.. хотя нет, уже 69": the height stays, the weight is put right
        name = fold_in_place(d.name or "")
        return bool(name) and name in before and name not in after

    if not any(d.name and fold_in_place(d.name) in after for d in answered):
        return answered  # nothing named instead: the take-back is read elsewhere
    return [d for d in answered if not only_before(d)]


def _replace_previous(
    out: list[Assertion], previous: list[int], said: set[tuple[Section, str]], text: str
) -> None:
    """The previous message's names in the sections this message (``said``: its names) names again
    are taken back when it opens by putting the previous one right; a name said in both stays."""
    low = fold_in_place(text)
    if not _REPLACES_PREVIOUS.match(low):
        return
    sections = {section for section, _ in said if section in _NAMED}
    for i in previous:
        if out[i].retracted or out[i].section not in sections:
            continue
        name = fold_in_place(out[i].name or "")
        someone_else = (
            THIRD_PARTY.search(low) or RELATIVE.search(low) or chinese.relative_named(Sentence(low, low, ()))
        )
        if name and name in low and not someone_else:
            continue  # "sorry no, penicillin and also cats": said again, kept (not someone else's)
        if (out[i].section, _key(out[i])) not in said:
            out[i] = out[i].model_copy(update={"retracted": True})


_ALONE_AFTER = rx(r"\s*(?:[.,;!。，；！]|$)")


def _meant_instead(out: list[Assertion], voided: list[int], text: str) -> list[int]:
    """The name the user meant instead of a mention they took back: what was said of the void one
    (section, status, dose) with the right name. Returns the indexes of assertions added."""
    base = out[voided[-1]] if voided else None
    if base is None or base.section not in _NAMED:
        return []
    meant = _MEANT.search(text)
    right_after = meant is None  # after a bare take-back only the name alone: "ой нет, не то, на X"
    meant = meant or TAKEN_BACK_FOR.search(text)
    if meant is None:
        return []
    terms = find_terms(kinds_for(base.section), text[meant.end() :])
    if not terms:
        return []
    if right_after and (terms[0].start != 0 or not _ALONE_AFTER.match(text, meant.end() + terms[0].end)):
        return []
    whose = fold_in_place(text[meant.end() : meant.end() + terms[0].start])
    someone = RELATIVE.search(whose) or THIRD_PARTY.search(whose)
    if someone or chinese.relative_named(Sentence(whose, whose, ())):
        return []  # "penicillin, no wait, that's my brother who is allergic to it": not the user's
    name = text[meant.end() + terms[0].start : meant.end() + terms[0].end]
    attributes = {k: v for k, v in base.attributes.items() if k != "atc_code"}
    update = {"name": name, "normalized_hint": None, "attributes": attributes, "retracted": False}
    out.append(base.model_copy(update={**update, "correction": True, "evidence": text.strip()[:1000]}))
    return [len(out) - 1]


_DIAGNOSES = frozenset({Section.CHRONIC_CONDITIONS, Section.REPORTED_DIAGNOSES})
_SELF_ZH = rx(r"我(?!们家|家|妈|爸|爷|奶|外公|外婆|姥|哥|姐|弟|妹|儿|女|老公|老婆|丈夫|妻子)")


def _whose_result_unsaid(draft: Draft, sentence: Sentence, ctx: Context) -> bool:
    """A diagnosis told as results that came, with no one named ("пришла гистология. рак лёгкого",
    "results came back: lymphoma", "结果出来了 是肺癌"): it may be a relative's whose tests were
    spoken of in an earlier conversation, so it is asked about, not stored as the user's."""
    if draft.section not in _DIAGNOSES or draft.experiencer is not None:
        return False
    if draft.kind is not AssertionKind.FACT:
        return False
    if draft.status not in (None, FactStatus.PRESENT) or ctx.relative_in_focus is not None or ctx.asked:
        return False
    at = draft.span[0]
    if not (ctx.news_before or RESULTS_CAME.search(sentence.low, 0, at)):
        return False
    before = sentence.low[:at]
    return not (FIRST_PERSON.search(before) or _SELF_ZH.search(before) or RELATIVE.search(sentence.low))


def _assertion(draft: Draft, sentence: Sentence, correction: bool, remember: bool) -> Assertion | None:
    if draft.refers_to_focus:
        correction = correction or bool(CORRECTION.search(sentence.low))
    start, end = edge_trim(sentence.text, *draft.span)
    evidence = sentence.text[start:end]
    one_word_answer = draft.context_evidence is not None and (
        CJK.search(evidence) is not None or draft.hint == "sex"
    )
    if len(evidence.strip()) < 2 and not one_word_answer:
        return None  # a stray letter; but "对" / "有" is a whole answer in Chinese, and "Пол?" / "ж" one too
    attributes = _valid_attributes(draft.section, draft.attributes)
    if attributes is None:
        return None
    if (
        draft.section is Section.ALLERGIES
        and draft.kind is AssertionKind.FACT
        and draft.status is FactStatus.PRESENT
        and allergies.guessed(sentence, draft.span[0])
    ):
        attributes = {**attributes, "suspected": True}
    if draft.kind is AssertionKind.FACT and not (draft.name or "").strip() and not draft.refers_to_focus:
        return None
    experiencer = draft.experiencer or (
        Experiencer.RELATIVE
        if draft.section is Section.FAMILY_HISTORY and draft.kind is AssertionKind.FACT
        else Experiencer.SELF
    )
    return Assertion(
        section=draft.section,
        kind=draft.kind,
        name=(draft.name or None) and draft.name.strip()[:200],
        normalized_hint=(draft.hint or None) and draft.hint[:200],
        status=draft.status,
        attributes=attributes,
        valid_from=draft.valid_from,
        valid_to=draft.valid_to,
        evidence=evidence[:1000],
        correction=correction,
        remember=remember,
        experiencer=experiencer,
        hypothetical=draft.hypothetical,
        retracted=draft.retracted,
        temporality=draft.temporality,
        refers_to_focus=draft.refers_to_focus,
        evidence_kind=draft.evidence_kind,
        context_evidence=draft.context_evidence,
    )


def _valid_attributes(section: Section, attributes: dict) -> dict | None:
    """Attributes that pass the section schema; an invalid optional one is dropped, not the fact."""
    attributes = {k: v for k, v in attributes.items() if v is not None}
    for _ in range(len(attributes) + 1):
        try:
            return validate_attributes(section, attributes)
        except ValidationError as error:
            bad = {str(e["loc"][0]) for e in error.errors() if e.get("loc")}
            if not bad & attributes.keys():
                return None
            attributes = {k: v for k, v in attributes.items() if k not in bad}
    return None
