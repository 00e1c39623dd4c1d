"""Code shared by the three functions: the ``functions/`` asset and the two layers.

The public Powertools layer is pinned per runtime in ``POWERTOOLS_LAYERS``: the exact
Powertools version the layer must carry, which is the version the dev venv runs (an infra test
checks it). Its ARN is not guessed: CloudFormation resolves it at deploy time from the public
SSM parameter AWS publishes per release,
``/aws/service/powertools/python/<arch>/<runtime>/<version>``, so the layer is the one built
for that runtime, architecture and version, or the deploy stops. ``-c powertools_layer_version=N``
pins a layer number instead (built with the stack's partition), for a region or partition where
the parameter is missing.

To bump: change ``aws-lambda-powertools`` in pyproject.toml and the row here together, check the
parameter exists (``aws ssm get-parameter --name /aws/service/powertools/python/arm64/python3.14/
<version> --region <region>``), run tests/infra.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from aws_cdk import (
    AssetHashType,
    BundlingOptions,
    CfnDynamicReference,
    CfnDynamicReferenceService,
    DockerImage,
    Stack,
)
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from infra.bytecode import CODE_EXCLUDES
from infra.config import Config
from infra.layer_bundler import CodeBundler, PipLayerBundler, requirements_hash

REPO_ROOT = Path(__file__).resolve().parents[2]
FUNCTIONS_DIR = REPO_ROOT / "functions"
DEPS_REQUIREMENTS = REPO_ROOT / "layers" / "deps" / "requirements.txt"
# What the code asset's fingerprint ignores (the bundler leaves the same things out).
RUNTIME = lambda_.Runtime.PYTHON_3_14
ARCHITECTURE = lambda_.Architecture.ARM_64
POWERTOOLS_ACCOUNT = "017000801446"


@dataclass(frozen=True)
class PowertoolsLayer:
    runtime: str  # Lambda runtime name, e.g. python3.14
    architecture: str  # arm64 | x86_64
    version: str  # the Powertools release the layer carries: the dev venv's version

    @property
    def parameter(self) -> str:
        """AWS's public SSM parameter holding this layer's ARN in each commercial region."""
        return f"/aws/service/powertools/python/{self.architecture}/{self.runtime}/{self.version}"

    def layer_name(self) -> str:
        return f"AWSLambdaPowertoolsPythonV3-{self.runtime.replace('.', '')}-{self.architecture}"

    def arn(self, stack: Stack, layer_version: int) -> str:
        return (
            f"arn:{stack.partition}:lambda:{stack.region}:{POWERTOOLS_ACCOUNT}:layer:"
            f"{self.layer_name()}:{layer_version}"
        )


# One row per (runtime, architecture) the stack may use. Bump with pyproject's pin (see above).
POWERTOOLS_LAYERS: dict[tuple[str, str], PowertoolsLayer] = {
    ("python3.14", "arm64"): PowertoolsLayer("python3.14", "arm64", "3.37.0"),
    ("python3.14", "x86_64"): PowertoolsLayer("python3.14", "x86_64", "3.37.0"),
    ("python3.13", "arm64"): PowertoolsLayer("python3.13", "arm64", "3.37.0"),
}


def powertools_layer(runtime: lambda_.Runtime, architecture: lambda_.Architecture) -> PowertoolsLayer:
    key = (runtime.name, architecture.name)
    if key not in POWERTOOLS_LAYERS:
        raise ValueError(f"no pinned Powertools layer for {key}: add a row to POWERTOOLS_LAYERS")
    return POWERTOOLS_LAYERS[key]


def powertools_layer_arn(stack: Stack, config: Config) -> str:
    layer = powertools_layer(RUNTIME, ARCHITECTURE)
    if config.powertools_layer_version:
        return layer.arn(stack, config.powertools_layer_version)
    return CfnDynamicReference(CfnDynamicReferenceService.SSM, layer.parameter).to_string()


class SharedCode(Construct):
    def __init__(self, scope: Construct, construct_id: str, *, config: Config) -> None:
        super().__init__(scope, construct_id)
        require = config.require_bytecode
        self.code = lambda_.Code.from_asset(
            str(FUNCTIONS_DIR),
            exclude=CODE_EXCLUDES,
            # The hash of what is shipped: sources plus the bytecode compiled for the target Python.
            asset_hash_type=AssetHashType.OUTPUT,
            bundling=BundlingOptions(
                local=CodeBundler(FUNCTIONS_DIR, require_bytecode=require),
                image=DockerImage.from_registry(RUNTIME.bundling_image.image),
                command=["false"],  # never runs: the local bundler returns True or raises
            ),
        )
        dependencies = lambda_.LayerVersion(
            self,
            "DependencyLayer",
            description="Third-party packages of health_ltm (layers/deps/requirements.txt)",
            compatible_runtimes=[RUNTIME],
            compatible_architectures=[ARCHITECTURE],
            code=lambda_.Code.from_asset(
                str(DEPS_REQUIREMENTS.parent),
                asset_hash=requirements_hash(DEPS_REQUIREMENTS, bytecode=True),
                bundling=BundlingOptions(
                    local=PipLayerBundler(DEPS_REQUIREMENTS, require_bytecode=require),
                    # The API requires an image; it would run only if local bundling returned
                    # False, and the bundler raises instead.
                    image=DockerImage.from_registry(RUNTIME.bundling_image.image),
                    command=["false"],
                ),
            ),
        )
        powertools = lambda_.LayerVersion.from_layer_version_arn(
            self, "PowertoolsLayer", powertools_layer_arn(Stack.of(self), config)
        )
        # Lambda extracts layers in list order and a later layer overwrites an earlier one's files.
        # Powertools goes last so pydantic and its dependencies stay the set it was built with.
        # CDK sorts layers by construct path (@aws-cdk/aws-lambda:recognizeLayerVersion), and
        # "DependencyLayer" < "PowertoolsLayer" keeps this order; a test guards it.
        self.layers: list[lambda_.ILayerVersion] = [dependencies, powertools]
