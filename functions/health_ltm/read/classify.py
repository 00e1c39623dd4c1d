"""Query classifier of the read path: question -> query classes -> the sections they need.

Local and fast, no network, no LLM (seed 000: "query type -> set of sections -> facts with the
right statuses"). Steps, all driven by the reviewed data file ``data/query_classes.json``:

1. lexicon: stems, phrases, INN stems inside a word ("*профен") and CJK substrings select
   classes; weak terms count half, or fully next to a class they are "boosted_by" ("мама" + a
   disease is family history); a longer message in which only smalltalk terms matched is not
   smalltalk (``fallback.smalltalk_max_words``);
2. embedding nearest-exemplar (cosine over a local embedder's sparse vectors, ~0.1 ms) decides
   when the lexicon is silent, confirms classes only weak terms pointed at, and adds a class
   the lexicon missed only at a high similarity;
3. a short or anaphoric follow-up ("а можно его с алкоголем?"), or a question no lexicon term
   recognised (``recent.unrecognised_max_words``: "а в каком количестве?"), also takes the classes
   the lexicon finds in the last few messages, the older the lighter; they count as selected by a
   term of their own (a drug named there is not absorbed as a weak mention here);
4. a class may stand only beside another (``requires_any``: "с вином" is a drug-drink question
   only next to a drug) and may absorb classes it makes redundant (``absorbs``: a drug-food
   question is not also a menu question, a relative's disease is family history rather than the
   user's diagnosis, an imaging question is not a screening one; ``absorbs_weak``: only a class
   that no term of its own selected);
5. the sections are the union of the classes' sections in canonical order (a class's
   ``alone_sections`` only when no class but its ``alone_beside`` ones is beside it: exercise
   beside an injury is context; ``dropped_beside`` leaves a section to the class beside: "when
   can I run after my C-section" needs the operation, not the training habits;
   ``named_drug_drops`` leaves a section out when a drug is named: in "zyrtec makes me drowsy"
   the symptom is the drug's effect, not a new illness); a look-up question ("какие операции у меня были",
   "when was my last tetanus shot", "我以前…") whose classes all name ``lookup_sections``
   takes only those (a record, not advice); a question that still has no class gets the
   safety sections and demographics (``fallback``), smalltalk gets none;
6. a question about someone else's care ("маме можно нимесил?", "my son has a fever",
   "我妈在吃…，她能…") reads none of the user's own facts: a relative's, the family history; a
   child's, a partner's or a colleague's, nothing. Any word of the user as the patient ("мне",
   "I", a free "我", "кормящей маме") keeps the question the user's (``other_person``, its own
   matcher);
7. a question about health in general ("чем грипп отличается от ковида?", "手足口病传染吗")
   reads none of the user's facts: a ``general_question`` marker and no word of the user's own
   ("my", "у меня", a free "我"), about no drug.

8. the learned section gate (``read/gate.py``) leaves out the non-safety sections the question's
   words make unlikely; it never removes a safety section, a class's ``kept_by_gate`` ones or the
   fallback's, and never adds one (``gated=False``: the class map's sections as they are).

History intent ("раньше", "used to", "以前") is detected separately: it tells the status rules
to return stopped and resolved facts too.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..data import load as data_file
from ..domain.hashing_embedder import HashingEmbedder
from ..domain.sections import Section
from ..domain.text import fold_case
from ..ports import Embedder
from .gate import SectionGate, gate_features, shipped_gate
from .lexicon import CJK_RE, Lexicon, words

DATA_PATH = Path(__file__).resolve().parent.parent / "data" / "query_classes.json"
SMALLTALK = "smalltalk"
_HISTORY = "@history"
_FOLLOW_UP = "@follow_up"
_LOOKUP = "@lookup"
_NAMED_DRUG = "@named_drug"
_RELATIVE, _OTHER, _SELF = "@relative", "@other", "@self"
_GENERAL, _PERSONAL, _GENERAL_BESIDE_EXEMPT = "@general", "@personal", "@general_beside_exempt"
_MAX_QUERY_CHARS = 4000  # a question longer than a message limit says nothing more about its class


class _Languages(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    ru: tuple[str, ...] = ()
    en: tuple[str, ...] = ()
    zh: tuple[str, ...] = ()

    def all(self) -> tuple[str, ...]:
        return self.ru + self.en + self.zh


class QueryClassSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    description: str
    sections: tuple[Section, ...]
    needs_episodes: bool
    terms: _Languages
    weak_terms: _Languages = _Languages()
    # A weak term counts as a full hit when one of these classes is selected too
    # ("mother" + a disease is family history; "pills" + a symptom is an advice question).
    boosted_by: tuple[str, ...] = ()
    # A general question ("what do you know about me"): the compact profile summary, when it is
    # current, answers it better than every fact line.
    prefers_summary: bool = False
    # Classes this one makes redundant when both are selected (their sections are not added);
    # absorbs_weak: only when that class was selected without a full lexicon term of its own.
    absorbs: tuple[str, ...] = ()
    absorbs_weak: tuple[str, ...] = ()
    # The class stands only beside one of these ("с вином" is a drug-drink question only next to a drug).
    requires_any: tuple[str, ...] = ()
    # What a look-up ("which X have I had", "when was my last X") of this class needs; None: a
    # look-up of this class needs its usual sections.
    lookup_sections: tuple[Section, ...] | None = None
    # A look-up of this class beside one of these takes none of its sections: the disease in "which
    # pills do I take for my blood pressure" says which drugs, it is not looked up itself.
    lookup_left_to: tuple[str, ...] = ()
    # Of sections, those needed only when this class is the question's only one: "can I run a
    # marathon?" checks old injuries and operations, "can I swim after my knee operation?" leaves
    # them to the surgery class; beside another class this one is context, not the subject.
    # alone_beside: classes that do not make it context ("running with a sore knee" is still an
    # exercise question that checks the knee's injuries and operations).
    alone_sections: tuple[Section, ...] = ()
    alone_beside: tuple[str, ...] = ()
    # Sections this class leaves to a class beside it: beside an injury or an operation, "when can
    # I run again" is about the injury, not the user's training habits.
    dropped_beside: dict[Section, tuple[str, ...]] = Field(default_factory=dict)
    # ... unless one of these classes is beside too: running after an operation *with a disease*
    # is exercise with that disease again, where the training habits matter.
    kept_beside: dict[Section, tuple[str, ...]] = Field(default_factory=dict)
    # Sections this class leaves out when the question names a drug: in "можно но-шпу, тянет живот?"
    # or "zyrtec makes me drowsy" the symptom is the drug's context or its effect, not a new illness.
    named_drug_drops: tuple[Section, ...] = ()
    # Sections this class needs only for what is current (they ride along for safety: a drug
    # question checks against the allergies, current medications and chronic conditions): read as
    # their current-state copies, each fact as its line (decision log 28). A subset of sections.
    current_state: tuple[Section, ...] = ()
    # Sections of this class the learned section gate (read/gate.py) never removes: a drug
    # question keeps the allergies, current medications, chronic conditions and pregnancy it chose.
    kept_by_gate: tuple[Section, ...] = ()
    exemplars: _Languages

    @model_validator(mode="after")
    def _has_exemplars(self) -> QueryClassSpec:
        if len(self.exemplars.all()) < 5:
            raise ValueError("a query class needs at least 5 exemplars")
        if not set(self.current_state) <= set(self.sections):
            raise ValueError("current_state must be a subset of sections")
        if not set(self.kept_by_gate) <= set(self.sections):
            raise ValueError("kept_by_gate must be a subset of sections")
        if self.alone_sections and not set(self.alone_sections) < set(self.sections):
            raise ValueError("alone_sections must be a proper subset of sections")
        if not set(self.dropped_beside) | set(self.named_drug_drops) <= set(self.sections):
            raise ValueError("dropped_beside and named_drug_drops must name sections of the class")
        if not set(self.kept_beside) <= set(self.dropped_beside):
            raise ValueError("kept_beside must name sections of dropped_beside")
        return self

    def kept_beside_by(self, others: set[str]) -> set[Section]:
        """Sections a ``kept_beside`` rule keeps beside these classes (running after an operation
        *with a disease* keeps the training habits): a reviewed rule the learned gate respects."""
        return {
            section
            for section, beside in self.dropped_beside.items()
            if others & set(beside) and others & set(self.kept_beside.get(section, ()))
        }

    def sections_beside(self, others: set[str], named_drug: bool = False) -> tuple[Section, ...]:
        """The sections of this class beside the other selected classes (and a named drug)."""
        dropped = {
            section
            for section, beside in self.dropped_beside.items()
            if others & set(beside) and not others & set(self.kept_beside.get(section, ()))
        }
        if named_drug:
            dropped |= set(self.named_drug_drops)
        if others - set(self.alone_beside):
            dropped |= set(self.alone_sections)
        return tuple(section for section in self.sections if section not in dropped)


class EmbeddingRules(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    threshold: float = Field(gt=0, lt=1)  # nearest exemplar at least this close selects its class
    margin: float = Field(ge=0, lt=1)  # other classes this close to the best one are taken too
    confirm: float = Field(gt=0, lt=1)  # a weak-term class is confirmed at this similarity
    add: float = Field(gt=0, lt=1)  # a class the lexicon missed is added at this similarity


class RecentRules(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    weights: tuple[float, ...]  # most recent message first
    min_score: float
    follow_up_max_words: int
    # a question no lexicon term recognised at all (the embedding may still have guessed a
    # class) is a follow-up up to this many words: "а в каком количестве?" after a drug
    unrecognised_max_words: int = 0


class FallbackRules(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    why: str = Field(default="", alias="_why")
    sections: tuple[Section, ...]
    needs_episodes: bool
    # A message longer than this (words, two CJK characters counting as one) that only
    # smalltalk terms recognised is not smalltalk ("hey, I keep tossing and turning all night"):
    # the embedding or the fallback decides it. 0: no limit.
    smalltalk_max_words: int = 0


class NamedEntityTerms(BaseModel):
    """Names of one kind in the write path's synonym table (``data/synonyms.json``) as terms of a
    class: a drug the table knows is a drug question without being listed twice."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    query_class: str = Field(alias="class")
    weight: float = Field(gt=0, le=1)
    skip: tuple[str, ...] = ()  # names that are ordinary words in a question (body parts)
    chronic: bool | None = None  # conditions: only the chronic ones, or only the acute ones
    kind: str | None = None  # the table's kind, when the rule's name is not it
    names_a_drug: bool = False  # a hit names a drug (QueryClassSpec.named_drug_drops)


