"""The three Lambda functions (api, extract, maintain), their environment, roles and triggers."""

from __future__ import annotations

from dataclasses import dataclass

from aws_cdk import Duration
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_lambda_event_sources as sources
from aws_cdk import aws_logs as logs
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from health_ltm import schema
from health_ltm.settings import Settings
from infra.components import permissions as perm
from infra.components.data import Data
from infra.components.layers import ARCHITECTURE, RUNTIME, SharedCode
from infra.components.queues import Queues
from infra.components.secret import ModelSecret
from infra.components.vectors import Vectors
from infra.config import Config
from infra.nag import acknowledge

# Must match health_ltm.observability (a test checks it).
SERVICE_NAME = "health-ltm"
METRICS_NAMESPACE = "HealthLTM"
# API Gateway REST ends every integration at 29 s with its own 504 (and a Lambda timeout is a
# 502). The api function stops before that, and the chat route's model budget (settings
# chat_timeout_s x attempts + backoff) plus the rest of a turn fits inside the function, so a
# slow model is the route's designed 504 ("your message was kept").
API_GATEWAY_INTEGRATION_LIMIT_S = 29
API_TIMEOUT_S = 25
# What a chat turn does besides the model call: context (DynamoDB, episodes budget, the query
# classifier's own budget), the session buffer write, and the cold start's imports.
CHAT_TURN_OVERHEAD_S = 4.0
_DEFAULTS = Settings.model_construct()  # the code defaults, not this shell's environment


def check_chat_budget(settings: Settings = _DEFAULTS) -> float:
    """The chat model budget must end before the function and the function before the gateway."""
    budget = settings.chat_budget_s
    if not budget + CHAT_TURN_OVERHEAD_S <= API_TIMEOUT_S < API_GATEWAY_INTEGRATION_LIMIT_S:
        raise ValueError(
            f"chat model budget {budget:.0f} s + {CHAT_TURN_OVERHEAD_S:.0f} s must fit in the api "
            f"function's {API_TIMEOUT_S} s, below API Gateway's {API_GATEWAY_INTEGRATION_LIMIT_S} s"
        )
    return budget


@dataclass(frozen=True)
class FunctionSpec:
    name: str
    handler: str
    timeout_s: int
    memory_mb: int
    description: str


API = FunctionSpec(
    "api", "health_ltm.handlers.api.handler", API_TIMEOUT_S, 1024, "read path, profile, fragments in"
)
EXTRACT = FunctionSpec(
    "extract", "health_ltm.handlers.extract.handler", schema.EXTRACT_TIMEOUT_S, 1024, "fragment to facts"
)
MAINTAIN = FunctionSpec(
    "maintain",
    "health_ltm.handlers.maintain.handler",
    schema.MAINTAIN_TIMEOUT_S,
    512,
    "policies, consolidation",
)


