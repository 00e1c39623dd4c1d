"""cdk-nag (AwsSolutions + HIPAA Security), cfn-lint and CDK's own annotations on the template.

cdk-nag 3.x is a validation plugin: it reports when the app synthesizes, not through
Annotations. The tests call the packs' ``validate_scope`` on the synthesized tree to get the
findings as data (the same call the plugin makes during ``cdk synth``), and one canary test proves
the plugin wiring of ``infra.nag`` really fails a synthesis.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from aws_cdk import App, Stack, Validations
from aws_cdk import aws_sqs as sqs
from aws_cdk.assertions import Annotations, Match
from infra.config import Config
from infra.nag import add_rule_packs, rule_packs

pytestmark = pytest.mark.xdist_group("infra")


def _findings(app: App) -> list[str]:
    return [
        f"{violation.severity} {violation.rule_name}: {resource.construct_path} ({violation.description})"
        for pack in rule_packs(app)
        for violation in pack.validate_scope(app).violations
        for resource in violation.violating_resources
    ]


def test_aws_solutions_and_hipaa_packs_find_nothing_unacknowledged(synthesized):
    assert _findings(synthesized.app) == []


def test_nothing_unacknowledged_with_the_non_default_context_either(variant):
    assert _findings(variant.app) == []


def test_the_nag_plugin_fails_synthesis_on_a_finding(tmp_path):
    app = App(outdir=str(tmp_path), context={"aws:cdk:bundling-stacks": []})
    stack = Stack(app, "Canary")
    sqs.Queue(stack, "PlainQueue")  # no DLQ, no TLS-only policy
    add_rule_packs(app)

    with pytest.raises(RuntimeError, match=r"ValidationFailed(.|\n)*AwsSolutions-SQS4"):
        app.synth()


def _acknowledgements(app: App) -> dict[tuple[str, str], str]:
    found = {}
    for construct in app.node.find_all():
        for entry in construct.node.metadata:
            if entry.type == Validations.ACKNOWLEDGED_RULES_METADATA_KEY:
                for rule_id, reason in entry.data.items():
                    found[(construct.node.path, rule_id)] = reason
    return found


def test_every_acknowledgement_gives_a_reviewable_reason(synthesized):
    acknowledgements = _acknowledgements(synthesized.app)

    assert acknowledgements  # the walk itself works
    for (path, rule_id), reason in acknowledgements.items():
        assert len(reason) >= 80, f"{path} {rule_id}: say why, specifically"


def test_cdk_reports_no_warnings_or_errors(synthesized):
    annotations = Annotations.from_stack(synthesized.stack)

    assert annotations.find_error("*", Match.any_value()) == []
    assert annotations.find_warning("*", Match.any_value()) == []


def test_cfn_lint_finds_no_errors(synthesized, tmp_path):
    template = tmp_path / "HealthLtm.template.json"
    template.write_text(json.dumps(synthesized.template.to_json()))
    cfn_lint = shutil.which("cfn-lint", path=str(Path(sys.executable).parent)) or "cfn-lint"

    result = subprocess.run(
        [cfn_lint, "--regions", "eu-central-1", "--", str(template)],
        capture_output=True,
        text=True,
        check=False,
    )

    assert result.returncode in (0, 4), result.stdout + result.stderr  # 4: warnings only


def test_cdk_json_context_has_no_unknown_keys(cdk_context):
    known = set(Config.__dataclass_fields__) | {"region"}
    ours = {key for key in cdk_context if not key.startswith("@aws-cdk")}

    assert ours <= known, ours - known
