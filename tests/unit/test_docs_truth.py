"""docs/architecture.md describes what is built: every path it names exists, its route table is
the app's (every route, nothing more), its item table names every kind of item the key layout
makes, and its state machines name every fragment status, fact stage and history event."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from health_ltm.domain.models import EventType, FragmentStatus
from health_ltm.domain.sections import Stage
from health_ltm.handlers.api_app import build_app

REPO = Path(__file__).resolve().parents[2]
DOC = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
PACKAGE = REPO / "functions" / "health_ltm"
_ROOTS = ("functions/", "infra/", "bench/", "tests/", "docs/")


def _named_paths() -> set[str]:
    found = set(re.findall(r"`([\w./-]+\.(?:py|json|md|toml))`", DOC))
    found |= set(re.findall(r"`([\w-]+(?:/[\w-]+)*/)`", DOC))  # packages: `write/rules/`
    return found


@pytest.mark.parametrize("path", sorted(_named_paths()))
def test_every_path_the_document_names_exists(path):
    base = REPO if path.startswith(_ROOTS) or path == "pyproject.toml" else PACKAGE
    assert (base / path).exists(), f"docs/architecture.md names {path}, which does not exist"


def _route_table() -> set[tuple[str, str]]:
    return set(re.findall(r"^\| (GET|POST|PUT|PATCH|DELETE) \| (/\S+) \|", DOC, flags=re.MULTILINE))


def test_the_route_table_is_the_apps():
    app = build_app()
    served = {(route.method, route.openapi_path) for route in app._static_routes + app._dynamic_routes}
    assert _route_table() == served


def test_each_route_is_listed_in_the_module_that_registers_it():
    for method, path, module in re.findall(
        r"^\| (GET|POST|PUT|PATCH|DELETE) \| (/\S+) \| `handlers/(\w+)\.py` \|", DOC, flags=re.MULTILINE
    ):
        source = (PACKAGE / "handlers" / f"{module}.py").read_text(encoding="utf-8")
        rule = path.replace("{", "<").replace("}", ">")
        assert f'"{rule}"' in source or rule.rsplit("/", 1)[-1] in source, (method, path, module)


def test_the_item_table_names_every_kind_of_item():
    from health_ltm.storage import keys
    from health_ltm.storage.rate_limit import RATE_PREFIX

    made = {
        keys.SECTIONS_PREFIX,  # facts and documented facts, by section
        keys.ENDED_PREFIX,  # ended facts, whole
        keys.CURRENT_PREFIX,  # current-state copies
        keys.ALWAYS_PREFIX,  # the small always-read items
        *(keys.fact_sk("allergies", "ID").split("allergies")[1].split("ID")[0],),  # "#F#"
        *(keys.documented_sk("allergies", "ID").split("allergies")[1].split("ID")[0],),
        *(sk[len(keys.ALWAYS_PREFIX):].split("X")[0]
          for sk in (keys.section_sk("X"), keys.clarification_sk("X"), keys.pending_sk("X"))),
        keys.SUMMARY_SK[len(keys.ALWAYS_PREFIX):],
        *(sk.split("X")[0] for sk in (keys.history_sk("X", "Y"), keys.key_guard_sk("X", "Y"),
                                      keys.fragment_sk("X"), keys.episode_sk("X"), keys.active_sk("X"),
                                      keys.session_sk("X"))),
        RATE_PREFIX,
        keys.tombstone_pk("X").split("#")[0] + "#",
    }  # fmt: skip
    item_table = DOC.split("## Item layout", 1)[1].split("\n## ", 1)[0]
    for marker in made:
        assert marker in item_table, marker


def test_the_state_machines_name_every_status_stage_and_event():
    section = DOC.split("## State machines", 1)[1].split("\n## ", 1)[0]
    for value in [*FragmentStatus, *Stage, *EventType]:
        assert f"`{value.value}`" in section, value
