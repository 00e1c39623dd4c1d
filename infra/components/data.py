"""The single DynamoDB table, built from ``health_ltm.schema``, and its AWS Backup plan."""

from __future__ import annotations

from aws_cdk import Duration, Stack
from aws_cdk import aws_backup as backup
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_events as events
from aws_cdk import aws_kms as kms
from constructs import Construct

from health_ltm import schema
from infra.config import Config
from infra.nag import acknowledge
from infra.names import unique_name

_ATTRIBUTE_TYPES = {
    "S": dynamodb.AttributeType.STRING,
    "N": dynamodb.AttributeType.NUMBER,
    "B": dynamodb.AttributeType.BINARY,
}
_PROJECTIONS = {
    "KEYS_ONLY": dynamodb.ProjectionType.KEYS_ONLY,
    "ALL": dynamodb.ProjectionType.ALL,
    "INCLUDE": dynamodb.ProjectionType.INCLUDE,
}


class Data(Construct):
    def __init__(self, scope: Construct, construct_id: str, *, config: Config, key: kms.IKey) -> None:
        super().__init__(scope, construct_id)
        # The boto3 CreateTable shape is the source of truth; CloudFormation names the table.
        definition = schema.table_definition(table_name="unused-by-cdk")
        if definition["BillingMode"] != "PAY_PER_REQUEST":
            raise ValueError("the stack only knows on-demand billing")
        types = {a["AttributeName"]: a["AttributeType"] for a in definition["AttributeDefinitions"]}

        partition_key, sort_key = _keys(definition["KeySchema"], types)
        self.table = dynamodb.Table(
            self,
            "Table",
            partition_key=partition_key,
            sort_key=sort_key,
            billing_mode=dynamodb.BillingMode.PAY_PER_REQUEST,
            encryption=dynamodb.TableEncryption.CUSTOMER_MANAGED,
            encryption_key=key,
            point_in_time_recovery_specification=dynamodb.PointInTimeRecoverySpecification(
                point_in_time_recovery_enabled=True
            ),
            time_to_live_attribute=schema.TTL_ATTRIBUTE,
            deletion_protection=config.deletion_protection,
            removal_policy=config.removal_policy,
        )
        for index in definition["GlobalSecondaryIndexes"]:
            index_partition, index_sort = _keys(index["KeySchema"], types)
            self.table.add_global_secondary_index(
                index_name=index["IndexName"],
                partition_key=index_partition,
                sort_key=index_sort,
                projection_type=_PROJECTIONS[index["Projection"]["ProjectionType"]],
            )

        self._add_backup_plan(config, key)

    def _add_backup_plan(self, config: Config, key: kms.IKey) -> None:
        # PITR covers 35 days of point-in-time restores; AWS Backup adds daily snapshots that
        # survive a dropped table. Retention stays short so erased users leave backups soon after.
        vault = backup.BackupVault(
            self,
            "BackupVault",
            # CDK's default name is fixed per construct path: a vault kept by a failed first create
            # would block the retry. Ending with the stack creation's id, it cannot.
            backup_vault_name=unique_name(self, f"{Stack.of(self).stack_name}-backup", max_length=50),
            encryption_key=key,
            removal_policy=config.removal_policy,
        )
        plan = backup.BackupPlan(self, "BackupPlan", backup_vault=vault)
        plan.add_rule(
            backup.BackupPlanRule(
                rule_name="Daily",
                schedule_expression=events.Schedule.cron(hour="2", minute="30"),
                delete_after=Duration.days(config.backup_retention_days),
            )
        )
        selection = plan.add_selection(
            "Table", resources=[backup.BackupResource.from_dynamo_db_table(self.table)]
        )
        acknowledge(
            selection,
            "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/"
            "AWSBackupServiceRolePolicyForBackup]",
            "The AWS Backup service role uses the AWS-maintained service-role policy AWS documents "
            "for backup jobs; it is assumable only by backup.amazonaws.com and tracks new "
            "service requirements, which a hand-copied policy would not.",
        )


def _keys(
    key_schema: list[dict], types: dict[str, str]
) -> tuple[dynamodb.Attribute, dynamodb.Attribute | None]:
    by_role = {
        k["KeyType"]: dynamodb.Attribute(
            name=k["AttributeName"], type=_ATTRIBUTE_TYPES[types[k["AttributeName"]]]
        )
        for k in key_schema
    }
    return by_role["HASH"], by_role.get("RANGE")
