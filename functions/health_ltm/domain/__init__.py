"""Pure domain code: no boto3, no openai, no I/O."""
