"""Sort-key layout of the single table. Everything of a user shares one partition.

CTX#...  items the read path needs, fetched by ONE Query (begins_with CTX#):
         F# facts, D# documented facts, S# section states, C# clarifications,
         P# pending (read-your-writes) mentions, M# profile summary.
EPI#     episode rows (vectors live in the vector index), FRAG# fragments,
H#       history events (H#<fact_id>#<event ulid>), K# (section, key) uniqueness guards,
ACT#     "active on day D" markers (the sparse GSI), SESS# chat session buffers.
"""

from __future__ import annotations

import hashlib

CONTEXT_PREFIX = "CTX#"


def user_pk(user_id: str) -> str:
    return f"USER#{user_id}"


def fact_sk(fact_id: str) -> str:
    return f"CTX#F#{fact_id}"


def documented_sk(fact_id: str) -> str:
    return f"CTX#D#{fact_id}"


def section_sk(section: str) -> str:
    return f"CTX#S#{section}"


def clarification_sk(clarification_id: str) -> str:
    return f"CTX#C#{clarification_id}"


def pending_sk(fragment_id: str) -> str:
    return f"CTX#P#{fragment_id}"


SUMMARY_SK = "CTX#M#summary"


def history_prefix(fact_id: str) -> str:
    return f"H#{fact_id}#"


def history_sk(fact_id: str, event_id: str) -> str:
    return f"H#{fact_id}#{event_id}"


def key_guard_sk(section: str, key: str) -> str:
    # Hash keeps the sort key short and free of user text whatever the key holds.
    digest = hashlib.blake2b(f"{section}\x1f{key}".encode(), digest_size=16).hexdigest()
    return f"K#{section}#{digest}"


def fragment_sk(fragment_id: str) -> str:
    return f"FRAG#{fragment_id}"


def episode_sk(episode_id: str) -> str:
    return f"EPI#{episode_id}"


def active_sk(day: str) -> str:
    return f"ACT#{day}"


def session_sk(session_id: str) -> str:
    return f"SESS#{session_id}"
