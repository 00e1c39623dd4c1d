"""The service's exceptions, in one module below every layer that raises or catches them.

Storage and the model adapters raise them, the services raise and catch them, the handlers map
them to HTTP answers (``handlers/errors.py``) and the workers decide retries by them. No adapter's
own type crosses a layer. Messages never carry user input: a 4xx answer may show them.
"""

from __future__ import annotations


# ---------------------------------------------------------------------- storage (MemoryRepository)
class ConflictError(Exception):
    """A condition failed: someone else changed the item first; re-read and decide again."""


class FragmentGone(Exception):
    """The fragment no longer exists or left the expected state (erased, or another worker won)."""


# ---------------------------------------------------------------------- write path intake
class FragmentConflict(Exception):
    """The fragment id is already used by this user for a different fragment (409)."""


class FragmentTooLarge(Exception):
    """The fragment would not fit its storage (413), refused before anything is stored."""


# ---------------------------------------------------------------------- profile: reads and corrections
class NotFound(Exception):
    """No such fact for this user (404)."""


class StaleVersion(Exception):
    """The item changed since the caller read it (412): fetch it again."""


class InvalidEdit(Exception):
    """A correction the section does not allow (422)."""


# ---------------------------------------------------------------------- documented facts
class InvalidDocument(ValueError):
    """A documented fact that does not fit its section (422)."""


# ---------------------------------------------------------------------- chat
class BufferBusy(Exception):
    """The buffer kept changing under us (many concurrent writers): the caller may retry."""


class NoChatModel(Exception):
    """No model is configured: the turn was buffered, there is no answer (503)."""


# ---------------------------------------------------------------------- models
class ModelUnavailable(Exception):
    """The model failed (timeout, 5xx, 429 after retries, unparseable output).

    Never to be mistaken for "nothing to extract": the record is retried and ends in the DLQ.
    """


class ModelTimeout(ModelUnavailable):
    """No answer within ``llm_timeout_s`` (after the SDK's bounded retries)."""


class ModelRateLimited(ModelUnavailable):
    """HTTP 429 after the SDK's bounded retries."""


class ModelServerError(ModelUnavailable):
    """HTTP 5xx after retries, or the endpoint could not be reached."""


class ModelOutputInvalid(ModelUnavailable):
    """The answer is not valid JSON, breaks the schema, was cut off, or is a refusal."""


class ModelAuthRejected(ModelUnavailable):
    """HTTP 401/403: the endpoint refused the key (a key is set, but it is wrong or revoked)."""


class ModelNotConfigured(ModelUnavailable):
    """No key is set: no key, secret or base URL, or a secret that holds no key (yet).

    The write path answers it with the offline rules (handlers/extract.py), never the DLQ."""


class EmptyAnswer(ModelUnavailable):
    """The model answered with no text (a refusal or an empty choice)."""
