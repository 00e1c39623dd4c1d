"""AWS CDK app of Health LTM: one stack (``infra.stack``), one module per concern in ``infra.components``.

Entry point: ``python -m infra.app`` from the repository root (what cdk.json runs).
"""
