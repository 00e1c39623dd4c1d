"""Medians and p95 over repeated runs, and interleaved sampling for side-by-side comparisons.

Timing on a small shared machine is noisy: every figure is a distribution (n, median, p95), and
cases that are compared with each other are sampled round-robin in the same run, so a burst of
background load hits all of them alike.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Mapping


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (no interpolation): p95 of 20 samples is the 19th smallest."""
    if not values:
        raise ValueError("no samples")
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def summarize(samples_s: list[float], digits: int = 3) -> dict:
    """Seconds in, milliseconds out."""
    ms = [s * 1000 for s in samples_s]
    return {
        "n": len(ms),
        "median_ms": round(statistics.median(ms), digits),
        "p95_ms": round(percentile(ms, 95), digits),
        "min_ms": round(min(ms), digits),
        "max_ms": round(max(ms), digits),
    }


def summarize_counts(values: list[float]) -> dict:
    return {
        "n": len(values),
        "median": statistics.median(values),
        "min": min(values),
        "max": max(values),
        "mean": round(statistics.fmean(values), 3),
    }


def interleaved(
    cases: Mapping[str, Callable[[], float]], rounds: int, warmup: int = 2
) -> dict[str, list[float]]:
    """Run every case once per round, round-robin; each case returns its own elapsed seconds
    (so that it can leave its setup out of the measurement). The garbage collector is left
    alone: a collection that falls inside a request is part of that request's cost."""
    for _ in range(warmup):
        for case in cases.values():
            case()
    samples: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(rounds):
        for name, case in cases.items():
            samples[name].append(case())
    return samples


def ratio(a: float, b: float) -> float:
    return round(a / b, 3) if b else float("nan")
