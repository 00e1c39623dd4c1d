"""The Docker-free dependency layer: pip for Lambda's platform, then strip what Lambda provides."""

from __future__ import annotations

from pathlib import Path

import pytest
from infra.components.layers import DEPS_REQUIREMENTS
from infra.layer_bundler import (
    PROVIDED_BY_RUNTIME,
    PipLayerBundler,
    pip_command,
    requirements_hash,
    strip_provided,
)

LAMBDA_UNZIPPED_LIMIT = 250 * 1024 * 1024


def test_pip_targets_lambdas_platform_with_wheels_only(tmp_path):
    command = pip_command(Path("requirements.txt"), tmp_path / "python")

    joined = " ".join(command)
    assert "--platform manylinux2014_aarch64" in joined
    assert "--implementation cp" in joined
    assert "--python-version 3.14" in joined
    assert "--only-binary=:all:" in joined
    assert f"--target {tmp_path / 'python'}" in joined


def test_strip_removes_runtime_packages_their_metadata_and_caches(tmp_path):
    for name in ("boto3", "botocore", "pydantic", "pydantic_core", "aws_lambda_powertools", "openai", "bin"):
        (tmp_path / name / "__pycache__").mkdir(parents=True)
    (tmp_path / "pydantic-2.14.4.dist-info").mkdir()
    (tmp_path / "openai-3.57.0.dist-info").mkdir()

    strip_provided(tmp_path)

    left = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*"))
    assert left == ["openai", "openai-3.57.0.dist-info"]


def test_layer_hash_follows_the_requirements_file(tmp_path):
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("openai==1\n")
    before = requirements_hash(requirements)
    requirements.write_text("openai==2\n")

    assert requirements_hash(requirements) != before


def test_requirements_pin_python_dateutil_below_3():
    lines = [line.split("#")[0].strip() for line in DEPS_REQUIREMENTS.read_text().splitlines()]
    (dateutil,) = [line for line in lines if line.startswith("python-dateutil")]

    assert dateutil.startswith("python-dateutil==2.") or "<3" in dateutil


@pytest.mark.slow
def test_bundles_a_complete_arm64_layer_without_docker(tmp_path):
    assert PipLayerBundler(DEPS_REQUIREMENTS).try_bundle(str(tmp_path), None) is True

    site = tmp_path / "python"
    names = {p.name for p in site.iterdir()}
    assert {"openai", "opensearchpy", "requests", "bpe_openai", "pydantic_settings"} <= names
    assert not names & set(PROVIDED_BY_RUNTIME)
    assert not list(site.rglob("__pycache__"))
    assert list((site / "bpe_openai").glob("*aarch64*.so")) or list((site / "jiter").glob("*aarch64*.so"))
    assert sum(f.stat().st_size for f in site.rglob("*") if f.is_file()) < LAMBDA_UNZIPPED_LIMIT // 2
