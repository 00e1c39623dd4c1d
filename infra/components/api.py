"""The REST API: Cognito-authorized app routes, a few public ones, one IAM-only ingestion route."""

from __future__ import annotations

import json

from aws_cdk import Duration, Fn
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_cognito as cognito
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct

from infra.config import Config
from infra.nag import acknowledge

STAGE_NAME = "prod"
# Public on purpose, and why: a reviewer reads these reasons in the cdk-nag acknowledgements.
PUBLIC_GET_PATHS = {
    "health": "the liveness probe for uptime monitoring",
    "docs": "the human-readable API documentation",
    "openapi.json": "the machine-readable API description the docs page loads",
}
# Every method and request header the routes use (docs/openapi.json; a test compares them):
# PUT /v1/facts/{id} and PATCH carry If-Match, POST /v1/fragments Idempotency-Key.
CORS_HEADERS = [
    "Authorization",
    "Content-Type",
    "Idempotency-Key",
    "If-Match",
    "X-Amz-Date",
    "X-Amz-Security-Token",
]
CORS_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

# Who, what route, outcome, timing: never the request path (it can carry ids), query string or body.
ACCESS_LOG_FIELDS = {
    "requestId": apigw.AccessLogField.context_request_id(),
    "ip": apigw.AccessLogField.context_identity_source_ip(),
    "httpMethod": apigw.AccessLogField.context_http_method(),
    "resourcePath": apigw.AccessLogField.context_resource_path(),
    "status": apigw.AccessLogField.context_status(),
    "responseLength": apigw.AccessLogField.context_response_length(),
    "requestTime": apigw.AccessLogField.context_request_time(),
    "integrationLatency": apigw.AccessLogField.context_integration_latency(),
}


