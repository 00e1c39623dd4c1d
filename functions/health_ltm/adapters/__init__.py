"""Adapters: the real (AWS, OpenAI) and local implementations of the ports in ``ports.py``."""
