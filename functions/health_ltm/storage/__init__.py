"""Storage of facts, history, fragments and episode rows: DynamoDB and an in-process twin."""
