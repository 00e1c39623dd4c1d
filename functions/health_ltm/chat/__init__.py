"""The chat turn (POST /v1/chat): read path -> model -> answer, and the session buffer that turns
a conversation into coherent fragments for the write path."""
