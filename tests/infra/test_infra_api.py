"""The REST API: which route needs which authorization, what the logs may contain, WAF, CORS."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.xdist_group("infra")

PUBLIC_ROUTES = [("GET", "/v1/health"), ("GET", "/v1/docs"), ("GET", "/v1/openapi.json")]


def test_app_routes_need_a_cognito_token(synthesized):
    methods = synthesized.api_methods()
    authorizer_id = next(iter(synthesized.of_type("AWS::ApiGateway::Authorizer")))

    proxy = methods[("ANY", "/v1/{proxy+}")]
    assert proxy["AuthorizationType"] == "COGNITO_USER_POOLS"
    assert proxy["AuthorizerId"] == {"Ref": authorizer_id}
    assert synthesized.one("AWS::ApiGateway::Authorizer")["Type"] == "COGNITO_USER_POOLS"


@pytest.mark.parametrize("route", PUBLIC_ROUTES)
def test_health_and_docs_are_public(synthesized, route):
    assert synthesized.api_methods()[route]["AuthorizationType"] == "NONE"


def test_document_ingestion_needs_iam_and_is_not_reachable_from_browsers(synthesized):
    methods = synthesized.api_methods()

    assert methods[("POST", "/v1/internal/documents")]["AuthorizationType"] == "AWS_IAM"
    assert ("OPTIONS", "/v1/internal/documents") not in methods


def test_no_other_route_is_open(synthesized):
    open_routes = {
        route
        for route, method in synthesized.api_methods().items()
        if method["AuthorizationType"] == "NONE" and route[0] != "OPTIONS"
    }

    assert open_routes == set(PUBLIC_ROUTES)


def test_requests_are_validated(synthesized):
    validator_id = next(iter(synthesized.of_type("AWS::ApiGateway::RequestValidator")))
    validator = synthesized.one("AWS::ApiGateway::RequestValidator")
    methods = synthesized.api_methods()

    assert validator["ValidateRequestBody"] is True
    assert validator["ValidateRequestParameters"] is True
    for route, method in methods.items():
        if route[0] != "OPTIONS":
            assert method["RequestValidatorId"] == {"Ref": validator_id}, route
    assert methods[("ANY", "/v1/{proxy+}")]["RequestParameters"] == {"method.request.path.proxy": True}
    assert "application/json" in methods[("POST", "/v1/internal/documents")]["RequestModels"]


def test_access_log_has_only_metadata_never_paths_queries_or_bodies(synthesized):
    stage = synthesized.one("AWS::ApiGateway::Stage")
    log_format = stage["AccessLogSetting"]["Format"]

    assert json.loads(log_format) == {
        "requestId": "$context.requestId",
        "ip": "$context.identity.sourceIp",
        "httpMethod": "$context.httpMethod",
        "resourcePath": "$context.resourcePath",
        "status": "$context.status",
        "responseLength": "$context.responseLength",
        "requestTime": "$context.requestTime",
        "integrationLatency": "$context.integrationLatency",
    }
    for forbidden in ("$context.path", "$input", "body", "querystring", "$context.requestOverride"):
        assert forbidden not in log_format


def test_stage_is_throttled_traced_and_logs_errors_without_payloads(synthesized):
    stage = synthesized.one("AWS::ApiGateway::Stage")
    (settings,) = stage["MethodSettings"]

    assert stage["TracingEnabled"] is True
    assert settings["ThrottlingRateLimit"] == 50
    assert settings["ThrottlingBurstLimit"] == 100
    assert settings["LoggingLevel"] == "ERROR"
    assert settings["DataTraceEnabled"] is False
    assert "CacheClusterEnabled" not in stage


def test_execution_log_group_is_ours_encrypted_and_expiring(synthesized):
    groups = [g["Properties"] for g in synthesized.of_type("AWS::Logs::LogGroup").values()]
    (execution,) = [
        g for g in groups if "API-Gateway-Execution-Logs_" in json.dumps(g.get("LogGroupName", ""))
    ]

    assert execution["KmsKeyId"]
    assert execution["RetentionInDays"] == 90


def test_cors_preflight_allows_the_configured_origin(synthesized):
    preflight = synthesized.api_methods()[("OPTIONS", "/v1/{proxy+}")]
    (response,) = preflight["Integration"]["IntegrationResponses"]

    assert response["ResponseParameters"]["method.response.header.Access-Control-Allow-Origin"] == "'*'"
    for gateway_response in synthesized.of_type("AWS::ApiGateway::GatewayResponse").values():
        headers = gateway_response["Properties"]["ResponseParameters"]
        assert headers["gatewayresponse.header.Access-Control-Allow-Origin"] == "'*'"


def test_waf_guards_the_stage_and_logs_without_credentials(synthesized):
    acl = synthesized.one("AWS::WAFv2::WebACL")
    association = synthesized.one("AWS::WAFv2::WebACLAssociation")
    logging = synthesized.one("AWS::WAFv2::LoggingConfiguration")

    assert acl["Scope"] == "REGIONAL"
    assert {r["Name"] for r in acl["Rules"]} >= {"RateLimitPerIp", "AWSManagedRulesCommonRuleSet"}
    assert "ApiRestApiDeploymentStage" in json.dumps(association["ResourceArn"])
    assert {"SingleHeader": {"Name": "authorization"}} in logging["RedactedFields"]
    assert {"QueryString": {}} in logging["RedactedFields"]


def test_user_pool_requires_mfa_strong_passwords_and_threat_protection(synthesized):
    pool = synthesized.one("AWS::Cognito::UserPool")

    assert pool["MfaConfiguration"] == "ON"
    assert pool["EnabledMfas"] == ["SOFTWARE_TOKEN_MFA"]
    assert pool["Policies"]["PasswordPolicy"]["MinimumLength"] >= 12
    assert pool["UserPoolTier"] == "PLUS"
    assert pool["UserPoolAddOns"] == {"AdvancedSecurityMode": "ENFORCED"}


def test_outputs_name_what_a_client_or_operator_needs(synthesized):
    outputs = synthesized.template.to_json()["Outputs"]

    assert {
        "ApiUrl",
        "TableName",
        "ExtractionQueueUrl",
        "MaintenanceQueueUrl",
        "CollectionEndpoint",
        "UserPoolId",
    } <= set(outputs)


def test_an_existing_user_pool_can_be_imported_by_arn(variant, variant_context):
    arn = variant_context["user_pool_arn"]

    assert variant.of_type("AWS::Cognito::UserPool") == {}
    assert variant.one("AWS::ApiGateway::Authorizer")["ProviderARNs"] == [arn]
    assert variant.template.to_json()["Outputs"]["UserPoolId"]["Value"] == "eu-central-1_Abc123"


def test_cors_origin_comes_from_context(variant):
    preflight = variant.api_methods()[("OPTIONS", "/v1/{proxy+}")]
    (response,) = preflight["Integration"]["IntegrationResponses"]

    assert (
        response["ResponseParameters"]["method.response.header.Access-Control-Allow-Origin"]
        == "'https://app.example.com'"
    )
    for props in variant.functions().values():
        assert props["Environment"]["Variables"]["LTM_CORS_ORIGIN"] == "https://app.example.com"
