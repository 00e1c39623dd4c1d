"""One construct per concern; ``infra.stack`` wires them together.

Not named ``constructs``: that would shadow the ``constructs`` library for tools that put
``infra/`` on the path (ruff's isort does, through pyproject's ``src``).
"""
