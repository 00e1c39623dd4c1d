"""The section-keyed sort-key layout (issue 12): key ranges, and old-layout data moved on restore."""

from __future__ import annotations

import itertools
import json

import pytest

from health_ltm.domain.models import Fact
from health_ltm.domain.sections import FactStatus, Section, Stage
from health_ltm.storage import keys
from health_ltm.storage.migrate import migrate_item, migrate_items
from tests.conftest import T0


def _inside(sk: str, ranges: list[tuple[str, str]]) -> bool:
    return any(lo <= sk <= hi for lo, hi in ranges)


ALWAYS = [
    keys.section_sk(Section.ALLERGIES),
    keys.clarification_sk("c1"),
    keys.pending_sk("f1"),
    keys.SUMMARY_SK,
]
OUTSIDE = [
    keys.history_sk("01F", "01E"),
    keys.key_guard_sk("allergies", "x"),
    "FRAG#f1",
    "EPI#e",
    "ACT#2026-03-02",
    keys.current_sk(Section.ALLERGIES, "01F"),  # current-state copies: their own block
]


def test_every_subset_of_sections_reads_exactly_its_items_and_the_small_ones():
    sections = list(Section)
    for size in range(1, len(sections) + 1):
        for asked in itertools.combinations(sections, size):
            ranges = keys.read_ranges(asked)
            assert len(ranges) <= keys.max_read_ranges()
            assert ranges == sorted(ranges) and all(lo < hi for lo, hi in ranges)
            for section in sections:
                for sk in (
                    keys.fact_sk(section, "01ZZZZ"),
                    keys.documented_sk(section, "01"),
                    keys.fact_sk(section, ""),
                ):
                    assert _inside(sk, ranges) is (section in asked), (asked, sk)
            assert all(_inside(sk, ranges) for sk in ALWAYS)
            assert not any(_inside(sk, ranges) for sk in OUTSIDE)


def test_every_subset_of_sections_reads_exactly_its_current_state_copies():
    sections = list(Section)
    for size in range(1, len(sections) + 1):
        for asked in itertools.combinations(sections, size):
            ranges = keys.current_ranges(asked)
            assert len(ranges) <= keys.max_read_ranges()
            assert ranges == sorted(ranges) and all(lo < hi for lo, hi in ranges)
            for section in sections:
                for fact_id, documented in (("01ZZZZ", False), ("01", True)):
                    sk = keys.current_sk(section, fact_id, documented)
                    assert _inside(sk, ranges) is (section in asked), (asked, sk)
                    assert keys.current_parts(sk) == (section.value, documented, fact_id)
            assert not any(_inside(sk, ranges) for sk in ALWAYS)
            assert not any(_inside(keys.fact_sk(section, "01"), ranges) for section in sections)
    # A drug question's safety sections are one run (the always block's rank lies among them).
    safety = [Section.DEMOGRAPHICS, Section.ALLERGIES, Section.CHRONIC_CONDITIONS, Section.MEDICATIONS]
    assert len(keys.current_ranges(safety)) == 1
    assert keys.current_ranges([]) == [] and keys.current_parts(keys.fact_sk(Section.ALLERGIES, "01")) is None


def test_ranges_follow_runs_of_adjacent_sections():
    safety = [Section.ALLERGIES, Section.CHRONIC_CONDITIONS, Section.MEDICATIONS]
    # The always-read block sits inside the safety run: a drug question is one Query.
    assert len(keys.read_ranges(safety)) == 1
    assert len(keys.read_ranges([Section.DEMOGRAPHICS, *safety, Section.SYMPTOMS])) == 1
    assert len(keys.read_ranges([Section.MEDICATIONS])) == 1  # next to the block
    assert len(keys.read_ranges([Section.CHRONIC_CONDITIONS])) == 1
    assert len(keys.read_ranges([Section.ALLERGIES])) == 2  # chronic conditions lie between
    assert len(keys.read_ranges([*safety, Section.REPORTED_DIAGNOSES])) == 2
    assert len(keys.read_ranges([Section.VACCINATIONS, Section.DEMOGRAPHICS])) == 3
    assert len(keys.read_ranges([])) == 1  # the small items alone
    assert keys.max_read_ranges() == 6


