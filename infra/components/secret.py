"""The OpenAI API key: a Secrets Manager secret the functions read at run time, never an env value."""

from __future__ import annotations

from aws_cdk import Stack
from aws_cdk import aws_kms as kms
from aws_cdk import aws_secretsmanager as secretsmanager
from constructs import Construct

from infra.config import Config
from infra.nag import acknowledge


class ModelSecret(Construct):
    def __init__(self, scope: Construct, construct_id: str, *, config: Config, key: kms.IKey) -> None:
        super().__init__(scope, construct_id)
        # Created with no value at all: CDK would otherwise generate a random 32-character string,
        # which the functions would send as a key (401 on every call). Until the operator puts the
        # key in, GetSecretValue finds no version and the functions know "no key is set"
        # (adapters/secrets.py; the write path then falls back to the offline rules and alarms):
        # aws secretsmanager put-secret-value --secret-id <OpenAiSecretArn> --secret-string sk-...
        self.secret = secretsmanager.Secret(
            self,
            "OpenAiApiKey",
            description=f"{Stack.of(self).stack_name}: OpenAI API key (plain string) for the LLM calls",
            encryption_key=key,
            removal_policy=config.removal_policy,
        )
        cfn = self.secret.node.default_child
        assert isinstance(cfn, secretsmanager.CfnSecret)
        cfn.add_property_deletion_override("GenerateSecretString")
        for rule in ("AwsSolutions-SMG4", "HIPAA.Security-SecretsManagerRotationEnabled"):
            acknowledge(
                self.secret,
                rule,
                "The secret holds a third-party OpenAI API key that only the OpenAI organisation "
                "console can issue; no Lambda rotation function can mint a new one. It is rotated by "
                "the operator runbook (new key, put-secret-value, revoke the old key at OpenAI).",
            )
