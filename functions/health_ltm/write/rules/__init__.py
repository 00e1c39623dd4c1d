"""The offline rule extractor and section classifier (Russian + English), split by section.

``RuleExtractor`` implements ``ports.Extractor``; ``RuleSectionClassifier`` implements
``ports.SectionClassifier``. Each ``rules/<section>.py`` module exposes ``SECTIONS`` and
``extract(sentence, ctx) -> list[Draft]``; ``text`` holds sentence/clause splitting and markers.

The two classes load on first use (PEP 562 ``__getattr__``): the api function needs only
``rules.text`` and ``rules.medication_details`` (through ``write.mentions``) and should not pay
for compiling every section's patterns on its cold start.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .classifier import RuleSectionClassifier
    from .extractor import RuleExtractor

__all__ = ["RuleExtractor", "RuleSectionClassifier"]


def __getattr__(name: str) -> Any:
    value: Any
    if name == "RuleExtractor":
        from .extractor import RuleExtractor as value
    elif name == "RuleSectionClassifier":
        from .classifier import RuleSectionClassifier as value
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value
