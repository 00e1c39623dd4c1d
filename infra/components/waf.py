"""A regional WAF in front of the API stage: IP reputation, common exploits, per-IP rate limit."""

from __future__ import annotations

from aws_cdk import ArnFormat, Stack
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_kms as kms
from aws_cdk import aws_logs as logs
from aws_cdk import aws_wafv2 as wafv2
from constructs import Construct

from infra.config import Config
from infra.names import unique_name

# Fragments (up to 40 messages of 4000 chars) exceed the common rule set's 8 KB body limit; the
# function validates sizes itself, so that one rule only counts.
_COUNT_ONLY = {"AWSManagedRulesCommonRuleSet": ["SizeRestrictions_BODY"]}
_MANAGED_RULE_GROUPS = (
    "AWSManagedRulesAmazonIpReputationList",
    "AWSManagedRulesCommonRuleSet",
    "AWSManagedRulesKnownBadInputsRuleSet",
)


class Waf(Construct):
    def __init__(
        self, scope: Construct, construct_id: str, *, config: Config, key: kms.IKey, stage: apigw.Stage
    ) -> None:
        super().__init__(scope, construct_id)
        stack = Stack.of(self)
        rules = [
            wafv2.CfnWebACL.RuleProperty(
                name="RateLimitPerIp",
                priority=0,
                action=wafv2.CfnWebACL.RuleActionProperty(block={}),
                statement=wafv2.CfnWebACL.StatementProperty(
                    rate_based_statement=wafv2.CfnWebACL.RateBasedStatementProperty(
                        limit=config.waf_rate_limit, aggregate_key_type="IP"
                    )
                ),
                visibility_config=_visibility("RateLimitPerIp"),
            )
        ]
        for priority, group in enumerate(_MANAGED_RULE_GROUPS, start=1):
            rules.append(
                wafv2.CfnWebACL.RuleProperty(
                    name=group,
                    priority=priority,
                    override_action=wafv2.CfnWebACL.OverrideActionProperty(none={}),
                    statement=wafv2.CfnWebACL.StatementProperty(
                        managed_rule_group_statement=wafv2.CfnWebACL.ManagedRuleGroupStatementProperty(
                            vendor_name="AWS",
                            name=group,
                            rule_action_overrides=[
                                wafv2.CfnWebACL.RuleActionOverrideProperty(
                                    name=rule, action_to_use=wafv2.CfnWebACL.RuleActionProperty(count={})
                                )
                                for rule in _COUNT_ONLY.get(group, [])
                            ]
                            or None,
                        )
                    ),
                    visibility_config=_visibility(group),
                )
            )
        web_acl = wafv2.CfnWebACL(
            self,
            "WebAcl",
            scope="REGIONAL",
            default_action=wafv2.CfnWebACL.DefaultActionProperty(allow={}),
            visibility_config=_visibility(f"{stack.stack_name}Api"),
            rules=rules,
        )
        wafv2.CfnWebACLAssociation(
            self, "StageAssociation", resource_arn=stage.stage_arn, web_acl_arn=web_acl.attr_arn
        )

        # WAF requires the "aws-waf-logs-" prefix and an ARN without the trailing ":*".
        # Named (WAF wants the prefix), so it ends with the stack creation's id (infra/names.py):
        # a log group kept by a failed first create cannot block the retry.
        log_group_name = unique_name(self, f"aws-waf-logs-{stack.stack_name}", max_length=512)
        log_group = logs.LogGroup(
            self,
            "Logs",
            log_group_name=log_group_name,
            encryption_key=key,
            retention=config.log_retention,
            removal_policy=config.removal_policy,
        )
        logging = wafv2.CfnLoggingConfiguration(
            self,
            "Logging",
            resource_arn=web_acl.attr_arn,
            log_destination_configs=[
                stack.format_arn(
                    service="logs",
                    resource="log-group",
                    resource_name=log_group_name,
                    arn_format=ArnFormat.COLON_RESOURCE_NAME,
                )
            ],
            # Keep only blocked or counted requests, without credentials or query strings.
            redacted_fields=[
                wafv2.CfnLoggingConfiguration.FieldToMatchProperty(single_header={"Name": "authorization"}),
                wafv2.CfnLoggingConfiguration.FieldToMatchProperty(query_string={}),
            ],
            logging_filter={
                "DefaultBehavior": "DROP",
                "Filters": [
                    {
                        "Behavior": "KEEP",
                        "Requirement": "MEETS_ANY",
                        "Conditions": [
                            {"ActionCondition": {"Action": "BLOCK"}},
                            {"ActionCondition": {"Action": "COUNT"}},
                        ],
                    }
                ],
            },
        )
        logging.node.add_dependency(log_group)


def _visibility(metric_name: str) -> wafv2.CfnWebACL.VisibilityConfigProperty:
    return wafv2.CfnWebACL.VisibilityConfigProperty(
        cloud_watch_metrics_enabled=True, metric_name=metric_name, sampled_requests_enabled=False
    )
