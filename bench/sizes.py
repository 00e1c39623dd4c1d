"""Sizes: the function code asset and each layer, zipped and unzipped.

- Function asset: ``functions/`` with the exclude list of ``infra/components/layers.py``
  (``CODE_EXCLUDES``, read from that file so the two cannot drift), zipped at deflate level 9.
  Checked against the asset in ``cdk.out`` when one is there.
- Dependency layer: built exactly as ``cdk synth`` builds it (``infra.layer_bundler.
  PipLayerBundler``: pip --platform manylinux2014_aarch64 --python-version 3.14, then the
  runtime-provided packages stripped), cached under ``.bench-tmp/`` by the requirements hash;
  without PyPI it falls back to the layer asset in ``cdk.out``.
- Powertools layer: AWS's public layer (not ours, not built here); its size is approximated by
  the same packages in the dev venv, for the 250 MB unzipped limit only.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from bench.env import REPO, TMP_DIR, child_env

REQUIREMENTS = REPO / "layers" / "deps" / "requirements.txt"
LAMBDA_UNZIPPED_LIMIT_MB = 250  # function + all layers, unzipped
POWERTOOLS_PACKAGES = (
    "aws_lambda_powertools",
    "pydantic",
    "pydantic_core",
    "aws_xray_sdk",
    "typing_extensions",
    "annotated_types",
    "typing_inspection",
    "jmespath",
    "wrapt",
)


def code_excludes() -> list[str]:
    """The code asset's excludes, as the CDK app uses them (infra/bytecode.py imports no CDK)."""
    from infra.bytecode import CODE_EXCLUDES

    return list(CODE_EXCLUDES)


def _excluded(relative: str, patterns: list[str]) -> bool:
    """CDK's glob excludes: a pattern without '/' matches a name at any depth; a match on a
    directory excludes everything under it."""
    parts = relative.split("/")
    for i in range(1, len(parts) + 1):
        prefix, name = "/".join(parts[:i]), parts[i - 1]
        for pattern in patterns:
            bare = pattern[3:] if pattern.startswith("**/") else pattern
            if "/" not in bare and fnmatch.fnmatch(name, bare):
                return True
            if fnmatch.fnmatch(prefix, pattern) or fnmatch.fnmatch(prefix, bare):
                return True
    return False


def function_files(root: Path, patterns: list[str]) -> list[Path]:
    files = []
    for path in sorted(root.rglob("*")):
        if path.is_file() and not _excluded(path.relative_to(root).as_posix(), patterns):
            files.append(path)
    return files


def _zip_size(root: Path, files: list[Path]) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "asset.zip"
        with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
            for path in files:
                archive.write(path, path.relative_to(root).as_posix())
        return target.stat().st_size


def _mb(n: int) -> float:
    return round(n / 1_000_000, 2)


def _cdk_asset(display_name: str) -> Path | None:
    manifest = REPO / "cdk.out" / "HealthLtm.assets.json"
    try:
        files = json.loads(manifest.read_text())["files"]
    except (OSError, ValueError, KeyError):
        return None
    for entry in files.values():
        if entry.get("displayName") == display_name:
            path = REPO / "cdk.out" / entry["source"]["path"]
            return path if path.is_dir() else None
    return None


def function_asset() -> dict:
    root = REPO / "functions"
    patterns = code_excludes()
    files = function_files(root, patterns)
    unzipped = sum(p.stat().st_size for p in files)
    out = {
        "excludes": patterns,
        "files": len(files),
        "unzipped_bytes": unzipped,
        "zipped_bytes": _zip_size(root, files),
        "packages": sorted({p.relative_to(root).parts[0] for p in files}),
    }
    synthesized = _cdk_asset("Functions/Api/Code")
    if synthesized is not None:
        ours = {p.relative_to(root).as_posix() for p in files}
        theirs = {
            p.relative_to(synthesized).as_posix()
            for p in synthesized.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts
        }
        out["cdk_out_check"] = {
            "asset": synthesized.name,
            "same_file_list": ours == theirs,
            "only_here": len(ours - theirs),
            "only_in_cdk_out": len(theirs - ours),
            "note": "cdk.out is whatever the last synth left; a difference may just mean it is stale",
        }
    return out


def _requirements_hash() -> str:
    code = (
        "from infra.layer_bundler import requirements_hash; from pathlib import Path; import sys; "
        "print(requirements_hash(Path(sys.argv[1])))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(REQUIREMENTS)],
        capture_output=True, text=True, env=child_env(), cwd=REPO, timeout=300, check=False,
    )  # fmt: skip
    if result.returncode == 0 and result.stdout.strip():
        return result.stdout.strip()
    return hashlib.sha256(REQUIREMENTS.read_bytes()).hexdigest()


