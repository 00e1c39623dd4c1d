"""Precompiled bytecode for the Lambda code asset and the dependency layer.

Lambda's ``/var/task`` and ``/opt`` are read-only: without ``__pycache__/*.pyc`` shipped in the
zip, every cold start compiles every imported module again (and cannot keep the result). So the
asset and the layer are compiled at build time, by an interpreter of the *target* version
(bytecode is per Python minor version), with ``--invalidation-mode unchecked-hash``: the zip's
file times are not the build's, and an unchecked-hash ``.pyc`` is used without looking at them.

The target interpreter is ``$LTM_TARGET_PYTHON`` or ``python3.14`` on PATH. Without it the build
ships no bytecode and says so on stderr; ``-c require_bytecode=true`` makes that an error (for
deploys; a CI image or the Lambda build image has python3.14).
No CDK import here: ``bench.cold_start`` builds Lambda-like trees with the same functions.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

TARGET_PYTHON_ENV = "LTM_TARGET_PYTHON"
# Local tooling, tests and build leftovers stay out of the Lambda code asset.
CODE_EXCLUDE_NAMES = ("ltm_local", "tests", "__pycache__", ".mypy_cache", ".pytest_cache")
CODE_EXCLUDE_SUFFIXES = (".pyc", ".egg-info")
# The code asset's excludes, as CDK globs (here, not in components/layers.py, so that the bench
# can read them without importing CDK).
CODE_EXCLUDES = [
    *CODE_EXCLUDE_NAMES,
    "**/tests",
    "**/__pycache__",
    *[f"**/*{suffix}" for suffix in CODE_EXCLUDE_SUFFIXES],
]


class BytecodeUnavailable(RuntimeError):
    """No interpreter of the target version to compile with, and bytecode is required."""


def interpreter_version(python: str) -> str | None:
    try:
        out = subprocess.run(  # noqa: S603 - an interpreter path, fixed argv
            [python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
            capture_output=True, text=True, timeout=30, check=True,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip()


def target_python(version: str) -> str | None:
    """An interpreter of ``version`` (``$LTM_TARGET_PYTHON``, else ``python<version>`` on PATH)."""
    explicit = os.environ.get(TARGET_PYTHON_ENV, "").strip()
    if explicit:
        found = shutil.which(explicit) or explicit
        if interpreter_version(found) != version:
            raise BytecodeUnavailable(f"{TARGET_PYTHON_ENV}={explicit} is not Python {version}")
        return found
    if f"{sys.version_info[0]}.{sys.version_info[1]}" == version:
        return sys.executable
    found = shutil.which(f"python{version}")
    return found if found and interpreter_version(found) == version else None


def compile_tree(root: Path, python: str) -> int:
    """Write unchecked-hash ``.pyc`` files next to every module under ``root``; returns how many."""
    result = subprocess.run(  # noqa: S603 - fixed argv
        [python, "-m", "compileall", "-q", "-j", "0", "--invalidation-mode", "unchecked-hash", str(root)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    # compileall exits 1 when a file does not compile (e.g. a py2 leftover in a package): those
    # modules keep compiling at import, the rest are done. Anything else is a real failure.
    if result.returncode not in (0, 1):
        raise RuntimeError(f"compileall failed:\n{result.stderr[-2000:]}")
    return sum(1 for _ in root.rglob("*.pyc"))


def compile_for_target(root: Path, version: str, *, required: bool, what: str) -> int:
    """Compile ``root`` for Python ``version`` if an interpreter is here; else warn or raise."""
    python = target_python(version)
    if python is None:
        message = (
            f"{what}: no Python {version} on this host (set {TARGET_PYTHON_ENV} or put python{version} "
            "on PATH), so it ships without .pyc and every cold start compiles its imports"
        )
        if required:
            raise BytecodeUnavailable(message + "; -c require_bytecode=true makes this an error")
        print(f"warning: {message}", file=sys.stderr)
        return 0
    return compile_tree(root, python)


def _ignored(names: Iterable[str]) -> set[str]:
    return {n for n in names if n in CODE_EXCLUDE_NAMES or n.endswith(CODE_EXCLUDE_SUFFIXES)}


def stage_code(source: Path, target: Path) -> Path:
    """Copy the code asset (``functions/`` without local tooling, tests and caches) to ``target``."""
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(source, target, ignore=lambda _dir, names: _ignored(names))
    return target
