"""Stored fact JSON leaves default-valued fields out and parses back to the same fact."""

from __future__ import annotations

from datetime import timedelta

from health_ltm.domain.models import Fact
from health_ltm.domain.sections import FactStatus, Section, Stage
from health_ltm.storage.codec import fact_data
from tests.conftest import T0


def test_fact_data_is_compact_and_round_trips():
    fact = Fact(
        id="F1",
        section=Section.MEDICATIONS,
        key="enalapril",
        name_raw="Энап",
        name_normalized="эналаприл",
        status=FactStatus.ACTIVE,
        stage=Stage.ACTIVE,
        attributes={"dose_value": 5.0, "dose_unit": "mg"},
        first_mentioned_at=T0,
        last_confirmed_at=T0 + timedelta(days=1),
        session_ids=["s1"],
        source_fragment_ids=["fr1"],
    )
    data = fact_data(fact)
    assert Fact.model_validate_json(data) == fact
    assert len(data) < len(fact.model_dump_json()) * 0.8
    for absent in ("deleted_at", "document_id", "said_by", "evidence_kind", "mention_count"):
        assert f'"{absent}"' not in data
    deleted = fact.model_copy(update={"deleted_at": T0, "mention_count": 3})
    assert Fact.model_validate_json(fact_data(deleted)) == deleted
