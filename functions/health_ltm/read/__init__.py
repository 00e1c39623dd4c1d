"""Read path: a question (and a few recent messages) -> the sections and facts its answer needs."""
