"""Reviewed, versioned data files of the package, each parsed once per process."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any


@cache
def load(name: str) -> Any:
    """A data file's JSON (``synonyms.json``, ``query_classes.json``, ``policies.json``): read and
    parsed on first use, then shared by every reader (write rules and the query classifier both
    need the synonym table)."""
    return json.loads(resources.files(__name__).joinpath(name).read_text("utf-8"))
