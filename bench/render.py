"""Markdown pages from results: the words are in bench/templates/*.md, every number in the results.

A template file is a series of blocks, each opened by a line ``<!-- name -->``; a block is a
``string.Template`` (``$name`` placeholders, ``$$`` for a dollar sign). The code fills blocks with
values taken from the results (numbers, and tables made of them) and joins them into a page.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from pathlib import Path
from string import Template
from typing import Any

TEMPLATES = Path(__file__).resolve().parent / "templates"
_BLOCK = re.compile(r"^<!-- ([\w.]+) -->$", re.M)


@functools.cache
def blocks(page: str) -> dict[str, Template]:
    text = (TEMPLATES / f"{page}.md").read_text(encoding="utf-8")
    parts = _BLOCK.split(text)
    return {name: Template(body.strip("\n")) for name, body in zip(parts[1::2], parts[2::2], strict=True)}


def fill(page: str, block: str, **values: Any) -> str:
    """One block with its placeholders filled (every placeholder must be given), its paragraphs
    and list items each on one line (the template wraps them for reading)."""
    return re.sub(r"\n{3,}", "\n\n", _unwrap(blocks(page)[block].substitute(values)))


_STARTS_BLOCK = re.compile(r"(\||#|<|- |\* |\d+\. )")


def _unwrap(text: str) -> str:
    lines: list[str] = []
    for line in text.split("\n"):
        previous = lines[-1] if lines else ""
        joins = previous.strip() and not previous.startswith(("|", "#", "<"))
        if joins and line.strip() and not _STARTS_BLOCK.match(line.lstrip()):
            lines[-1] = f"{previous} {line.strip()}"
        else:
            lines.append(line)
    return "\n".join(lines)


def cell(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value).replace("|", "\\|")


def plain(value: Any) -> str:
    """A cell as ``str`` writes it (booleans as yes / no): for values the caller formatted."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def table(
    header: str | list[str], rows: list[list[Any]], cell: Callable[[Any], str] = cell, right: str = ""
) -> str:
    """A Markdown table; ``header`` is a list or "a | b | c"; ``right`` marks right-aligned columns
    with "r" ("-rr": the 2nd and 3rd)."""
    if isinstance(header, str):
        header = header.split(" | ")
    rule = ["---:" if right[n : n + 1] == "r" else "---" for n in range(len(header))]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(rule) + "|"]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def join(parts: list[str]) -> str:
    """The page: non-empty parts a blank line apart, ending with a newline."""
    return "\n\n".join(p.strip("\n") for p in parts if p and p.strip()) + "\n"
