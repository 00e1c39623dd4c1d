"""The HealthLtm stack: wires the constructs of ``infra.components`` together and exports outputs."""

from __future__ import annotations

from aws_cdk import CfnOutput, Stack
from constructs import Construct

from infra.components.api import Api
from infra.components.auth import Auth
from infra.components.data import Data
from infra.components.encryption import Encryption
from infra.components.functions import METRICS_NAMESPACE, SERVICE_NAME, Functions
from infra.components.monitoring import Monitoring
from infra.components.queues import Queues
from infra.components.secret import ModelSecret
from infra.components.vectors import Vectors
from infra.components.waf import Waf
from infra.config import Config

STACK_NAME = "HealthLtm"


class HealthLtmStack(Stack):
    def __init__(self, scope: Construct, construct_id: str = STACK_NAME, **kwargs) -> None:
        super().__init__(scope, construct_id, **kwargs)
        config = Config.from_context(self.node)

        key = Encryption(self, "Encryption", config=config).key
        data = Data(self, "Data", config=config, key=key)
        queues = Queues(self, "Queues", key=key)
        secret = ModelSecret(self, "ModelSecret", config=config, key=key)
        vectors = Vectors(self, "Vectors", config=config, key=key)
        functions = Functions(
            self,
            "Functions",
            config=config,
            key=key,
            data=data,
            queues=queues,
            secret=secret,
            vectors=vectors,
        )
        vectors.grant_data_access(functions.roles)
        auth = Auth(self, "Auth", config=config)
        api = Api(self, "Api", config=config, key=key, handler=functions.api, user_pool=auth.user_pool)
        Waf(self, "Waf", config=config, key=key, stage=api.stage)

        monitoring = Monitoring(self, "Monitoring", config=config, key=key)
        monitoring.dead_letters("ExtractionDlq", queues.extraction_dlq)
        monitoring.dead_letters("MaintenanceDlq", queues.maintenance_dlq)
        monitoring.dead_letters("MaintainInvocationDlq", functions.maintain_dlq)
        monitoring.backlog("ExtractionQueue", queues.extraction)
        for name, function in (
            ("Api", functions.api),
            ("Extract", functions.extract),
            ("Maintain", functions.maintain),
        ):
            monitoring.function_errors(name, function)
        monitoring.api_server_errors(api.rest_api)
        monitoring.model_key_missing(METRICS_NAMESPACE, SERVICE_NAME)

        CfnOutput(self, "ApiUrl", value=api.url)
        CfnOutput(self, "TableName", value=data.table.table_name)
        CfnOutput(self, "ExtractionQueueUrl", value=queues.extraction.queue_url)
        CfnOutput(self, "MaintenanceQueueUrl", value=queues.maintenance.queue_url)
        CfnOutput(self, "CollectionEndpoint", value=vectors.endpoint)
        CfnOutput(self, "UserPoolId", value=auth.user_pool.user_pool_id)
        if auth.user_pool_client is not None:
            CfnOutput(self, "UserPoolClientId", value=auth.user_pool_client.user_pool_client_id)
        CfnOutput(self, "OpenAiSecretArn", value=secret.secret.secret_arn)
        CfnOutput(self, "AlarmTopicArn", value=monitoring.topic.topic_arn)