def test_kinds_of_keys():
    assert keys.context_kind(keys.fact_sk(Section.MEDICATIONS, "01A")) == "fact"
    assert keys.context_kind(keys.documented_sk("medications", "01A")) == "documented"
    assert keys.context_kind(keys.section_sk(Section.ALLERGIES)) == "section"
    assert keys.context_kind(keys.clarification_sk("c")) == "clarification"
    assert keys.context_kind(keys.pending_sk("p")) == "pending"
    assert keys.context_kind(keys.SUMMARY_SK) == "summary"
    assert keys.context_kind("CTX#F#01A") is None and keys.context_kind("H#01A#01B") is None
    assert keys.fact_sk(Section.MEDICATIONS, "01A") == "CTX#S#25-medications#F#01A"


def _old(sk: str, kind: str, **extra: str) -> dict:
    item = {"PK": {"S": "USER#alice"}, "SK": {"S": sk}, "kind": {"S": kind}, "data": {"S": "{}"}}
    item.update({k: {"S": v} for k, v in extra.items()})
    return item


OLD_LAYOUT = [
    (_old("CTX#F#01FACT", "fact", section="medications"), keys.fact_sk("medications", "01FACT")),
    (_old("CTX#D#01DOC", "documented", section="allergies"), keys.documented_sk("allergies", "01DOC")),
    (_old("CTX#S#allergies", "section", section="allergies"), keys.section_sk("allergies")),
    (_old("CTX#C#c1", "clarification", section="demographics"), keys.clarification_sk("c1")),
    (_old("CTX#P#frag-1", "pending"), keys.pending_sk("frag-1")),
    (_old("CTX#M#summary", "summary"), keys.SUMMARY_SK),
    (_old("H#01FACT#01EV", "history"), "H#01FACT#01EV"),
    (_old("FRAG#frag-1", "fragment"), "FRAG#frag-1"),
]


@pytest.mark.parametrize(("item", "expected"), OLD_LAYOUT, ids=[i["SK"]["S"] for i, _ in OLD_LAYOUT])
def test_old_layout_items_move_to_the_section_keyed_layout_once(item, expected):
    moved = migrate_item(item)
    assert moved["SK"]["S"] == expected
    assert {k: v for k, v in moved.items() if k != "SK"} == {k: v for k, v in item.items() if k != "SK"}
    assert migrate_item(moved) is moved  # idempotent


def test_an_old_snapshot_is_restored_in_the_new_layout_and_reads_by_section(aws, tmp_path, monkeypatch):
    """A `.ltm/` table snapshot written before issue 12 (CTX#F# keys) restores into the new layout."""
    import boto3

    from health_ltm.domain.ids import new_ulid
    from health_ltm.domain.models import Fact
    from health_ltm.domain.sections import FactStatus, Stage
    from health_ltm.schema import table_definition
    from health_ltm.storage.dynamodb import DynamoRepository
    from ltm_local import persistence
    from ltm_local.emulator import Resources
    from tests.conftest import T0

    ddb = boto3.client("dynamodb")
    ddb.create_table(**table_definition("t-old"))
    monkeypatch.setattr(persistence, "client", lambda service, endpoint: boto3.client(service))

    def fact(section: Section, name: str, status: FactStatus) -> Fact:
        return Fact(
            id=new_ulid(), section=section, key=name, name_raw=name, name_normalized=name, status=status,
            stage=Stage.ACTIVE, first_mentioned_at=T0, last_confirmed_at=T0,
        )  # fmt: skip

    med, allergy = (
        fact(Section.MEDICATIONS, "enalapril", FactStatus.ACTIVE),
        fact(Section.ALLERGIES, "peanut", FactStatus.PRESENT),
    )
    old = [
        {**_old(f"CTX#F#{f.id}", "fact", section=f.section.value), "data": {"S": f.model_dump_json()},
         "version": {"N": "1"}}
        for f in (med, allergy)
    ]  # fmt: skip
    old.append(
        {**_old("CTX#S#allergies", "section", section="allergies"),
         "data": {"S": json.dumps({"section": "allergies", "status": "present", "version": 1})}}
    )  # fmt: skip
    resources = Resources(table_name="t-old", queues={})  # only the table is restored here
    snapshotter = persistence.Snapshotter(tmp_path, "http://unused", resources, "eu-central-1")
    lines = [json.dumps({k: persistence.encode_attribute(v) for k, v in i.items()}) for i in old]
    snapshotter.table_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert snapshotter._restore_table() == 5  # three items and the facts' current-state copies

    stored = {i["SK"]["S"] for i in ddb.scan(TableName="t-old")["Items"]}
    assert stored == {keys.fact_sk(med.section, med.id), keys.fact_sk(allergy.section, allergy.id),
                      keys.section_sk("allergies"), keys.current_sk(med.section, med.id),
                      keys.current_sk(allergy.section, allergy.id)}  # fmt: skip
    repo = DynamoRepository("t-old", ddb)
    memory = repo.load_memory("alice", [Section.MEDICATIONS])
    assert [f.id for f in memory.facts] == [med.id] and Section.ALLERGIES in memory.sections
    assert repo.get_fact("alice", allergy.id) == allergy
    light = repo.load_memory("alice", [Section.ALLERGIES], ended=False, current_state=[Section.ALLERGIES])
    assert [(f.id, f.name_normalized, f.status) for f in light.facts] == [
        (allergy.id, allergy.name_normalized, allergy.status)
    ]


