"""What the dialogue evaluation's users said, so a unit test file can check it copies none of it."""

from __future__ import annotations

import json
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "bench" / "eval" / "data"


def copied_eval_wording(
    test_file: str, files: str = "dialogues*.jsonl", held: bool = True, shortest: int = 0
) -> list[str]:
    """User lines of the evaluation dialogues (``files``, a glob; ``held``: the held-apart halves
    too) longer than ``shortest`` characters that ``test_file`` quotes verbatim."""
    said = {
        m["text"].strip()
        for path in sorted(DATA.glob(files))
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip() and (held or not json.loads(line).get("split", "").endswith("_held"))
        for fragment in json.loads(line)["fragments"]
        for m in fragment
    }
    source = Path(test_file).read_text(encoding="utf-8")
    return [t for t in said if len(t) > shortest and f'"{t}"' in source]
