"""The one Powertools logger / tracer / metrics trio shared by every function.

Rule: never log what a user said. Log ids, counts and outcomes only.
"""

import logging

from aws_lambda_powertools import Logger, Metrics, Tracer

SERVICE = "health-ltm"
logger = Logger(service=SERVICE)
tracer = Tracer(service=SERVICE)
metrics = Metrics(namespace="HealthLTM", service=SERVICE)

# Library loggers that print request bodies at DEBUG (Powertools' event handler logs each route's
# parsed arguments; botocore logs wire payloads). Whatever level the environment asks for, they
# stay at INFO here: those bodies are health data.
for _name in ("aws_lambda_powertools.event_handler", "botocore", "urllib3"):
    logging.getLogger(_name).setLevel(logging.INFO)
