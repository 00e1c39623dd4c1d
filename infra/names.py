"""Physical names that do not collide when a failed first create is retried.

CloudFormation names most resources itself. Where a service needs a name of ours (the WAF log
group's ``aws-waf-logs-`` prefix, OpenSearch Serverless collections and policies, the backup
vault), the name ends with the first 8 hex digits of the stack's own id (a UUID CloudFormation
mints per stack creation): stable for the stack's whole life, new when the stack is created
again, so whatever a rolled-back create left behind never blocks the retry.
"""

from __future__ import annotations

from aws_cdk import Aws, Fn, Stack
from constructs import Construct


def creation_suffix(scope: Construct) -> str:
    """8 hex digits of ``AWS::StackId`` (``arn:...:stack/<name>/<uuid>``): a token, resolved at deploy."""
    del scope  # the suffix belongs to the stack; the argument keeps call sites explicit
    uuid = Fn.select(2, Fn.split("/", Aws.STACK_ID))
    return Fn.select(0, Fn.split("-", uuid))


def unique_name(scope: Construct, prefix: str, *, max_length: int, lower: bool = False) -> str:
    """``<prefix>-<suffix>``; the prefix is cut so the whole name fits ``max_length``."""
    prefix = prefix.lower() if lower else prefix
    prefix = prefix[: max_length - 9].rstrip("-")
    return Fn.join("-", [prefix, creation_suffix(scope)])


def stack_prefix(scope: Construct) -> str:
    return Stack.of(scope).stack_name