class Api(Construct):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: Config,
        key: kms.IKey,
        handler: lambda_.IFunction,
        user_pool: cognito.IUserPool,
    ) -> None:
        super().__init__(scope, construct_id)
        access_logs = logs.LogGroup(
            self,
            "AccessLogs",
            encryption_key=key,
            retention=config.log_retention,
            removal_policy=config.removal_policy,
        )
        self.rest_api = apigw.RestApi(
            self,
            "RestApi",
            description="Health LTM: long-term memory of the health assistant",
            endpoint_types=[apigw.EndpointType.REGIONAL],
            fail_on_warnings=True,
            # Access and execution logging need the account-level API Gateway logging role.
            cloud_watch_role=True,
            deploy_options=apigw.StageOptions(
                stage_name=STAGE_NAME,
                tracing_enabled=True,
                throttling_rate_limit=config.throttle_rate_limit,
                throttling_burst_limit=config.throttle_burst_limit,
                metrics_enabled=True,
                # ERROR-level execution logs without data trace: failures, never payloads.
                logging_level=apigw.MethodLoggingLevel.ERROR,
                data_trace_enabled=False,
                access_log_destination=apigw.LogGroupLogDestination(access_logs),
                access_log_format=apigw.AccessLogFormat.custom(json.dumps(ACCESS_LOG_FIELDS)),
            ),
        )
        self.stage = self.rest_api.deployment_stage
        self._own_execution_log_group(config, key)
        self._add_cors_to_error_responses(config.cors_origin)

        validator = self.rest_api.add_request_validator(
            "Validator", validate_request_body=True, validate_request_parameters=True
        )
        integration = apigw.LambdaIntegration(handler, proxy=True, allow_test_invoke=False)
        v1 = self.rest_api.root.add_resource("v1")

        for path, purpose in PUBLIC_GET_PATHS.items():
            resource = v1.add_resource(path)
            self._add_cors_preflight(resource, config.cors_origin)
            method = resource.add_method(
                "GET",
                integration,
                authorization_type=apigw.AuthorizationType.NONE,
                request_validator=validator,
            )
            for rule in ("AwsSolutions-APIG4", "AwsSolutions-COG4"):
                acknowledge(
                    method,
                    rule,
                    f"GET /v1/{path} is {purpose}; it must work before sign-in, returns no user data "
                    "and never reads the authorizer context. Stage throttling and the WAF still apply.",
                )

        authorizer = apigw.CognitoUserPoolsAuthorizer(
            self, "CognitoAuthorizer", cognito_user_pools=[user_pool]
        )
        proxy = v1.add_resource("{proxy+}")
        self._add_cors_preflight(proxy, config.cors_origin)
        self.app_method = proxy.add_method(
            "ANY",
            integration,
            authorization_type=apigw.AuthorizationType.COGNITO,
            authorizer=authorizer,
            request_parameters={"method.request.path.proxy": True},
            request_validator=validator,
        )

        # Documented data (lab results, documents) pushed by other services with SigV4, never by the
        # app; no CORS preflight, so browsers cannot call it either.
        document = self.rest_api.add_model(
            "DocumentModel",
            content_type="application/json",
            schema=apigw.JsonSchema(
                schema=apigw.JsonSchemaVersion.DRAFT4,
                title="DocumentedData",
                type=apigw.JsonSchemaType.OBJECT,
            ),
        )
        self.internal_method = (
            v1.add_resource("internal")
            .add_resource("documents")
            .add_method(
                "POST",
                integration,
                authorization_type=apigw.AuthorizationType.IAM,
                request_validator=validator,
                request_models={"application/json": document},
            )
        )
        acknowledge(
            self.internal_method,
            "AwsSolutions-COG4",
            "Service-to-service ingestion of documented data: callers are other backend services with "
            "IAM roles (SigV4), not app users with Cognito tokens. AWS_IAM authorization is required.",
        )

        acknowledge(
            self.stage,
            "HIPAA.Security-APIGWCacheEnabledAndEncrypted",
            "Responses are per-user health data behind a Cognito authorizer; a stage cache would be keyed "
            "by path rather than user and could serve one user's memory to another or a stale allergy "
            "list. Caching is deliberately off.",
        )
        acknowledge(
            self.stage,
            "HIPAA.Security-APIGWSSLEnabled",
            "A stage client certificate only lets HTTP backends authenticate API Gateway. The only "
            "backend is a Lambda proxy integration that API Gateway invokes with SigV4 over TLS; there is "
            "no HTTP endpoint to verify a certificate. Clients reach the API over TLS only.",
        )
        cloud_watch_role = self.rest_api.node.find_child("CloudWatchRole")
        acknowledge(
            cloud_watch_role,
            "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/"
            "AmazonAPIGatewayPushToCloudWatchLogs]",
            "Account-level role API Gateway assumes to write access and execution logs; the AWS-managed "
            "policy is the one AWS documents for it and is limited to CloudWatch Logs actions. Only "
            "apigateway.amazonaws.com can assume the role.",
        )

    @property
    def url(self) -> str:
        return self.rest_api.url

    def _own_execution_log_group(self, config: Config, key: kms.IKey) -> None:
        """API Gateway would create this group itself: unencrypted and kept forever."""
        group = logs.LogGroup(
            self,
            "ExecutionLogs",
            log_group_name=Fn.join(
                "", ["API-Gateway-Execution-Logs_", self.rest_api.rest_api_id, f"/{STAGE_NAME}"]
            ),
            encryption_key=key,
            retention=config.log_retention,
            removal_policy=config.removal_policy,
        )
        self.stage.node.add_dependency(group)

    def _add_cors_to_error_responses(self, origin: str) -> None:
        # Authorizer and throttling errors come from API Gateway itself, not from the function.
        headers = {"Access-Control-Allow-Origin": f"'{origin}'"}
        for response_type in (apigw.ResponseType.DEFAULT_4_XX, apigw.ResponseType.DEFAULT_5_XX):
            self.rest_api.add_gateway_response(
                f"Cors{response_type.response_type}", type=response_type, response_headers=headers
            )

    @staticmethod
    def _add_cors_preflight(resource: apigw.Resource, origin: str) -> None:
        resource.add_cors_preflight(
            allow_origins=[origin],
            allow_methods=CORS_METHODS,
            allow_headers=CORS_HEADERS,
            max_age=Duration.hours(1),
        )
