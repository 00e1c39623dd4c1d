"""CDK entry point: ``npx cdk synth`` runs ``.venv/bin/python -m infra.app`` (see cdk.json)."""

from __future__ import annotations

import os

from aws_cdk import App, Environment

from infra.config import DEFAULT_REGION
from infra.nag import add_rule_packs
from infra.stack import STACK_NAME, HealthLtmStack


def default_environment(app: App) -> Environment:
    """The CLI's account/region (AWS profile), else the ``region`` context value, else eu-central-1."""
    region = os.environ.get("CDK_DEFAULT_REGION") or app.node.try_get_context("region") or DEFAULT_REGION
    return Environment(account=os.environ.get("CDK_DEFAULT_ACCOUNT"), region=region)


def build(app: App, *, nag: bool = True, env: Environment | None = None) -> HealthLtmStack:
    stack = HealthLtmStack(
        app,
        STACK_NAME,
        env=env or default_environment(app),
        description="Health LTM: long-term memory service of a personal health assistant",
    )
    if nag:
        add_rule_packs(app)
    return stack


def main() -> None:
    app = App()
    build(app)
    app.synth()


if __name__ == "__main__":
    main()
