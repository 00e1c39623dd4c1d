"""A compact per-user profile summary inside a token budget (seed 003: 200-400 tokens).

Deterministic: built from the current facts, safety constraints first; used by the read path
for general questions where no single section applies.
"""

from __future__ import annotations

from ..domain.models import UserMemory
from ..domain.sections import SAFETY_SECTIONS, Section
from ..read.context import visible
from ..read.render import SECTION_TITLES, fact_line
from ..read.tokens import count_tokens


def render_summary(memory: UserMemory, max_tokens: int) -> tuple[str, list[str]]:
    order = list(dict.fromkeys([*SAFETY_SECTIONS, *Section]))
    lines: list[str] = []
    used_ids: list[str] = []
    used = 0
    for section in order:
        facts = [f for f in memory.facts if f.section is section and visible(f, history_intent=False)]
        if not facts:
            continue
        facts.sort(key=lambda f: -f.last_confirmed_at.timestamp())
        header = f"{SECTION_TITLES[section]}:"
        header_cost = count_tokens(header) + 1
        section_lines: list[str] = []
        for fact in facts:
            line = fact_line(fact)
            cost = count_tokens(line) + 1
            if used + header_cost * (not section_lines) + cost > max_tokens:
                break
            if not section_lines:
                used += header_cost
            section_lines.append(line)
            used_ids.append(fact.id)
            used += cost
        if section_lines:
            lines.append(header)
            lines.extend(section_lines)
    return "\n".join(lines), used_ids
