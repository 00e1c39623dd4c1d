"""Deployment settings read from CDK context (cdk.json, or ``-c key=value`` on the command line).

Defaults for model names and the vector index come from ``health_ltm.settings`` so the functions
and the stack cannot disagree about them.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from aws_cdk import RemovalPolicy
from aws_cdk import aws_logs as logs
from constructs import Node

from health_ltm.settings import Settings

_SETTING_DEFAULTS = {name: field.default for name, field in Settings.model_fields.items()}

_RETENTION = {
    7: logs.RetentionDays.ONE_WEEK,
    14: logs.RetentionDays.TWO_WEEKS,
    30: logs.RetentionDays.ONE_MONTH,
    60: logs.RetentionDays.TWO_MONTHS,
    90: logs.RetentionDays.THREE_MONTHS,
    180: logs.RetentionDays.SIX_MONTHS,
    365: logs.RetentionDays.ONE_YEAR,
    731: logs.RetentionDays.TWO_YEARS,
    1827: logs.RetentionDays.FIVE_YEARS,
    2557: logs.RetentionDays.SEVEN_YEARS,
}


@dataclass(frozen=True)
class Config:
    # True: stateful resources are retained on stack deletion and on replacement, but a failed
    # first create deletes what it made (RetainExceptOnCreate), and resource-level deletion
    # protection is on. See docs/decision_log.md ("First deploy") for the two-step first deploy.
    deletion_protection: bool = True
    # 0: the public Powertools layer ARN is resolved at deploy time from AWS's public SSM parameter
    # for the exact Powertools version of infra/components/layers.py POWERTOOLS_LAYERS. A number
    # pins that layer version instead (a region or partition where the parameter is missing).
    powertools_layer_version: int = 0
    # Refuse to synthesize a code asset or layer without .pyc for the target Python (infra/bytecode.py).
    require_bytecode: bool = False
    maintenance_schedule: str = "cron(0 3 * * ? *)"
    # A light, frequent run that only flushes chat sessions idle past LTM_CHAT_IDLE_MINUTES.
    session_sweep_schedule: str = "rate(5 minutes)"
    user_pool_arn: str = ""
    cors_origin: str = "*"
    throttle_rate_limit: int = 50
    throttle_burst_limit: int = 100
    # Requests per 5 minutes from one IP before the WAF blocks it.
    waf_rate_limit: int = 2000
    openai_base_url: str = _SETTING_DEFAULTS["openai_base_url"]
    classifier_model: str = _SETTING_DEFAULTS["classifier_model"]
    extractor_model: str = _SETTING_DEFAULTS["extractor_model"]
    chat_model: str = _SETTING_DEFAULTS["chat_model"]
    embedding_model: str = _SETTING_DEFAULTS["embedding_model"]
    vector_index: str = _SETTING_DEFAULTS["vector_index"]
    # Standby replicas double the OpenSearch Serverless OCUs; turn off for dev stacks only.
    vector_standby_replicas: bool = True
    log_level: str = "INFO"
    log_retention_days: int = 90
    # AWS Backup keeps daily table backups this long; erased users age out of backups after it.
    backup_retention_days: int = 35
    # Upper bound of concurrent worker invocations per SQS event source (protects the LLM quota).
    extract_max_concurrency: int = 20
    maintain_max_concurrency: int = 5
    alarm_email: str = ""

    @classmethod
    def from_context(cls, node: Node) -> Config:
        values = {}
        for field in fields(cls):
            raw = node.try_get_context(field.name)
            if raw is not None:
                values[field.name] = _coerce(field.name, raw, type(field.default))
        return cls(**values)

    def __post_init__(self) -> None:
        if self.log_retention_days not in _RETENTION:
            raise ValueError(f"log_retention_days must be one of {sorted(_RETENTION)}")
        if self.log_level not in ("DEBUG", "INFO", "WARNING", "ERROR"):
            raise ValueError("log_level must be DEBUG, INFO, WARNING or ERROR")
        if self.powertools_layer_version < 0:
            raise ValueError("powertools_layer_version must be 0 (resolve) or a layer version number")

    @property
    def removal_policy(self) -> RemovalPolicy:
        """RetainExceptOnCreate: kept on delete and replacement, cleaned up by a failed create."""
        return RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE if self.deletion_protection else RemovalPolicy.DESTROY

    @property
    def log_retention(self) -> logs.RetentionDays:
        return _RETENTION[self.log_retention_days]


def _coerce(name: str, raw: object, kind: type) -> object:
    """Context from ``-c key=value`` arrives as a string; cdk.json gives JSON types."""
    if kind is bool:
        if isinstance(raw, bool):
            return raw
        if str(raw).lower() in ("true", "1", "yes"):
            return True
        if str(raw).lower() in ("false", "0", "no"):
            return False
        raise ValueError(f"context {name} must be true or false, got {raw!r}")
    if kind is int:
        return int(raw)  # type: ignore[arg-type]
    return str(raw)
