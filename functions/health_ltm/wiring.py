"""Composition root: builds each port's implementation once per container, lazily.

Nothing is built at import time (tests set the environment first; cold starts stay small).
A model is used when one is configured (key, secret or base URL); otherwise the offline rules
and the local embedder stand in, so the service runs with no key at all.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from .domain.clock import SystemClock
from .domain.ids import new_ulid
from .ports import Embedder, Extractor, MemoryRepository, SectionClassifier, VectorIndex
from .settings import Settings, get_settings

if TYPE_CHECKING:
    from .storage.rate_limit import ChatRateLimiter


@lru_cache(maxsize=1)
def repository() -> MemoryRepository:  # typed: mypy checks the implementation against every role
    from .storage.dynamodb import DynamoRepository

    return DynamoRepository(get_settings().table_name)


@lru_cache(maxsize=1)
def fragment_queue():
    from .adapters.sqs_queue import SqsFragmentQueue

    return SqsFragmentQueue(get_settings().extraction_queue_url)


@lru_cache(maxsize=1)
def maintenance_queue():
    from .adapters.sqs_queue import SqsMaintenanceQueue

    return SqsMaintenanceQueue(get_settings().maintenance_queue_url)


def clock() -> SystemClock:
    return SystemClock()


def id_factory():
    return new_ulid


@lru_cache(maxsize=1)
def section_classifier() -> SectionClassifier:
    settings = get_settings()
    if settings.model_configured:
        from .adapters.openai_llm import OpenAISectionClassifier

        return OpenAISectionClassifier(settings)
    from .write.rules import RuleSectionClassifier

    return RuleSectionClassifier()


@lru_cache(maxsize=1)
def extractor() -> Extractor:
    settings = get_settings()
    if settings.model_configured:
        from .adapters.openai_llm import OpenAIExtractor

        return OpenAIExtractor(settings)
    from .write.rules import RuleExtractor

    return RuleExtractor(clock=clock())


@lru_cache(maxsize=1)
def embedder() -> Embedder:
    settings = get_settings()
    if settings.model_configured and settings.vector_endpoint:
        from .adapters.openai_llm import OpenAIEmbedder

        return OpenAIEmbedder(settings)
    from .adapters.local_embedder import HashingEmbedder

    return HashingEmbedder()


@lru_cache(maxsize=1)
def vector_index() -> VectorIndex:
    settings: Settings = get_settings()
    if settings.vector_endpoint:
        from .adapters.opensearch_index import OpenSearchVectorIndex

        return OpenSearchVectorIndex(settings, dimensions=embedder().dimensions)
    from .adapters.local_vector_index import LocalVectorIndex

    return LocalVectorIndex(settings.local_vector_path or None)


@lru_cache(maxsize=1)
def episode_stats():
    """Per-container batch of episode retrieval counts (flushed in the background)."""
    from .maintenance.policies import load_policies
    from .read.episode_stats import EpisodeStats

    return EpisodeStats(repository(), due_after_days=load_policies().episodes.archive_after_days)


def query_classifier():
    """The read path's query classifier: the local one (default), or the model one when
    LTM_QUERY_CLASSIFIER=model and a model is configured (it falls back to the local one on any
    model error, within its own time budget)."""
    from .read.classify import get_classifier  # one cached classifier for the whole process

    settings = get_settings()
    if settings.query_classifier == "model" and settings.model_configured:
        # Not cached: cheap to build (the local classifier and the OpenAI client are cached).
        from .adapters.openai_query_classifier import OpenAIQueryClassifier

        return OpenAIQueryClassifier(settings)
    return get_classifier()


def context_service():
    """The read path's use case. Built on each call from the cached parts (cheap), so a test
    that replaces one part is seen at once."""
    from .read.service import ContextService

    repo = repository()

    def session_mentions(user_id: str, session_id: str):
        from .chat.sessions import buffer_mentions

        buffer = repo.get_session(user_id, session_id)
        return buffer_mentions(buffer) if buffer else []

    return ContextService(
        repository=repo,
        classifier=query_classifier(),
        clock=clock(),
        episode_timeout_s=get_settings().episode_timeout_s,
        embedder=embedder(),
        vector_index=vector_index(),
        stats=episode_stats(),
        session_mentions=session_mentions,
    )


@lru_cache(maxsize=1)
def write_path():
    from .write.pipeline import WritePath

    return WritePath(
        repository=repository(),
        classifier=section_classifier(),
        extractor=extractor(),
        clock=clock(),
        new_id=id_factory(),
        vector_index=vector_index(),
        embedder=embedder(),
        recall_guard=get_settings().model_configured,
    )


def reset() -> None:
    """Forget every cached component (tests switch environments between cases)."""
    from .settings import get_settings as settings_factory

    settings_factory.cache_clear()
    for factory in (
        repository,
        fragment_queue,
        maintenance_queue,
        section_classifier,
        extractor,
        embedder,
        vector_index,
        episode_stats,
        write_path,
        chat_rate_limiter,
    ):
        getattr(factory, "cache_clear", lambda: None)()  # tests may have replaced a factory


def canonical_key(section, name: str) -> str:
    """The key a name would get today (consolidation re-normalises old facts with it)."""
    from .write.normalize import normalize_name

    return normalize_name(section, name, None).key


# ---------------------------------------------------------------------- chat (issue 8)
def chat_model():
    """The chat model client (settings.chat_model), or None when no model is configured: then
    POST /v1/chat still buffers the user's turn and answers 503. Not cached: cheap to build, and
    the OpenAI client underneath is cached per endpoint and key."""
    settings = get_settings()
    if not settings.model_configured:
        return None
    from .adapters.openai_chat import OpenAIChatModel

    return OpenAIChatModel(settings)


@lru_cache(maxsize=1)
def chat_rate_limiter() -> ChatRateLimiter:
    """POST /v1/chat's per-user limit (LTM_CHAT_RATE_PER_MINUTE), counted in the repository's own
    table through its client; with an in-process repository (tests), in this process."""
    from .storage.dynamodb import DynamoRepository
    from .storage.rate_limit import DynamoChatRateLimiter, InMemoryChatRateLimiter

    limit = get_settings().chat_rate_per_minute
    store = repository()
    if isinstance(store, DynamoRepository):
        return DynamoChatRateLimiter(store.client, store.table_name, limit)
    return InMemoryChatRateLimiter(limit)
