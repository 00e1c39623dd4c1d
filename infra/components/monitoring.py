"""Alarms that mean "something was not processed": dead letters, function errors, API 5xx, backlog."""

from __future__ import annotations

from aws_cdk import ArnFormat, Duration, Stack
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_cloudwatch_actions as actions
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sns_subscriptions as subscriptions
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from infra.config import Config

PERIOD = Duration.minutes(5)
# A fragment waiting this long is "just said, not yet processed" for too long.
EXTRACTION_BACKLOG_S = 15 * 60


class Monitoring(Construct):
    def __init__(self, scope: Construct, construct_id: str, *, config: Config, key: kms.IKey) -> None:
        super().__init__(scope, construct_id)
        alarms_of_this_account = Stack.of(self).format_arn(
            service="cloudwatch",
            resource="alarm",
            resource_name="*",
            arn_format=ArnFormat.COLON_RESOURCE_NAME,
        )
        self.topic = sns.Topic(self, "AlarmTopic", master_key=key, enforce_ssl=True)
        # enforce_ssl replaces the default topic policy, so CloudWatch alarms need an explicit grant.
        self.topic.add_to_resource_policy(
            iam.PolicyStatement(
                sid="CloudWatchAlarmsOfThisAccountPublish",
                principals=[iam.ServicePrincipal("cloudwatch.amazonaws.com")],
                actions=["sns:Publish"],
                resources=[self.topic.topic_arn],
                conditions={"ArnLike": {"aws:SourceArn": alarms_of_this_account}},
            )
        )
        if config.alarm_email:
            self.topic.add_subscription(subscriptions.EmailSubscription(config.alarm_email))
        self._action = actions.SnsAction(self.topic)

    def dead_letters(self, name: str, queue: sqs.IQueue) -> cloudwatch.Alarm:
        return self._alarm(
            f"{name}DeadLetters",
            f"Messages in {name}: they were not processed; inspect and redrive",
            queue.metric_approximate_number_of_messages_visible(period=PERIOD, statistic="Maximum"),
            threshold=0,
        )

    def function_errors(self, name: str, function: lambda_.IFunction) -> cloudwatch.Alarm:
        return self._alarm(
            f"{name}Errors",
            f"The {name} function raised errors",
            function.metric_errors(period=PERIOD, statistic="Sum"),
            threshold=0,
        )

    def api_server_errors(self, api: apigw.RestApi) -> cloudwatch.Alarm:
        return self._alarm(
            "ApiServerErrors",
            "The API answered with 5xx",
            api.metric_server_error(period=PERIOD, statistic="Sum"),
            threshold=0,
        )

    def model_key_missing(self, namespace: str, service: str) -> cloudwatch.Alarm:
        """The write path ran on the offline rules because no model key is set (handlers/extract.py)."""
        return self._alarm(
            "ModelKeyMissing",
            "No model key in the OpenAI secret: fragments are extracted by the offline rules, not "
            "the model. Put the key in (aws secretsmanager put-secret-value) and run ltm doctor",
            cloudwatch.Metric(
                namespace=namespace,
                metric_name="ModelKeyMissing",
                dimensions_map={"service": service},
                period=PERIOD,
                statistic="Sum",
            ),
            threshold=0,
        )

    def backlog(self, name: str, queue: sqs.IQueue) -> cloudwatch.Alarm:
        return self._alarm(
            f"{name}Backlog",
            f"The oldest message in {name} waits longer than {EXTRACTION_BACKLOG_S // 60} minutes",
            queue.metric_approximate_age_of_oldest_message(period=PERIOD, statistic="Maximum"),
            threshold=EXTRACTION_BACKLOG_S,
        )

    def _alarm(
        self, construct_id: str, description: str, metric: cloudwatch.IMetric, threshold: float
    ) -> cloudwatch.Alarm:
        alarm = cloudwatch.Alarm(
            self,
            construct_id,
            alarm_description=description,
            metric=metric,
            threshold=threshold,
            comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
            evaluation_periods=1,
            treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
        )
        alarm.add_alarm_action(self._action)
        alarm.add_ok_action(self._action)
        return alarm
