"""IAM for the functions: one customer-managed policy per function, every statement named.

A function's role is handed to Lambda as immutable, so ``grant_*`` calls and CDK's implicit
grants (event sources, tracing, DLQ) do nothing on it: add a statement here instead. That keeps
every permission in one reviewed policy and no inline policy next to it.
"""

from __future__ import annotations

from aws_cdk import Stack
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_logs as logs
from constructs import Construct

from infra.nag import acknowledge

TABLE_ACTIONS = [
    "dynamodb:DescribeTable",
    "dynamodb:GetItem",
    "dynamodb:BatchGetItem",
    "dynamodb:Query",
    "dynamodb:ConditionCheckItem",
    "dynamodb:PutItem",
    "dynamodb:UpdateItem",
    "dynamodb:DeleteItem",
    "dynamodb:BatchWriteItem",
]
SECRET_ACTIONS = ["secretsmanager:GetSecretValue", "secretsmanager:DescribeSecret"]
SEND_ACTIONS = ["sqs:SendMessage", "sqs:GetQueueAttributes", "sqs:GetQueueUrl"]
CONSUME_ACTIONS = [
    "sqs:ReceiveMessage",
    "sqs:ChangeMessageVisibility",
    "sqs:DeleteMessage",
    "sqs:GetQueueAttributes",
    "sqs:GetQueueUrl",
]
# Data keys of the table, the queues and the secret, only through those services (the set CDK's
# table/queue/secret grants use, without their wildcard forms).
KEY_ACTIONS = ["kms:Decrypt", "kms:Encrypt", "kms:GenerateDataKey", "kms:DescribeKey"]
KEY_VIA_SERVICES = ("dynamodb", "sqs", "secretsmanager")
TRACE_ACTIONS = ["xray:PutTraceSegments", "xray:PutTelemetryRecords"]


def statement(sid: str, actions: list[str], resources: list[str]) -> iam.PolicyStatement:
    return iam.PolicyStatement(sid=sid, actions=actions, resources=resources)


def key_use_through_services(key: kms.IKey) -> iam.PolicyStatement:
    region = Stack.of(key).region
    return iam.PolicyStatement(
        sid="UseDataKeysThroughServices",
        actions=KEY_ACTIONS,
        resources=[key.key_arn],
        conditions={
            "StringEquals": {"kms:ViaService": [f"{s}.{region}.amazonaws.com" for s in KEY_VIA_SERVICES]}
        },
    )


def function_role(
    scope: Construct, name: str, log_group: logs.ILogGroup, statements: list[iam.PolicyStatement]
) -> iam.Role:
    """A Lambda role whose only policy is its own logs, X-Ray, and ``statements``."""
    construct_id = name.capitalize()
    policy = iam.ManagedPolicy(
        scope,
        f"{construct_id}Policy",
        description=f"Health LTM {name} function: everything it may touch",
        statements=[
            statement(
                "WriteOwnLogs", ["logs:CreateLogStream", "logs:PutLogEvents"], [log_group.log_group_arn]
            ),
            statement("SendTraces", TRACE_ACTIONS, ["*"]),
            *statements,
        ],
    )
    acknowledge(
        policy,
        "AwsSolutions-IAM5[Resource::*]",
        "X-Ray PutTraceSegments/PutTelemetryRecords support no resource-level permissions "
        "(AWS service authorization reference), so Resource must be '*'. All other statements "
        "of this policy name their table, index, queue, secret, collection or key ARN.",
    )
    # The role references the policy, so the policy exists before the function and before the
    # SQS event source mapping, which checks the role's permissions when it is created.
    return iam.Role(
        scope,
        f"{construct_id}Role",
        assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
        description=f"Health LTM {name} function",
        managed_policies=[policy],
    )