class OtherPersonRules(BaseModel):
    """A question about someone else's care: whose words, and what it reads (see the data file)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)
    why: str = Field(default="", alias="_why")
    relatives: _Languages  # read the user's family history, where their diseases are kept
    others: _Languages  # a child, a partner, a friend, a colleague: read nothing of the user's
    self_: _Languages = Field(alias="self")  # the user as the patient: the question stays theirs
    relative_sections: tuple[Section, ...]
    exempt_classes: tuple[str, ...] = ()


class GeneralQuestionRules(BaseModel):
    """A question about health in general, not about the user (see the data file)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    why: str = Field(default="", alias="_why")
    markers: _Languages  # "what's the difference between", "is it contagious", "好奇"
    personal: _Languages  # the user's own words beside other_person.self: "my", "мой", "у меня"
    exempt_classes: tuple[str, ...] = ()  # a question about a drug is answered for the user...
    # ...unless one of these markers asks about the drugs themselves ("чем ибупрофен отличается от
    # парацетамола?"), with no word of the user's own beside them
    beside_exempt: _Languages = Field(default_factory=_Languages)


class QueryClassesData(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    version: str
    doc: tuple[str, ...] = Field(default=(), alias="_doc")
    embedding: EmbeddingRules
    recent: RecentRules
    fallback: FallbackRules
    history_markers: _Languages
    follow_up_markers: _Languages
    lookup_markers: _Languages = _Languages()
    named_entities: dict[str, NamedEntityTerms | str] = Field(default_factory=dict)  # "_why": a note
    other_person: OtherPersonRules | None = None
    general_question: GeneralQuestionRules | None = None
    classes: dict[str, QueryClassSpec]

    @model_validator(mode="after")
    def _consistent(self) -> QueryClassesData:
        if SMALLTALK not in self.classes:
            raise ValueError(f"the {SMALLTALK!r} class is required")
        for name, spec in self.classes.items():
            named = set(spec.boosted_by) | set(spec.absorbs) | set(spec.absorbs_weak) | set(spec.requires_any)
            named |= set(spec.alone_beside)
            named |= {other for beside in spec.dropped_beside.values() for other in beside}
            named |= {other for beside in spec.kept_beside.values() for other in beside}
            named |= set(spec.lookup_left_to)
            if name.startswith("@") or not named <= set(self.classes) - {name}:
                raise ValueError(f"bad class name, or a bad class named in {name!r}")
        for kind, terms in self.named_entities.items():
            if isinstance(terms, str) != kind.startswith("_"):
                raise ValueError(f"named entities {kind!r}: a rule, or a note under a '_' key")
            if isinstance(terms, NamedEntityTerms) and terms.query_class not in self.classes:
                raise ValueError(f"named entities {kind!r} point at an unknown class")
        if self.other_person and not set(self.other_person.exempt_classes) <= set(self.classes):
            raise ValueError("other_person.exempt_classes names an unknown class")
        if self.general_question and not set(self.general_question.exempt_classes) <= set(self.classes):
            raise ValueError("general_question.exempt_classes names an unknown class")
        return self


@lru_cache(maxsize=4)
def load_query_classes(path: Path = DATA_PATH) -> QueryClassesData:
    return QueryClassesData.model_validate(json.loads(path.read_text(encoding="utf-8")))


@dataclass(frozen=True, slots=True)
class QueryClassification:
    classes: list[str]  # in the data file's order
    sections: list[Section]  # union of the classes' sections, in Section's declaration order
    history_intent: bool  # "what did I take before": stopped/resolved facts are relevant too
    needs_episodes: bool
    method: str  # how it was decided: lexicon, embedding, recent, fallback, joined with "+"
    data_version: str
    prefers_summary: bool = False  # a general question: use the profile summary when current
    # Of ``sections``, those no selected class needs beyond what is current (QueryClassSpec's
    # current_state); empty for a history question, a look-up, a summary or the fallback.
    current_state: list[Section] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _ExemplarIndex:
    """Exemplar vectors as postings (dimension -> [(exemplar, value)]): queries are sparse."""

    postings: dict[int, list[tuple[int, float]]]
    owner: list[str]  # exemplar index -> class name


def _current_state(specs: dict[str, QueryClassSpec], wanted: set[Section], named_drug: bool) -> set[Section]:
    """The wanted sections every class that asks for them wants only as their current state."""
    light = set()
    asked = {name: spec.sections_beside(set(specs) - {name}, named_drug) for name, spec in specs.items()}
    for section in wanted:
        asking = [spec for name, spec in specs.items() if section in asked[name]]
        if asking and all(section in spec.current_state for spec in asking):
            light.add(section)
    return light


class QueryClassifier:
    """Classifies a question; deterministic for a given data file and embedder.

    The embedder must be local (no network on the read path); the default is HashingEmbedder.
    """

    def __init__(
        self,
        data: QueryClassesData | None = None,
        embedder: Embedder | None = None,
        gate: SectionGate | None = None,
        *,
        gated: bool = True,
    ) -> None:
        """``gate``: the learned section gate (default: the shipped one, for the shipped class map);
        ``gated=False``: the class map's sections as they are (what the gate is trained on)."""
        self.data = data or load_query_classes()
        self._embedder = embedder or HashingEmbedder()
        self._gate = (gate or (shipped_gate() if data is None else None)) if gated else None
        self._lexicon = Lexicon(self._lexicon_entries())
        # Its own matcher: a person's word ("我妈妈") must not take a span the classes' terms read.
        self._people = Lexicon(self._people_entries())
        self._order = {name: i for i, name in enumerate(self.data.classes)}

    def classify(self, query: str, recent_messages: Sequence[str] = ()) -> QueryClassification:
        query = query[:_MAX_QUERY_CHARS]
        hits = self._lexicon.match(query)
        history = hits.pop(_HISTORY, 0.0) > 0
        follow_marker = hits.pop(_FOLLOW_UP, 0.0) > 0
        lookup = hits.pop(_LOOKUP, 0.0) > 0
        named_drug = hits.pop(_NAMED_DRUG, 0.0) > 0
        chosen = {name for name, score in hits.items() if score >= 1.0}
        chosen |= {name for name in set(hits) - chosen if set(self.data.classes[name].boosted_by) & chosen}
        weak = set(hits) - chosen
        full = set(chosen)  # selected by a term of their own (or a boosted weak one)
        limit = self.data.fallback.smalltalk_max_words
        if chosen == {SMALLTALK} and limit and len(words(query)) + len(CJK_RE.findall(query)) // 2 > limit:
            chosen, full = set(), set()
        methods = ["lexicon"] if chosen else []

        by_embedding = self._by_embedding(query, chosen, weak)
        if by_embedding - chosen:
            methods.append("embedding")
            chosen |= by_embedding
        smalltalk_only = chosen == {SMALLTALK}
        # "ок" or "спасибо" close a topic; "ок, а его?" or a bare "нет" continue one.
        length = len(words(query))
        follow_up = follow_marker or (
            not smalltalk_only
            and (
                not chosen
                or length <= self.data.recent.follow_up_max_words
                or (not hits and length <= self.data.recent.unrecognised_max_words)
            )
        )
        if follow_up and recent_messages:
            recent, recent_history = self._from_recent(recent_messages)
            if recent - chosen:
                methods.append("recent")
                chosen |= recent
            full |= recent  # a term of their own selected them, in the message before
            history = history or recent_history
        if chosen - {SMALLTALK}:
            chosen.discard(SMALLTALK)  # "Привет! У меня болит голова" is a symptom question
        chosen -= {name for name in chosen if not self._companion_present(name, chosen)}
        absorbed = {other for name in chosen for other in self.data.classes[name].absorbs}
        absorbed |= {other for name in chosen for other in self.data.classes[name].absorbs_weak} - full
        chosen -= absorbed

        named_specs = {name: self.data.classes[name] for name in chosen}
        specs = list(named_specs.values())
        wanted = {
            s for name, spec in named_specs.items() for s in spec.sections_beside(chosen - {name}, named_drug)
        }
        if lookup and specs and all(spec.lookup_sections is not None for spec in specs):
            wanted = {
                section
                for spec in specs
                if not chosen & set(spec.lookup_left_to)
                for section in spec.lookup_sections or ()
            }
            methods.append("lookup")
        needs_episodes = any(spec.needs_episodes for spec in specs)
        plain = not (history or "lookup" in methods)
        light = _current_state(named_specs, wanted, named_drug) if plain else set()
        people = self._people.match(query)
        whose = self._someone_else(people, chosen)
        general = whose is None and self._general(people, chosen)
        if general:  # about health, not about the user: none of their facts, no past conversations
            wanted, light, needs_episodes = set(), set(), False
            methods.append("general")
        elif whose is not None:  # someone else's care: none of the user's own facts (but a relative's)
            wanted, light = whose, set()
            methods.append("other_person")
        if not chosen and not general:
            methods.append("fallback")
            wanted = set(self.data.fallback.sections)
            needs_episodes = self.data.fallback.needs_episodes
        classes = sorted(chosen, key=self._order.__getitem__)
        if self._gate is not None and wanted and chosen:  # the fallback keeps its safety sections
            features = gate_features(
                query, classes, wanted, "+".join(methods), history=history, has_recent=bool(recent_messages)
            )
            kept = {section for spec in specs for section in spec.kept_by_gate}
            kept |= {s for name, spec in named_specs.items() for s in spec.kept_beside_by(chosen - {name})}
            gated = self._gate.apply(wanted, features, kept)
            if gated != wanted:
                methods.append("gate")
                wanted, light = gated, light & gated
        return QueryClassification(
            classes=classes,
            sections=[section for section in Section if section in wanted],
            history_intent=history,
            needs_episodes=needs_episodes,
            method="+".join(methods),
            data_version=self.data.version,
            prefers_summary=bool(specs) and all(spec.prefers_summary for spec in specs),
            current_state=[section for section in Section if section in light],
        )

    def _general(self, people: dict[str, float], chosen: set[str]) -> bool:
        """A general health question ("чем грипп отличается от ковида?", "is lupus hereditary?"):
        a general marker and no word of the user's own, about no drug."""
        rules = self.data.general_question  # with no class too: "чем вирус отличается от бактерии?"
        if rules is None or people.get(_SELF) or people.get(_PERSONAL):
            return False
        if chosen & set(rules.exempt_classes):
            return bool(people.get(_GENERAL_BESIDE_EXEMPT))
        return bool(people.get(_GENERAL))

    def _someone_else(self, found: dict[str, float], chosen: set[str]) -> set[Section] | None:
        """The sections of a question about someone else's care, or None: the user's own question
        (a word of the user as the patient, a class that is always the user's, or no person)."""
        rules = self.data.other_person
        if rules is None or not chosen or chosen & set(rules.exempt_classes):
            return None
        if found.get(_SELF):
            return None
        if found.get(_RELATIVE):
            return set(rules.relative_sections)
        return set() if found.get(_OTHER) else None

    def _people_entries(self) -> list[tuple[str, str, float]]:
        groups: list[tuple[str, _Languages]] = []
        if self.data.other_person:
            rules = self.data.other_person
            groups += [(_RELATIVE, rules.relatives), (_OTHER, rules.others), (_SELF, rules.self_)]
        if self.data.general_question:
            general = self.data.general_question
            groups += [(_GENERAL, general.markers), (_PERSONAL, general.personal)]
            groups += [(_GENERAL_BESIDE_EXEMPT, general.beside_exempt)]
        return [(term, label, 1.0) for label, terms in groups for term in terms.all()]

    def _companion_present(self, name: str, chosen: set[str]) -> bool:
        needed = self.data.classes[name].requires_any
        return not needed or bool(chosen & set(needed))

    def similarities(self, text: str) -> dict[str, float]:
        """Cosine of the text to the nearest exemplar of each class."""
        query = self._sparse(text)
        index = self._exemplars
        scores = [0.0] * len(index.owner)
        for dim, value in query.items():
            for exemplar, exemplar_value in index.postings.get(dim, ()):
                scores[exemplar] += value * exemplar_value
        best: dict[str, float] = dict.fromkeys(self.data.classes, 0.0)
        for exemplar, score in enumerate(scores):
            name = index.owner[exemplar]
            if score > best[name]:
                best[name] = score
        return best

    def _by_embedding(self, query: str, chosen: set[str], weak: set[str]) -> set[str]:
        """Classes whose nearest exemplar is (near) the closest one and close enough.

        The bar depends on what the lexicon said: silent -> ``threshold`` decides; a weak term
        -> ``confirm``; a class it missed although it found others -> the higher ``add``.
        """
        sims = self.similarities(query)
        rules = self.data.embedding
        top = max(sims.values())
        out = set()
        for name, sim in sims.items():
            if sim < top - rules.margin:
                continue
            if name in weak:
                bar = rules.confirm
            elif not chosen:
                bar = rules.threshold
            else:
                bar = rules.add
            if sim >= bar:
                out.add(name)
        return out

    def _from_recent(self, messages: Sequence[str]) -> tuple[set[str], bool]:
        """Classes the last few messages point at, each weighing less the older it is."""
        rules = self.data.recent
        scores: dict[str, float] = defaultdict(float)
        history = False
        latest = list(messages)[-len(rules.weights) :][::-1]
        for age, (weight, message) in enumerate(zip(rules.weights, latest, strict=False)):
            hits = self._lexicon.match(message[:_MAX_QUERY_CHARS])
            history = history or (age == 0 and hits.get(_HISTORY, 0.0) > 0)
            for name, score in hits.items():
                if not name.startswith("@") and name != SMALLTALK:
                    scores[name] += weight * min(score, 1.0)
        return {name for name, score in scores.items() if score >= rules.min_score}, history

    @cached_property
    def _exemplars(self) -> _ExemplarIndex:
        postings: dict[int, list[tuple[int, float]]] = defaultdict(list)
        owner: list[str] = []
        for name, spec in self.data.classes.items():
            for text in spec.exemplars.all():
                for dim, value in self._sparse(text).items():
                    postings[dim].append((len(owner), value))
                owner.append(name)
        return _ExemplarIndex(dict(postings), owner)

    def _sparse(self, text: str) -> dict[int, float]:
        embed_sparse = getattr(self._embedder, "embed_sparse", None)
        if embed_sparse is not None:
            return embed_sparse(text)
        dense = self._embedder.embed([text])[0]
        norm = sum(value * value for value in dense) ** 0.5 or 1.0
        return {dim: value / norm for dim, value in enumerate(dense) if value}

    def _lexicon_entries(self) -> list[tuple[str, str, float]]:
        entries = [(term, _HISTORY, 1.0) for term in self.data.history_markers.all()]
        entries += [(term, _FOLLOW_UP, 1.0) for term in self.data.follow_up_markers.all()]
        entries += [(term, _LOOKUP, 1.0) for term in self.data.lookup_markers.all()]
        for name, spec in self.data.classes.items():
            entries += [(term, name, 1.0) for term in spec.terms.all()]
            entries += [(term, name, 0.5) for term in spec.weak_terms.all()]
        for kind, rule in self.data.named_entities.items():
            if isinstance(rule, str):
                continue
            skip = {fold_case(name) for name in rule.skip}
            labels = (rule.query_class, _NAMED_DRUG) if rule.names_a_drug else (rule.query_class,)
            entries += [
                (term, label, rule.weight)
                for term in entity_terms(rule.kind or kind, rule.chronic)
                if term.replace("$", "") not in skip
                for label in labels
            ]
            if rule.names_a_drug:  # the INN stems inside a word ("*профен") name a drug too
                stems = self.data.classes[rule.query_class].terms.all()
                entries += [(term, _NAMED_DRUG, 1.0) for term in stems if term.startswith("*")]
        return entries


_SHORTEST_ENTITY_TERM = 3  # shorter Latin/Cyrillic names are abbreviations that collide with words


@lru_cache(maxsize=16)
def entity_terms(kind: str, chronic: bool | None = None) -> tuple[str, ...]:
    """Every name and alias of one kind of the synonym table, as lexicon terms (CJK as substrings).
    A Latin word is a whole word, which meets its plural (``lexicon.singulars``: "numb" is not
    "number", "stoma" not "stomach", "renova" not "renovation"; "migraines" is a migraine);
    Cyrillic keeps its stems (inflection)."""
    raw = data_file("synonyms.json").get(kind, [])
    terms: set[str] = set()
    for item in raw:
        if chronic is not None and bool(item.get("chronic")) is not chronic:
            continue
        for name in (*(item.get(lang) for lang in ("ru", "en", "zh")), *item.get("aliases", ())):
            if not name:
                continue
            term = fold_case(name)
            parts = words(term)
            if not CJK_RE.search(term):
                if not parts or sum(len(p) for p in parts) < _SHORTEST_ENTITY_TERM:
                    continue
                term = " ".join(p + "$" if p.isascii() else p for p in parts)
            terms.add(term)
    return tuple(sorted(terms))


@lru_cache(maxsize=1)
def get_classifier() -> QueryClassifier:
    """The process-wide classifier (built on first use, not at import)."""
    return QueryClassifier()
