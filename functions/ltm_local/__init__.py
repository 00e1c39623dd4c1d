"""The local stack ("embedded default"): the unmodified Lambda handlers behind local stand-ins.

No AWS account, no Docker, no model key:

* ``emulator``    moto server (DynamoDB + SQS) on 127.0.0.1, tables and queues from ``health_ltm.schema``
* ``persistence`` table items and queue messages snapshotted to ``.ltm/data`` and restored on start
* ``front``       HTTP server that turns requests into API Gateway REST proxy events (Cognito-like auth)
* ``auth``        RS256 development JWTs signed with ``.ltm/dev-signing-key.pem``
* ``poller``      SQS -> Lambda event source mapping (batches, partial failures, DLQ redrive)
* ``invoke``      loads handlers lazily by dotted path and calls them with a fake LambdaContext
* ``events``      API Gateway REST proxy, SQS batch and EventBridge scheduled event shapes
* ``redrive``     DLQ -> source queue, keeping FIFO group and dedup ids
* ``config``      LTM_HOME, ports, timers, and the environment the handlers see
* ``stack``       wires all of it together for ``ltm run`` and the other CLI commands
* ``cli``         the ``ltm`` command

See README.md next to this file.
"""
