"""Fakes for what no local emulator covers: an OpenAI-compatible HTTP server (``fake_openai``), the
fragment queue as a list (``queues``), and SQS messages for driving the handlers (``sqs``)."""
