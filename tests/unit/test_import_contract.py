"""Which way imports run: the import-linter contract (pyproject.toml, [tool.importlinter]), and no
import cycle between modules of health_ltm.

Function-level (lazy) and TYPE_CHECKING imports count, as grimp sees them all: a lazy import
defers a cycle to the first call, it does not remove it. The module check has no ignore list, so
an ``ignore_imports`` line of the package-level ``acyclic`` contract can never hide a real cycle.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import grimp

REPO = Path(__file__).resolve().parents[2]


def test_no_module_of_health_ltm_is_in_an_import_cycle():
    graph = grimp.build_graph("health_ltm", cache_dir=None)
    cycles = []
    for importer in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            back = graph.find_shortest_chain(importer=imported, imported=importer)
            if back and importer == min(back):  # each cycle once, from its first module
                cycles.append(" -> ".join((importer, *back)))
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def test_the_import_linter_contract_holds():
    # A child process: lint-imports puts the working directory on sys.path.
    run = subprocess.run(
        [sys.executable, "-c", "from importlinter.cli import lint_imports_command as c; c()", "--no-cache"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
