"""One synthesis of the HealthLtm stack shared by the infrastructure tests (a few seconds).

The app gets cdk.json's context (feature flags and defaults), so the tests check the template
``cdk synth`` produces, minus the dependency layer build (``aws:cdk:bundling-stacks: []``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import pytest
from aws_cdk import App, Environment, Stack
from aws_cdk.assertions import Template
from infra.app import build

REPO_ROOT = Path(__file__).resolve().parents[2]


def cdk_json_context() -> dict:
    return json.loads((REPO_ROOT / "cdk.json").read_text())["context"]


@dataclass(frozen=True)
class Synthesized:
    app: App
    stack: Stack
    template: Template
    outdir: Path

    @cached_property
    def resources(self) -> dict:
        return self.template.to_json()["Resources"]

    def of_type(self, resource_type: str) -> dict[str, dict]:
        return {k: v for k, v in self.resources.items() if v["Type"] == resource_type}

    def one(self, resource_type: str) -> dict:
        (resource,) = self.of_type(resource_type).values()
        return resource["Properties"]

    def api_methods(self) -> dict[tuple[str, str], dict]:
        """{(HTTP method, "/v1/health"): Method properties}, paths rebuilt from the Resource tree."""
        parents = {
            logical_id: (props["Properties"]["ParentId"], props["Properties"]["PathPart"])
            for logical_id, props in self.of_type("AWS::ApiGateway::Resource").items()
        }

        def path(resource_id: object) -> str:
            if not isinstance(resource_id, dict) or "Ref" not in resource_id:
                return ""  # Fn::GetAtt RestApi.RootResourceId
            parent, part = parents[resource_id["Ref"]]
            return f"{path(parent)}/{part}"

        return {
            (m["Properties"]["HttpMethod"], path(m["Properties"]["ResourceId"])): m["Properties"]
            for m in self.of_type("AWS::ApiGateway::Method").values()
        }

    def queue_ids(self) -> dict[str, str]:
        """Logical ids of the work queues (CloudFormation names them), from the functions' env."""
        env = self.functions()["maintain"]["Environment"]["Variables"]
        return {
            "extraction": env["LTM_EXTRACTION_QUEUE_URL"]["Ref"],
            "maintenance": env["LTM_MAINTENANCE_QUEUE_URL"]["Ref"],
        }

    def functions(self) -> dict[str, dict]:
        """Lambda function properties by handler module (api, extract, maintain)."""
        return {
            f["Properties"]["Handler"].split(".")[-2]: f["Properties"]
            for f in self.of_type("AWS::Lambda::Function").values()
        }


REGION = "eu-central-1"  # cdk.json names none on purpose: the tests give it as `-c region=` would


def synthesize(outdir: Path, **context) -> Synthesized:
    app = App(
        outdir=str(outdir),
        context={**cdk_json_context(), "region": REGION, "aws:cdk:bundling-stacks": [], **context},
    )
    # No rule packs here: test_compliance runs them on this tree and reports findings itself.
    # A fixed environment, whatever AWS profile the machine has.
    stack = build(app, nag=False, env=Environment(region=app.node.try_get_context("region")))
    app.synth()
    return Synthesized(app=app, stack=stack, template=Template.from_stack(stack), outdir=outdir)


@pytest.fixture(scope="session")
def synthesized(tmp_path_factory: pytest.TempPathFactory) -> Synthesized:
    return synthesize(tmp_path_factory.mktemp("cdk.out"))


VARIANT_CONTEXT = {
    "deletion_protection": "false",  # as `-c deletion_protection=false` passes it
    "vector_standby_replicas": "false",
    "user_pool_arn": "arn:aws:cognito-idp:eu-central-1:123456789012:userpool/eu-central-1_Abc123",
    "cors_origin": "https://app.example.com",
}


@pytest.fixture(scope="session")
def variant_context() -> dict:
    return dict(VARIANT_CONTEXT)


@pytest.fixture(scope="session")
def cdk_context() -> dict:
    return cdk_json_context()


@pytest.fixture(scope="session")
def variant(tmp_path_factory: pytest.TempPathFactory) -> Synthesized:
    """A second synthesis with every non-default context value the tests exercise."""
    return synthesize(tmp_path_factory.mktemp("cdk.out.variant"), **VARIANT_CONTEXT)


STACK_ID_SUFFIX = "{stack-id-8}"


def text_of(value: object) -> str:
    """A template string value with its intrinsics spelled out: ``Fn::Join`` joined, the stack-id
    suffix of ``infra/names.py`` as ``{stack-id-8}``, ``Ref``/``GetAtt`` as ``{Ref:X}``/``{X.Attr}``."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        if "Fn::Join" in value:
            separator, parts = value["Fn::Join"]
            return separator.join(text_of(part) for part in parts)
        if "Fn::Select" in value and "AWS::StackId" in str(value):
            return STACK_ID_SUFFIX
        if "Ref" in value:
            return f"{{Ref:{value['Ref']}}}"
        if "Fn::GetAtt" in value:
            return "{{{}.{}}}".format(*value["Fn::GetAtt"])
    raise AssertionError(f"unexpected template value {value!r}")
