"""Cheap detection of what must never be missed: allergies and drugs in the user's words.

Used twice: as the write path's recall guard (the rules saw an allergy or a drug the model did
not extract -> ask again) and by the read path's read-your-writes "just said, not yet processed"
block, for a queued fragment (write/intake.py) and for chat turns still in a session buffer
(chat/sessions.py): ``pending_mention`` is the one rule for both. Recall over precision; no model,
no I/O beyond the lazily loaded synonym table.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from ..domain.models import Message, PendingMention, Role
from ..domain.sections import Section
from .normalize import find_terms
from .rules.medication_details import DOSE
from .rules.text import INSTRUCTION, rx, split_sentences

_ALLERGY = rx(
    r"аллерг|allerg|непереносим|intoleran|анафилак|anaphyla|отек\s+квинке|过敏"
    r"|\breactions?\s+to\b|\breacted\s+(?:\w+\s+)?to\b|\bреакци\w*\s+(?:\w+\s+)?на\b"
)
_MED_CUE = rx(
    r"\b(?:пью|принимаю|принимал\w*|колю|назначил\w*|выписал\w*|прописал\w*|отменил\w*"
    r"|перестал\w*\s+принимать|take|taking|took|prescribed|stopped\s+taking"
    r"|on\s+(?:a\s+)?(?:new\s+)?(?:medication|meds))\b"
)
_MED_NOUN = rx(
    r"\b(?:лекарств\w*|препарат\w*|таблет\w*|капсул\w*|medication\w*|medicine\w*|meds|pills?|tablets?)\b"
)
_DRUG_DOSE_UNITS = ("mg", "мг", "mcg", "мкг", "ml", "мл", "units", "единиц", "ед", "iu", "ме")


def detect_critical_mentions(messages: Sequence[Message]) -> list[tuple[Section, str]]:
    """(section, sentence) for each user sentence that mentions an allergy or a medication."""
    found: list[tuple[Section, str]] = []
    for message in messages:
        if message.role is not Role.USER:
            continue
        for sentence in split_sentences(message.text):
            if INSTRUCTION.search(sentence.low):
                continue
            text = sentence.text.strip()
            if _ALLERGY.search(sentence.low):
                found.append((Section.ALLERGIES, text))
            if _mentions_drug(sentence.text, sentence.low):
                found.append((Section.MEDICATIONS, text))
    return found


PENDING_TEXT_CHARS = 1000


def pending_mention(
    fragment_id: str, messages: Sequence[Message], received_at: datetime
) -> PendingMention | None:
    """What these messages (to become fragment ``fragment_id``) said about allergies or drugs, for
    the read path until the fragment is processed; None when they said nothing of the kind."""
    mentions = detect_critical_mentions(messages)
    if not mentions:
        return None
    sentences = list(dict.fromkeys(sentence for _, sentence in mentions))  # one sentence, both sections
    return PendingMention(
        fragment_id=fragment_id,
        sections=sorted({section for section, _ in mentions}),
        text=" ".join(sentences)[:PENDING_TEXT_CHARS],
        received_at=received_at,
    )


def _mentions_drug(text: str, low: str) -> bool:
    if find_terms(("drug",), text):
        return True
    dose = DOSE.search(low)
    if dose and dose.group("unit").rstrip(".").startswith(_DRUG_DOSE_UNITS):
        return True
    return bool(_MED_CUE.search(low) and _MED_NOUN.search(low))
