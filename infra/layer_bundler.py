"""Builds the dependency layer and the code asset on the host, without Docker.

pip downloads manylinux aarch64 wheels for CPython 3.14 (``--only-binary`` makes it refuse
anything it would have to compile), then we drop what the runtime or the Powertools layer already
provides: a second copy would only shadow theirs and grow the layer. pip itself must not compile
(``--no-compile``: it would write bytecode for the *host's* Python); both the layer and the code
asset are then compiled for the target Python by ``infra.bytecode`` (unchecked-hash ``.pyc``).
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

import jsii
from aws_cdk import ILocalBundling

from infra.bytecode import compile_for_target, stage_code

PYTHON_VERSION = "3.14"
PLATFORM = "manylinux2014_aarch64"
# Lambda's AL2023 has glibc 2.34: wheels tagged manylinux_2_28 (rapidfuzz's cp314 aarch64) fit too.
EXTRA_PLATFORMS = ("manylinux_2_28_aarch64",)
# boto3/botocore come with the Lambda runtime; pydantic, pydantic_core, aws_lambda_powertools
# (and its aws_xray_sdk) with the public Powertools layer.
PROVIDED_BY_RUNTIME = (
    "boto3",
    "botocore",
    "s3transfer",
    "pydantic",
    "pydantic_core",
    "aws_lambda_powertools",
    "aws_xray_sdk",
)


def pip_command(requirements: Path, target: Path) -> list[str]:
    return [
        sys.executable, "-m", "pip", "install",
        "--quiet",
        "--disable-pip-version-check",
        "--no-warn-conflicts",  # the layer is checked by its own resolution, not the host's venv
        "--no-compile",  # the host would write .pyc for its own Python; infra.bytecode compiles
        "--platform", PLATFORM,
        *[arg for extra in EXTRA_PLATFORMS for arg in ("--platform", extra)],
        # newer wheels (rapidfuzz for cp314) are tagged manylinux_2_28; the runtime has glibc 2.34
        "--platform", "manylinux_2_28_aarch64",
        "--implementation", "cp",
        "--python-version", PYTHON_VERSION,
        "--only-binary=:all:",
        "--target", str(target),
        "-r", str(requirements),
    ]  # fmt: skip


def strip_provided(site_packages: Path) -> None:
    for entry in list(site_packages.iterdir()):
        name = entry.name
        distribution = name.split("-")[0].lower() if name.endswith(".dist-info") else None
        if name in PROVIDED_BY_RUNTIME or distribution in PROVIDED_BY_RUNTIME or name == "bin":
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
    for cache in list(site_packages.rglob("__pycache__")):
        shutil.rmtree(cache, ignore_errors=True)


def requirements_hash(requirements: Path, *, bytecode: bool = False) -> str:
    """Asset hash: changes when the pinned requirements or the build recipe change, not per run."""
    recipe = " ".join([PLATFORM, *EXTRA_PLATFORMS, PYTHON_VERSION, *PROVIDED_BY_RUNTIME])
    if bytecode:
        recipe += " pyc:unchecked-hash"
    return hashlib.sha256(requirements.read_bytes() + recipe.encode()).hexdigest()


@jsii.implements(ILocalBundling)
class PipLayerBundler:
    """``BundlingOptions(local=...)``: CDK passes no source path, so it comes in here."""

    def __init__(self, requirements: Path, *, require_bytecode: bool = False) -> None:
        self._requirements = requirements
        self._require_bytecode = require_bytecode

    def try_bundle(self, output_dir: str, options) -> bool:  # CDK passes options positionally
        site_packages = Path(output_dir) / "python"
        result = subprocess.run(  # noqa: S603 - fixed argv, no shell
            pip_command(self._requirements, site_packages), capture_output=True, text=True, check=False
        )
        if result.returncode != 0:
            # Failing loudly beats falling back to Docker, which this project does not use.
            raise RuntimeError(f"pip could not build the dependency layer:\n{result.stderr}")
        strip_provided(site_packages)
        compile_for_target(
            site_packages, PYTHON_VERSION, required=self._require_bytecode, what="dependency layer"
        )
        return True


@jsii.implements(ILocalBundling)
class CodeBundler:
    """The ``functions/`` code asset: copied without local tooling and caches, then compiled."""

    def __init__(self, source: Path, *, require_bytecode: bool = False) -> None:
        self._source = source
        self._require_bytecode = require_bytecode

    def try_bundle(self, output_dir: str, options) -> bool:  # CDK passes options positionally
        staged = stage_code(self._source, Path(output_dir) / "code")
        for entry in staged.iterdir():
            shutil.move(str(entry), output_dir)
        staged.rmdir()
        compile_for_target(
            Path(output_dir), PYTHON_VERSION, required=self._require_bytecode, what="code asset"
        )
        return True
