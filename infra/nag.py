"""cdk-nag rule packs and the one way to acknowledge a finding.

cdk-nag 3.x runs as a CDK validation plugin (``Validations.of(app).add_plugins``), not as an
Aspect. A finding is acknowledged on the construct it concerns (or an ancestor) with a reason a
security reviewer can check; ``AwsSolutions-IAM5[Resource::*]``-style ids acknowledge one finding
of a multi-finding rule only.
"""

from __future__ import annotations

from aws_cdk import Acknowledgment, App, Validations
from cdk_nag import AwsSolutionsChecks, HIPAASecurityChecks, NagPack
from constructs import IConstruct


def rule_packs(app: App) -> list[NagPack]:
    return [AwsSolutionsChecks(app), HIPAASecurityChecks(app)]


def add_rule_packs(app: App) -> list[NagPack]:
    """Fail synthesis (``cdk synth``/``deploy``) on any unacknowledged finding."""
    packs = rule_packs(app)
    Validations.of(app).add_plugins(*packs)
    return packs


def acknowledge(scope: IConstruct, rule_id: str, reason: str) -> None:
    Validations.of(scope).acknowledge(Acknowledgment(id=rule_id, reason=reason))
