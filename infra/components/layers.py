"""Code shared by the three functions: the ``functions/`` asset and the two layers."""

from __future__ import annotations

from pathlib import Path

from aws_cdk import BundlingOptions, DockerImage, Stack
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from infra.config import Config
from infra.layer_bundler import PipLayerBundler, requirements_hash

REPO_ROOT = Path(__file__).resolve().parents[2]
FUNCTIONS_DIR = REPO_ROOT / "functions"
DEPS_REQUIREMENTS = REPO_ROOT / "layers" / "deps" / "requirements.txt"
# Local tooling, tests and build leftovers stay out of the Lambda code asset.
CODE_EXCLUDES = [
    "ltm_local",
    "tests",
    "**/tests",
    "**/__pycache__",
    "**/*.pyc",
    "*.egg-info",
    ".mypy_cache",
    ".pytest_cache",
]
RUNTIME = lambda_.Runtime.PYTHON_3_14
ARCHITECTURE = lambda_.Architecture.ARM_64
POWERTOOLS_LAYER = (
    "arn:aws:lambda:{region}:017000801446:layer:AWSLambdaPowertoolsPythonV3-python314-arm64:{version}"
)


class SharedCode(Construct):
    def __init__(self, scope: Construct, construct_id: str, *, config: Config) -> None:
        super().__init__(scope, construct_id)
        self.code = lambda_.Code.from_asset(str(FUNCTIONS_DIR), exclude=CODE_EXCLUDES)
        dependencies = lambda_.LayerVersion(
            self,
            "DependencyLayer",
            description="Third-party packages of health_ltm (layers/deps/requirements.txt)",
            compatible_runtimes=[RUNTIME],
            compatible_architectures=[ARCHITECTURE],
            code=lambda_.Code.from_asset(
                str(DEPS_REQUIREMENTS.parent),
                asset_hash=requirements_hash(DEPS_REQUIREMENTS),
                bundling=BundlingOptions(
                    local=PipLayerBundler(DEPS_REQUIREMENTS),
                    # The API requires an image; it would run only if local bundling returned
                    # False, and the bundler raises instead.
                    image=DockerImage.from_registry(RUNTIME.bundling_image.image),
                    command=["false"],
                ),
            ),
        )
        powertools = lambda_.LayerVersion.from_layer_version_arn(
            self,
            "PowertoolsLayer",
            POWERTOOLS_LAYER.format(region=Stack.of(self).region, version=config.powertools_layer_version),
        )
        # Lambda extracts layers in list order and a later layer overwrites an earlier one's files.
        # Powertools goes last so pydantic and its dependencies stay the set it was built with.
        # CDK sorts layers by construct path (@aws-cdk/aws-lambda:recognizeLayerVersion), and
        # "DependencyLayer" < "PowertoolsLayer" keeps this order; a test guards it.
        self.layers: list[lambda_.ILayerVersion] = [dependencies, powertools]