def _build_layer(target: Path) -> tuple[bool, str]:
    """PipLayerBundler.try_bundle, as CDK calls it, in a child process (it imports aws_cdk)."""
    code = (
        "import sys; from pathlib import Path; from infra.layer_bundler import PipLayerBundler; "
        "PipLayerBundler(Path(sys.argv[1])).try_bundle(sys.argv[2], None)"
    )
    tmp = target.with_name(target.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        result = subprocess.run(
            [sys.executable, "-c", code, str(REQUIREMENTS), str(tmp)],
            capture_output=True, text=True, env=child_env(), cwd=REPO, timeout=900, check=False,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return False, "pip timed out"
    if result.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        return False, (result.stderr or result.stdout)[-500:]
    tmp.rename(target)
    return True, ""


def _tree_size(root: Path) -> tuple[int, int]:
    total, count = 0, 0
    for dirpath, _, names in os.walk(root):
        for name in names:
            path = Path(dirpath) / name
            if not path.is_symlink():
                total += path.stat().st_size
                count += 1
    return total, count


def dependency_layer() -> dict:
    digest = _requirements_hash()
    cache = TMP_DIR / "layer" / digest[:16]
    source = "pip build, cached in .bench-tmp/layer/"
    if not cache.is_dir():
        ok, error = _build_layer(cache)
        if not ok:
            synthesized = _cdk_asset("Functions/Code/DependencyLayer/Code")
            if synthesized is None:
                return {"error": f"could not build the layer (no PyPI?) and no cdk.out asset: {error}"}
            cache, source = synthesized, f"cdk.out/{synthesized.name} (pip build failed: {error[:120]})"
        else:
            source = "pip build (this run), cached in .bench-tmp/layer/"
    unzipped, count = _tree_size(cache)
    zip_cache = cache.parent / f"{cache.name}.zipsize"
    if zip_cache.is_file() and cache.parent == TMP_DIR / "layer":
        zipped = int(zip_cache.read_text())
    else:
        files = [p for p in sorted(cache.rglob("*")) if p.is_file() and not p.is_symlink()]
        zipped = _zip_size(cache, files)
        if cache.parent == TMP_DIR / "layer":
            zip_cache.write_text(str(zipped))
    site = cache / "python"
    by_package: dict[str, int] = {}
    if site.is_dir():
        for entry in site.iterdir():
            if entry.name.endswith(".dist-info"):
                continue
            size = _tree_size(entry)[0] if entry.is_dir() else entry.stat().st_size
            name = entry.name.split(".")[0]
            by_package[name] = by_package.get(name, 0) + size
    top = sorted(by_package.items(), key=lambda kv: -kv[1])[:10]
    return {
        "source": source,
        "requirements_hash": digest,
        "files": count,
        "unzipped_bytes": unzipped,
        "zipped_bytes": zipped,
        "largest_packages_mb": [[name, _mb(size)] for name, size in top],
    }


def powertools_layer_estimate() -> dict:
    import importlib.util

    total = 0
    found = []
    for name in POWERTOOLS_PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.origin:
            continue
        origin = Path(spec.origin)
        root = origin.parent if origin.name == "__init__.py" or spec.submodule_search_locations else origin
        total += _tree_size(root)[0] if root.is_dir() else root.stat().st_size
        found.append(name)
    return {
        "owner": "AWS: public layer AWSLambdaPowertoolsPythonV3-python314-arm64 (infra/components/layers.py)",
        "approx_unzipped_bytes": total,
        "packages_counted": found,
        "note": "not built or measured here: the same packages in the dev venv (x86_64, CPython 3.11), "
        "for the 250 MB limit only",
    }


def run(quick: bool = False) -> dict:
    function = function_asset()
    layer = dependency_layer()
    powertools = powertools_layer_estimate()
    total = function["unzipped_bytes"] + layer.get("unzipped_bytes", 0) + powertools["approx_unzipped_bytes"]
    return {
        "function_asset": function,
        "dependency_layer": layer,
        "powertools_layer": powertools,
        "unzipped_total_mb": _mb(total),
        "lambda_unzipped_limit_mb": LAMBDA_UNZIPPED_LIMIT_MB,
        "headroom_mb": round(LAMBDA_UNZIPPED_LIMIT_MB - total / 1_000_000, 1),
    }
