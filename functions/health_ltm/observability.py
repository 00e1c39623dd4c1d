"""The one Powertools logger / tracer / metrics trio shared by every function.

Rule: never log what a user said. Log ids, counts and outcomes only.
"""

from aws_lambda_powertools import Logger, Metrics, Tracer

SERVICE = "health-ltm"
logger = Logger(service=SERVICE)
tracer = Tracer(service=SERVICE)
metrics = Metrics(namespace="HealthLTM", service=SERVICE)