class Functions(Construct):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: Config,
        key: kms.IKey,
        data: Data,
        queues: Queues,
        secret: ModelSecret,
        vectors: Vectors,
    ) -> None:
        super().__init__(scope, construct_id)
        check_chat_budget()
        self._config = config
        self._key = key
        self._shared = SharedCode(self, "Code", config=config)
        self._environment = {
            "LTM_TABLE_NAME": data.table.table_name,
            "LTM_EXTRACTION_QUEUE_URL": queues.extraction.queue_url,
            "LTM_MAINTENANCE_QUEUE_URL": queues.maintenance.queue_url,
            "LTM_VECTOR_ENDPOINT": vectors.endpoint,
            "LTM_VECTOR_INDEX": vectors.index_name,
            "LTM_OPENAI_SECRET_ARN": secret.secret.secret_arn,  # the ARN only: read at run time
            "OPENAI_BASE_URL": config.openai_base_url,
            "LTM_CLASSIFIER_MODEL": config.classifier_model,
            "LTM_EXTRACTOR_MODEL": config.extractor_model,
            "LTM_CHAT_MODEL": config.chat_model,
            "LTM_EMBEDDING_MODEL": config.embedding_model,
            "LTM_CORS_ORIGIN": config.cors_origin,
            # Stated, not defaulted: the budget infra checked is the budget the function runs.
            "LTM_CHAT_TIMEOUT_S": str(_DEFAULTS.chat_attempt_timeout_s),
            "LTM_CHAT_MAX_RETRIES": str(_DEFAULTS.chat_retries),
            "LTM_STRUCTURED_OUTPUT": _DEFAULTS.structured_output,
            "POWERTOOLS_SERVICE_NAME": SERVICE_NAME,
            "POWERTOOLS_METRICS_NAMESPACE": METRICS_NAMESPACE,
            "POWERTOOLS_LOG_LEVEL": config.log_level,
        }
        table_arns = [data.table.table_arn, f"{data.table.table_arn}/index/{schema.ACTIVE_USERS_INDEX}"]
        common = [
            perm.statement("ReadWriteMemoryTable", perm.TABLE_ACTIONS, table_arns),
            perm.statement("ReadOpenAiKey", perm.SECRET_ACTIONS, [secret.secret.secret_arn]),
            perm.statement("UseEpisodeCollection", ["aoss:APIAccessAll"], [vectors.arn]),
            perm.key_use_through_services(key),
        ]
        extraction, maintenance = queues.extraction.queue_arn, queues.maintenance.queue_arn

        self.api = self._function(
            API, [*common, perm.statement("QueueFragments", perm.SEND_ACTIONS, [extraction])]
        )
        acknowledge(
            self.api,
            "HIPAA.Security-LambdaDLQ",
            "Invoked only synchronously by API Gateway: the caller gets the error and retries. A "
            "Lambda dead-letter queue applies to asynchronous invocations only.",
        )
        _acknowledge_concurrency(
            self.api,
            "Bounded upstream by the stage throttle (context throttle_rate_limit/throttle_burst_limit) "
            "and the WAF per-IP rate rule; reserved concurrency would only carve capacity out of the "
            "account pool and duplicate those limits.",
        )

        self.extract = self._function(
            EXTRACT, [*common, perm.statement("ConsumeFragments", perm.CONSUME_ACTIONS, [extraction])]
        )
        self.extract.add_event_source(
            sources.SqsEventSource(
                queues.extraction,
                batch_size=schema.EXTRACTION_QUEUE.batch_size,
                report_batch_item_failures=True,
                max_concurrency=config.extract_max_concurrency,
            )
        )
        acknowledge(
            self.extract,
            "HIPAA.Security-LambdaDLQ",
            "Invoked only by the SQS event source mapping (synchronous polling). A failed record "
            "returns to the FIFO queue and after maxReceiveCount moves to the extraction DLQ, which "
            "is alarmed; a Lambda dead-letter queue would never receive anything.",
        )
        _acknowledge_concurrency(
            self.extract,
            "Bounded by the SQS event source MaximumConcurrency (context extract_max_concurrency), "
            "which caps the pollers without reserving account concurrency; FIFO message groups "
            "further serialise each user's fragments.",
        )

        # Scheduled (asynchronous) invocations that still fail after Lambda's retries land here.
        self.maintain_dlq = sqs.Queue(
            self,
            "MaintainInvocationDlq",
            encryption=sqs.QueueEncryption.KMS,
            encryption_master_key=key,
            enforce_ssl=True,
            retention_period=Duration.days(schema.DLQ_RETENTION_DAYS),
        )
        self.maintain = self._function(
            MAINTAIN,
            [
                *common,
                perm.statement("FanOutToUsers", perm.SEND_ACTIONS, [maintenance]),
                # Idle chat sessions are flushed as fragments to the extraction queue.
                perm.statement("QueueIdleSessionFragments", perm.SEND_ACTIONS, [extraction]),
                perm.statement("ConsumeUserBatches", perm.CONSUME_ACTIONS, [maintenance]),
                perm.statement("ParkFailedScheduledRuns", ["sqs:SendMessage"], [self.maintain_dlq.queue_arn]),
            ],
            dead_letter_queue=self.maintain_dlq,
        )
        self.maintain.add_event_source(
            sources.SqsEventSource(
                queues.maintenance,
                batch_size=schema.MAINTENANCE_QUEUE.batch_size,
                report_batch_item_failures=True,
                max_concurrency=config.maintain_max_concurrency,
            )
        )
        events.Rule(
            self,
            "MaintenanceSchedule",
            description="Starts the maintenance fan-out",
            schedule=events.Schedule.expression(config.maintenance_schedule),
            targets=[
                targets.LambdaFunction(self.maintain, retry_attempts=2, max_event_age=Duration.hours(2))
            ],
        )
        events.Rule(
            self,
            "SessionSweepSchedule",
            description="Flushes chat sessions that went idle to the write path",
            schedule=events.Schedule.expression(config.session_sweep_schedule),
            targets=[
                targets.LambdaFunction(
                    self.maintain,
                    event=events.RuleTargetInput.from_object({"detail": {"task": "sessions"}}),
                    retry_attempts=2,
                    max_event_age=Duration.minutes(30),
                )
            ],
        )
        _acknowledge_concurrency(
            self.maintain,
            "Bounded by the SQS event source MaximumConcurrency (context maintain_max_concurrency), "
            "one nightly fan-out and a light session sweep every few minutes (one invocation each); "
            "reserved concurrency would only remove account capacity.",
        )

    @property
    def roles(self) -> list[iam.IRole]:
        return [function.role for function in (self.api, self.extract, self.maintain)]

    def _function(
        self,
        spec: FunctionSpec,
        statements: list[iam.PolicyStatement],
        dead_letter_queue: sqs.IQueue | None = None,
    ) -> lambda_.Function:
        construct_id = spec.name.capitalize()
        log_group = logs.LogGroup(
            self,
            f"{construct_id}Logs",
            encryption_key=self._key,
            retention=self._config.log_retention,
            removal_policy=self._config.removal_policy,
        )
        role = perm.function_role(self, spec.name, log_group, statements)
        function = lambda_.Function(
            self,
            construct_id,
            description=f"Health LTM {spec.name}: {spec.description}",
            runtime=RUNTIME,
            architecture=ARCHITECTURE,
            handler=spec.handler,
            code=self._shared.code,
            layers=self._shared.layers,
            environment=self._environment,
            environment_encryption=self._key,
            timeout=Duration.seconds(spec.timeout_s),
            memory_size=spec.memory_mb,
            tracing=lambda_.Tracing.ACTIVE,
            log_group=log_group,
            role=role.without_policy_updates(),
            dead_letter_queue=dead_letter_queue,
            recursive_loop=lambda_.RecursiveLoop.TERMINATE,
        )
        acknowledge(
            function,
            "HIPAA.Security-LambdaInsideVPC",
            "The function reaches only AWS public service endpoints (DynamoDB, SQS, Secrets Manager, "
            "OpenSearch Serverless) with SigV4 over TLS, plus the OpenAI API on the internet; there is "
            "no VPC resource to reach. Access to the data is restricted by IAM, the collection's "
            "data-access policy and the KMS key, which a VPC would not narrow; it would add NAT egress.",
        )
        return function


def _acknowledge_concurrency(function: lambda_.Function, reason: str) -> None:
    acknowledge(function, "HIPAA.Security-LambdaConcurrency", reason)
