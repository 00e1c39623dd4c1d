"""City names back to the nominative: "живу в Москве" -> Москва, "переехал в Казань" -> Казань."""

from __future__ import annotations

from ...domain.text import fold_in_place
from ..normalize import word_set

# Forms the suffix heuristics get wrong (feminine -а cities, indeclinables, nicknames).
_KNOWN = {
    "москв": "Москва",
    "санкт-петербург": "Санкт-Петербург",
    "петербург": "Санкт-Петербург",
    "питер": "Санкт-Петербург",
    "спб": "Санкт-Петербург",
    "самар": "Самара",
    "уф": "Уфа",
    "тул": "Тула",
    "пенз": "Пенза",
    "калуг": "Калуга",
    "рязан": "Рязань",
    "казан": "Казань",
    "перм": "Пермь",
    "твер": "Тверь",
    "тюмен": "Тюмень",
    "астрахан": "Астрахань",
    "ярославл": "Ярославль",
    "нижнем новгород": "Нижний Новгород",
    "нижний новгород": "Нижний Новгород",
    "великом новгород": "Великий Новгород",
    "ростов-на-дон": "Ростов-на-Дону",
    "махачкал": "Махачкала",
    "сочи": "Сочи",
    "алматы": "Алматы",
    "тбилиси": "Тбилиси",
    "риг": "Рига",
    "праг": "Прага",
    "вен": "Вена",
    "варшав": "Варшава",
    "анап": "Анапа",
    "ялт": "Ялта",
    "кострома": "Кострома",
    "костром": "Кострома",
    "new york": "New York",
    "san francisco": "San Francisco",
    "los angeles": "Los Angeles",
    "berlin": "Berlin",
    "london": "London",
    "paris": "Paris",
    "moscow": "Moscow",
    "tokyo": "Tokyo",
}
_NOT_CITIES = word_set(
    "деревне деревню деревня селе село поселке городе город квартире квартиру доме дом общежитии общагу "
    "центре центр области район районе стране страну россии россию германии германию сша америке америку "
    "европе европу израиле израиль канаде канаду турции турцию china germany russia usa us uk england "
    "america europe canada france spain italy israel india japan turkey australia a an the my our this that "
    "with near town city flat house apartment village suburbs countryside"
    " korea japan mexico brazil ukraine belarus kazakhstan georgia armenia poland украине украину беларуси "
    "казахстане грузии армении польше"
)


def _stem(word: str, case: str) -> str:
    """The key form used by _KNOWN: the word without its case ending."""
    if case == "acc":
        return word[:-1] if word.endswith(("у", "ю")) else word
    for ending in ("е", "и"):
        if word.endswith(ending):
            return word[:-1]
    return word


def city_nominative(raw: str, case: str) -> str | None:
    """``case``: 'loc' (живу в ...), 'acc' (переехал в ...) or 'en'. None when it is no city."""
    words = raw.split()
    if not words:
        return None
    if case == "en":
        picked = [w for w in words if w[:1].isupper()] if words[0][:1].isupper() else []
        picked = picked[: next((i for i, w in enumerate(words) if not w[:1].isupper()), len(words))]
        name = " ".join(picked) or (raw if fold_in_place(raw) in _KNOWN else "")
        if not name or fold_in_place(name) in _NOT_CITIES:
            return None
        return _KNOWN.get(fold_in_place(name), name)
    low = [fold_in_place(w) for w in words]
    two = " ".join(_stem(w, case) for w in low[:2])
    if len(low) > 1 and two in _KNOWN:
        return _KNOWN[two]
    first, stem = low[0], _stem(low[0], case)
    if first in _NOT_CITIES:
        return None
    for candidate in (stem, first, first.rstrip("аяеиуюоь")):
        if candidate in _KNOWN:
            return _KNOWN[candidate]
    if not words[0][:1].isupper():
        return None  # an unknown lower-case word is more likely "в деревне" than a city
    if case == "loc":
        if first.endswith("ах"):
            stem = first[:-2] + "и"  # "в Химках" -> Химки
        elif first.endswith("и"):
            stem = first[:-1] + "ь"  # "в Твери" -> Тверь
        elif first.endswith("е") and len(first) > 3:
            stem = first[:-1]  # "в Берлине" -> Берлин
        else:
            stem = first
    else:
        stem = first[:-1] + "а" if first.endswith("у") else first[:-1] + "я" if first.endswith("ю") else first
    return "-".join(part[:1].upper() + part[1:] for part in stem.split("-"))
