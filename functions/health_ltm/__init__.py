"""Health LTM: long-term memory of a personal health assistant.

Layout: ``domain`` (models, transitions: pure code), ``write`` (fragment -> facts),
``read`` (question -> context), ``maintenance`` (policies), ``adapters`` (DynamoDB, SQS,
OpenSearch, OpenAI and their local stand-ins), ``handlers`` (thin Lambda entry points).
"""
