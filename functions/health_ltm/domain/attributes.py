"""Per-section attribute schemas: the types, enums and units that code accepts from a model."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from .sections import Section


class DoseUnit(StrEnum):
    MG = "mg"
    MCG = "mcg"
    G = "g"
    ML = "ml"
    IU = "IU"
    UNITS = "units"
    DROPS = "drops"
    TABLETS = "tablets"
    PUFFS = "puffs"
    PERCENT = "%"


class Severity(StrEnum):
    MILD = "mild"
    MODERATE = "moderate"
    SEVERE = "severe"


class Relative(StrEnum):
    MOTHER = "mother"
    FATHER = "father"
    SISTER = "sister"
    BROTHER = "brother"
    GRANDMOTHER = "grandmother"
    GRANDFATHER = "grandfather"
    DAUGHTER = "daughter"
    SON = "son"
    AUNT = "aunt"
    UNCLE = "uncle"
    OTHER = "other"


class Sex(StrEnum):
    FEMALE = "female"
    MALE = "male"
    OTHER = "other"


class Pregnancy(StrEnum):
    PREGNANT = "pregnant"
    BREASTFEEDING = "breastfeeding"
    NOT_PREGNANT = "not_pregnant"


class _Attributes(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class MedicationAttributes(_Attributes):
    dose_value: float | None = Field(default=None, gt=0, lt=100_000)
    dose_unit: DoseUnit | None = None
    frequency: str | None = Field(default=None, max_length=80)
    time_of_day: str | None = Field(default=None, max_length=40)
    indication: str | None = Field(default=None, max_length=120)
    route: str | None = Field(default=None, max_length=40)
    course_end: str | None = Field(default=None, max_length=10, description="ISO date the course ends")
    stop_reason: str | None = Field(
        default=None, max_length=120, description="why the user stopped it, in their words (a side effect)"
    )
    atc_code: str | None = Field(default=None, max_length=8)


class SymptomAttributes(_Attributes):
    severity: Severity | None = None
    body_site: str | None = Field(default=None, max_length=60)
    onset_days_ago: int | None = Field(default=None, ge=0, le=36_500)


class ConditionAttributes(_Attributes):
    icd10: str | None = Field(default=None, max_length=8)
    since: str | None = Field(default=None, max_length=10)


class DemographicAttributes(_Attributes):
    birth_year: int | None = Field(default=None, ge=1900, le=2100)
    sex: Sex | None = None
    height_cm: float | None = Field(default=None, gt=30, lt=260)
    weight_kg: float | None = Field(default=None, gt=1, lt=400)
    city: str | None = Field(default=None, max_length=80)
    pregnancy: Pregnancy | None = Field(default=None, description="safety-critical for drug questions")


class LifestyleAttributes(_Attributes):
    value: str | None = Field(default=None, max_length=120, description="e.g. vegetarian, a pack a day")


class AllergyAttributes(_Attributes):
    reaction: str | None = Field(default=None, max_length=120)
    severity: Severity | None = None
    allergen_type: str | None = Field(default=None, max_length=20, description="drug, food, environmental")
    suspected: bool | None = Field(
        default=None,
        description="the user guesses ('might be allergic', 'never tested'): kept, said as a guess",
    )


class SurgeryAttributes(_Attributes):
    year: int | None = Field(default=None, ge=1900, le=2100)
    date: str | None = Field(default=None, max_length=10)


class InjuryAttributes(_Attributes):
    body_site: str | None = Field(default=None, max_length=60)
    year: int | None = Field(default=None, ge=1900, le=2100)
    date: str | None = Field(default=None, max_length=10)


class VaccinationAttributes(_Attributes):
    date: str | None = Field(default=None, max_length=10)
    dose_number: int | None = Field(default=None, ge=1, le=10)


class FamilyHistoryAttributes(_Attributes):
    relative: Relative
    age_at_onset: int | None = Field(default=None, ge=0, le=120)


ATTRIBUTE_MODELS: dict[Section, type[_Attributes]] = {
    Section.MEDICATIONS: MedicationAttributes,
    Section.SYMPTOMS: SymptomAttributes,
    Section.REPORTED_DIAGNOSES: ConditionAttributes,
    Section.CHRONIC_CONDITIONS: ConditionAttributes,
    Section.DEMOGRAPHICS: DemographicAttributes,
    Section.LIFESTYLE: LifestyleAttributes,
    Section.ALLERGIES: AllergyAttributes,
    Section.SURGERIES: SurgeryAttributes,
    Section.INJURIES: InjuryAttributes,
    Section.VACCINATIONS: VaccinationAttributes,
    Section.FAMILY_HISTORY: FamilyHistoryAttributes,
}


def validate_attributes(section: Section, raw: dict) -> dict:
    """Validate a model's attributes for a section; returns a JSON-ready dict without nulls."""
    model = ATTRIBUTE_MODELS[section].model_validate(raw)
    return model.model_dump(mode="json", exclude_none=True)
