"""CDK entry point: ``npx cdk synth`` runs ``.venv/bin/python -m infra.app`` (see cdk.json).

The region is a decision (where health data lives: GDPR, 152-FZ), so it is never taken from the
operator's AWS profile. One precedence, and nothing else counts:

1. ``-c region=eu-central-1`` (CDK context on the command line, or in cdk.context.json);
2. the environment variable ``HEALTH_LTM_REGION``.

The CLI's own ``CDK_DEFAULT_REGION`` / ``AWS_REGION`` (the profile's region) is ignored: without
one of the two above, ``cdk synth`` and ``cdk deploy`` stop with a message saying how to give it.
"""

from __future__ import annotations

import os
import re
import sys

from aws_cdk import App, Environment

from infra.nag import add_rule_packs
from infra.stack import STACK_NAME, HealthLtmStack

REGION_CONTEXT = "region"
REGION_ENV = "HEALTH_LTM_REGION"
_REGION = re.compile(r"^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-\d$")


class RegionNotGiven(ValueError):
    """No explicit region: the app refuses to guess where health data should live."""


def deployment_region(app: App) -> str:
    """``-c region=...``, else ``HEALTH_LTM_REGION``; never the AWS profile's region."""
    region = app.node.try_get_context(REGION_CONTEXT) or os.environ.get(REGION_ENV, "").strip()
    if not region:
        raise RegionNotGiven(
            "Health LTM: no region given. The region decides where health data is stored, so it is "
            f"never taken from your AWS profile. Give it with `-c region=eu-central-1` (wins) or "
            f"`{REGION_ENV}=eu-central-1` in the environment, e.g. "
            f"`{REGION_ENV}=eu-central-1 make synth` or `npx cdk deploy -c region=eu-central-1`."
        )
    if not _REGION.match(str(region)):
        raise RegionNotGiven(f"Health LTM: {region!r} is not an AWS region name (e.g. eu-central-1)")
    return str(region)


def default_environment(app: App) -> Environment:
    """The explicit region (see ``deployment_region``) and the CLI's account."""
    return Environment(account=os.environ.get("CDK_DEFAULT_ACCOUNT"), region=deployment_region(app))


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
    try:
        build(app)
    except RegionNotGiven as error:
        print(error, file=sys.stderr)
        raise SystemExit(2) from None
    app.synth()


if __name__ == "__main__":
    main()