def test_migrate_items_counts_what_moved_and_adds_the_current_state_copies():
    fact = Fact(
        id="01FACT", section=Section.MEDICATIONS, key="enalapril", name_raw="Энап",
        name_normalized="enalapril", status=FactStatus.ACTIVE, stage=Stage.ACTIVE,
        first_mentioned_at=T0, last_confirmed_at=T0,
        attributes={"dose_value": 5.0, "dose_unit": "mg", "indication": "blood pressure"},
    )  # fmt: skip
    document = fact.model_copy(update={"id": "01DOC", "section": Section.ALLERGIES, "document_id": "d1"})
    data = {"CTX#F#01FACT": fact, "CTX#D#01DOC": document}
    items = [
        {**i, "data": {"S": data[i["SK"]["S"]].model_dump_json()}} if i["SK"]["S"] in data else i
        for i, _ in OLD_LAYOUT
    ]
    migrated, moved = migrate_items(items)
    assert moved == 6 + 2 and len(migrated) == len(items) + 2
    copies = {i["SK"]["S"]: json.loads(i["d"]["S"]) for i in migrated if i["SK"]["S"].startswith("CUR#")}
    line_key = keys.current_sk("medications", "01FACT")
    document_key = keys.current_sk("allergies", "01DOC", documented=True)
    assert set(copies) == {line_key, document_key}
    line = copies[line_key]  # the line a drug question checks against: no indication
    assert (line["n"], line["r"], line["a"]) == ("enalapril", "Энап", {"dose_value": 5.0, "dose_unit": "mg"})
    again, moved_again = migrate_items(migrated)
    assert moved_again == 0 and len(again) == len(migrated)  # idempotent


def test_dynamodb_reads_the_bytes_of_the_asked_sections_and_runs_the_ranges_in_parallel(dynamo_table):
    """Bytes read (DynamoDB's item sizes, metered from botocore's responses as the bench does)
    follow the asked sections; several ranges are several Queries on different threads."""
    import threading

    from health_ltm.storage.codec import item_size
    from health_ltm.storage.dynamodb import DynamoRepository
    from tests.unit.test_repository_contract import seeded

    repo = DynamoRepository(dynamo_table)
    seeded(repo)
    everything = repo.client.query(
        TableName=dynamo_table,
        KeyConditionExpression="PK = :pk AND begins_with(SK, :p)",
        ExpressionAttributeValues={":pk": {"S": keys.user_pk("alice")}, ":p": {"S": keys.CONTEXT_PREFIX}},
    )["Items"]
    size = {i["SK"]["S"]: item_size(i) for i in everything}

    threads: list[str] = []
    read: list[int] = []
    repo.client.meta.events.register(
        "before-call.dynamodb.Query", lambda **_: threads.append(threading.current_thread().name)
    )
    repo.client.meta.events.register(
        "after-call.dynamodb.Query",
        lambda parsed, **_: read.append(sum(item_size(i) for i in parsed.get("Items", []))),
    )
    asked = [Section.VACCINATIONS, Section.ALLERGIES, Section.SYMPTOMS]
    ranges = keys.read_ranges(asked)
    repo.load_memory("alice", asked, ended=False)  # a question about the present
    expected = sum(v for sk, v in size.items() if _inside(sk, ranges))
    assert sum(read) == expected < sum(size.values())
    assert len(threads) == len(ranges) == 4 and len(set(threads)) > 1


