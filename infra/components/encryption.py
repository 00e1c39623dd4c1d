"""The customer-managed KMS key that encrypts everything the service keeps at rest."""

from __future__ import annotations

from aws_cdk import ArnFormat, Duration, Stack
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from constructs import Construct

from infra.config import Config


class Encryption(Construct):
    def __init__(self, scope: Construct, construct_id: str, *, config: Config) -> None:
        super().__init__(scope, construct_id)
        stack = Stack.of(self)
        # The default key policy delegates to IAM in this account: function roles get key use
        # through their own policies (scoped by kms:ViaService); DynamoDB, SQS, Secrets Manager,
        # OpenSearch Serverless, Lambda and AWS Backup use grants made by the deploying role.
        # Services acting without any role of ours need a statement here.
        self.key = kms.Key(
            self,
            "Key",
            description=f"{stack.stack_name}: health memory at rest",
            enable_key_rotation=True,
            pending_window=Duration.days(30),
            removal_policy=config.removal_policy,
        )
        log_groups_of_this_account = stack.format_arn(
            service="logs",
            resource="log-group",
            resource_name="*",
            arn_format=ArnFormat.COLON_RESOURCE_NAME,
        )
        self.key.add_to_resource_policy(
            iam.PolicyStatement(
                sid="CloudWatchLogsUseForThisAccountsLogGroups",
                principals=[iam.ServicePrincipal(f"logs.{stack.region}.amazonaws.com")],
                actions=[
                    "kms:Encrypt*",
                    "kms:Decrypt*",
                    "kms:ReEncrypt*",
                    "kms:GenerateDataKey*",
                    "kms:Describe*",
                ],
                resources=["*"],
                conditions={"ArnLike": {"kms:EncryptionContext:aws:logs:arn": log_groups_of_this_account}},
            )
        )
        # CloudWatch alarms publish to the encrypted alarm topic; the statement is the one AWS
        # documents for that case (the service offers no narrower condition key for it).
        self.key.add_to_resource_policy(
            iam.PolicyStatement(
                sid="CloudWatchAlarmsPublishToEncryptedTopic",
                principals=[iam.ServicePrincipal("cloudwatch.amazonaws.com")],
                actions=["kms:Decrypt", "kms:GenerateDataKey*"],
                resources=["*"],
            )
        )
