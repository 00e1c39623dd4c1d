"""The offline hashing embedder: deterministic, normalised, multilingual, fast."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import pytest

from health_ltm.domain.hashing_embedder import HashingEmbedder, cosine, sparse_dot
from health_ltm.ports import Embedder


@pytest.fixture(scope="module")
def embedder() -> HashingEmbedder:
    return HashingEmbedder()


def sim(embedder: HashingEmbedder, a: str, b: str) -> float:
    va, vb = embedder.embed([a, b])
    return cosine(va, vb)


def test_it_implements_the_embedder_port(embedder):
    port: Embedder = embedder
    assert port.name == "hash-ngram-v1"
    assert port.dimensions == 512
    vectors = port.embed(["Привет", "hello", "你好"])
    assert len(vectors) == 3
    assert all(len(v) == 512 for v in vectors)
    assert embedder.embed([]) == []


def test_vectors_are_l2_normalised(embedder):
    for text in ["Можно ли мне ибупрофен?", "What should I cook?", "我以前吃过什么药？", "a"]:
        (vector,) = embedder.embed([text])
        assert math.isclose(math.sqrt(sum(x * x for x in vector)), 1.0, rel_tol=1e-9)


def test_text_without_words_gives_the_zero_vector(embedder):
    (vector,) = embedder.embed(["?!  ..."])
    assert not any(vector)
    assert cosine(vector, vector) == 0.0


def test_vectors_are_identical_across_processes_with_different_hash_seeds(embedder):
    """crc32, not Python's salted hash(): stored vectors must match future queries."""
    code = (
        "import json; from health_ltm.domain.hashing_embedder import HashingEmbedder;"
        "print(json.dumps(HashingEmbedder().embed(['Головная боль, headache, 头疼'])[0]))"
    )
    outputs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        outputs.append(json.loads(done.stdout))
    assert outputs[0] == outputs[1] == embedder.embed(["Головная боль, headache, 头疼"])[0]


def test_case_and_yo_do_not_matter(embedder):
    assert embedder.embed(["ОТЁК НОГ"]) == embedder.embed(["отек ног"])


@pytest.mark.parametrize(
    ("anchor", "similar", "unrelated"),
    [
        ("У меня болит голова", "Сильная головная боль второй день", "Что приготовить на ужин?"),
        ("Какие лекарства я принимаю?", "Список моих лекарств", "Я люблю плавать в бассейне"),
        ("аллергия на арахис", "аллергии на арахисовое масло", "прививка от столбняка"),
        ("I have a bad headache", "My headaches are getting worse", "What should I cook for dinner?"),
        ("Which pills am I taking?", "List the pills I take", "I went hiking last weekend"),
        ("我头疼", "我头疼得厉害", "晚饭吃什么"),
    ],
)
def test_similar_sentences_are_closer_than_unrelated_ones(embedder, anchor, similar, unrelated):
    assert sim(embedder, anchor, similar) > sim(embedder, anchor, unrelated) + 0.1


def test_inflected_forms_stay_close(embedder):
    assert sim(embedder, "головная боль", "головной болью") > 0.3


def test_shared_stop_words_weigh_little_and_a_shared_content_word_much(embedder):
    assert sim(embedder, "I have a cat", "I have a dog") < 0.2
    assert sim(embedder, "I have a cat", "the cat") > 0.8
    assert sim(embedder, "у меня есть кот", "у меня есть собака") < 0.2
    assert sim(embedder, "у меня есть кот", "кот") > 0.8


def test_sparse_form_equals_the_dense_one(embedder):
    text = "Можно ли мне парацетамол при температуре?"
    (dense,) = embedder.embed([text])
    sparse = embedder.embed_sparse(text)
    assert [sparse.get(i, 0.0) for i in range(embedder.dimensions)] == dense
    assert math.isclose(sparse_dot(sparse, sparse), 1.0)


def test_dimensions_are_configurable():
    (vector,) = HashingEmbedder(dimensions=1024).embed(["тест"])
    assert len(vector) == 1024
    with pytest.raises(ValueError):
        HashingEmbedder(dimensions=4)


def test_cosine():
    assert cosine([1.0, 0.0], [2.0, 0.0]) == pytest.approx(1.0)
    assert cosine([1.0, 0.0], [0.0, 3.0]) == 0.0
    assert cosine([1.0, 1.0], [-1.0, -1.0]) == pytest.approx(-1.0)
    assert cosine([0.0, 0.0], [1.0, 0.0]) == 0.0
    with pytest.raises(ValueError):
        cosine([1.0], [1.0, 2.0])


