"""Fakes for what no local emulator covers: an OpenAI-compatible HTTP server (``fake_openai``)."""
