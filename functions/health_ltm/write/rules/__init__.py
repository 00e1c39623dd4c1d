"""The offline rule extractor and section classifier (Russian + English), split by section.

``RuleExtractor`` implements ``ports.Extractor``; ``RuleSectionClassifier`` implements
``ports.SectionClassifier``. Each ``rules/<section>.py`` module exposes ``SECTIONS`` and
``extract(sentence, ctx) -> list[Draft]``; ``text`` holds sentence/clause splitting and markers.
"""

from .classifier import RuleSectionClassifier
from .extractor import RuleExtractor

__all__ = ["RuleExtractor", "RuleSectionClassifier"]