def test_an_ended_fact_written_whole_in_its_section_is_split_into_a_brief_and_the_fact():
    from health_ltm.domain.ids import new_ulid
    from health_ltm.domain.models import CurrentFact, EndedFact, Fact
    from health_ltm.domain.sections import FactStatus, Stage
    from health_ltm.storage.migrate import split_ended
    from tests.conftest import T0

    stopped = Fact(
        id=new_ulid(), section=Section.MEDICATIONS, key="ibuprofen", name_raw="ибупрофен",
        name_normalized="ибупрофен", status=FactStatus.STOPPED, stage=Stage.ACTIVE,
        first_mentioned_at=T0, last_confirmed_at=T0, source_fragment_ids=["f1"],
    )  # fmt: skip
    item = {
        "PK": {"S": keys.user_pk("alice")}, "SK": {"S": keys.fact_sk(stopped.section, stopped.id)},
        "kind": {"S": "fact"}, "section": {"S": "medications"}, "version": {"N": "1"},
        "data": {"S": stopped.model_dump_json()},
    }  # fmt: skip
    brief, whole = split_ended(item)
    assert brief["SK"] == item["SK"] and brief["kind"] == {"S": "ended"}
    assert brief["version"] == item["version"]  # the conditions stay on the section's key
    assert EndedFact.model_validate_json(brief["data"]["S"]) == EndedFact.of(stopped)
    assert whole["SK"]["S"] == keys.ended_sk(stopped.section, stopped.id) and whole["data"] == item["data"]
    assert split_ended(brief) == [brief] and split_ended(whole) == [whole]  # idempotent
    migrated, moved = migrate_items([item])
    copy = {"PK": item["PK"], "SK": {"S": keys.current_sk(stopped.section, stopped.id)},
            "d": {"S": CurrentFact.of(stopped).dump()}}  # fmt: skip
    assert moved == 2 and migrated == [brief, whole, copy]  # and its current-state brief
    assert CurrentFact.of(stopped).is_ended and "n" not in json.loads(copy["d"]["S"])


def test_current_state_copies_of_an_earlier_layout_are_made_again():
    from health_ltm.domain.models import CurrentFact
    from health_ltm.storage.codec import current_item

    fact = Fact(
        id="01FACT", section=Section.ALLERGIES, key="peanut", name_raw="peanut", name_normalized="peanut",
        status=FactStatus.PRESENT, stage=Stage.ACTIVE, first_mentioned_at=T0, last_confirmed_at=T0,
    )  # fmt: skip
    whole = {"PK": {"S": "USER#alice"}, "SK": {"S": keys.fact_sk(fact.section, fact.id)},
             "kind": {"S": "fact"}, "section": {"S": "allergies"},
             "data": {"S": fact.model_dump_json()}}  # fmt: skip
    old_copy = {"PK": {"S": "USER#alice"}, "SK": {"S": "CUR#15-allergies#F#01FACT"},
                "data": {"S": CurrentFact.of(fact).dump()}}  # fmt: skip
    migrated, moved = migrate_items([whole, old_copy])
    assert moved == 2 and migrated == [whole, current_item("USER#alice", fact)]
    assert keys.current_sk(Section.ALLERGIES, "01FACT") == "CUR#15#F#01FACT"
    assert migrate_items(migrated) == (migrated, 0)
