"""Time the statistics layer on a large per-query table.

Run from the repository root::

    python benchmarks/bench_stats.py

Prints the best of a few runs of ``bootstrap_ci`` (1000 resamples over 20,000 queries; target
< 0.2 s), of its weighted and BCa variants, and of a Monte-Carlo permutation test.
"""

import time

import numpy as np

from sklearn_ltr_metrics.stats._stats import bootstrap_ci, paired_test

N_QUERIES = 20_000
N_RESAMPLES = 1000
TARGET_SECONDS = 0.2


def best_time(func, repeat=7):
    """Best wall-clock time of ``repeat`` calls of ``func``, in seconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    rng = np.random.default_rng(0)
    values = rng.beta(2, 3, size=N_QUERIES)
    weights = rng.integers(1, 100, size=N_QUERIES).astype(float)
    other = np.clip(values + rng.normal(0.01, 0.1, size=N_QUERIES), 0, 1)

    seconds = best_time(lambda: bootstrap_ci(values, n_resamples=N_RESAMPLES, random_state=0))
    status = "OK" if seconds < TARGET_SECONDS else "SLOWER THAN TARGET"
    print(
        f"bootstrap_ci percentile, {N_RESAMPLES} resamples x {N_QUERIES} queries: "
        f"{seconds:.3f} s (target < {TARGET_SECONDS} s: {status})"
    )
    seconds = best_time(
        lambda: bootstrap_ci(values, weights=weights, n_resamples=N_RESAMPLES, random_state=0)
    )
    print(f"bootstrap_ci weighted, same size: {seconds:.3f} s")
    seconds = best_time(
        lambda: bootstrap_ci(values, n_resamples=N_RESAMPLES, method="bca", random_state=0)
    )
    print(f"bootstrap_ci bca, same size: {seconds:.3f} s")
    seconds = best_time(
        lambda: paired_test(values, other, n_resamples=10_000, random_state=0), repeat=2
    )
    print(f"paired_test permutation, 10000 sign flips x {N_QUERIES} queries: {seconds:.3f} s")


if __name__ == "__main__":
    main()
