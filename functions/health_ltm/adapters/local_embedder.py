"""The local ``Embedder``: the hashing n-gram embedder, no model, no network.

The algorithm is pure code and lives in ``domain/hashing_embedder.py`` (the read path's query
classifier uses it too); this module is where the wiring picks it as an adapter.
"""

from __future__ import annotations

from ..domain.hashing_embedder import HashingEmbedder

__all__ = ["HashingEmbedder"]
