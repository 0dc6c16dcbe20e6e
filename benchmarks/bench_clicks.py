"""Time the click-log family on 10M logged impressions: simulate, then estimate.

Run from the repository root::

    python benchmarks/bench_clicks.py                  # 10M impressions (100k queries x 10 x 10)
    python benchmarks/bench_clicks.py --queries 10000  # a quick check (1M impressions)

The data: ``--queries`` queries of 50 rows each, graded 0..2; every query is shown
``--sessions`` times with its top 10. Timed, each the best of ``--repeat`` calls:

- ``simulate`` (position-based model) plain, with RandTop-k and with RandPair, and the cascade
  and DBN models;
- ``estimate_propensity`` with ``"randomization"`` (on the RandTop-k log), ``"swap"`` (on the
  RandPair log) and ``"em"`` (on logs of 10 noisy logging rankers on a tenth of the queries,
  all of their 10 rows shown, ``--sessions`` sessions each: as many impressions);
- ``counterfactual_evaluate`` (IPS, ``dcg@10``) of a new ranking on the plain log.

Prints seconds and impressions per second. Every step is vectorised over all sessions (no
Python loop per session or per query), so the time grows linearly with the log; the machine
may be shared, so compare rates within one run.
"""

import argparse
import time

import numpy as np
import pandas as pd

from sklearn_ltr_metrics.clicks import counterfactual_evaluate, estimate_propensity, simulate


def best_of(repeat, function):
    times, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        out = function()
        times.append(time.perf_counter() - start)
    return min(times), out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=100_000)
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(args.queries), 50)
    y = rng.integers(0, 3, qid.size)
    score = y + rng.normal(0, 1.5, qid.size)
    other = y + rng.normal(0, 1.5, qid.size)
    n = args.queries * args.sessions * 10
    print(f"{args.queries:,} queries x {args.sessions} sessions x top 10 = {n:,} impressions")

    def report(name, seconds, lines):
        print(f"{name:<40} {seconds:8.2f} s  {lines / seconds / 1e6:8.2f} M impressions/s")

    logs = {}
    for name, kwargs in [
        ("simulate pbm", {}),
        ("simulate pbm randomize='top_k'", {"randomize": "top_k"}),
        ("simulate pbm randomize='pairs'", {"randomize": "pairs"}),
        ("simulate cascade", {"model": "cascade"}),
        ("simulate dbn", {"model": "dbn"}),
    ]:
        seconds, logs[name] = best_of(
            args.repeat,
            lambda kwargs=kwargs: simulate(
                y, score, qid, n_sessions=args.sessions, random_state=0, **kwargs
            ),
        )
        report(name, seconds, len(logs[name]))
    randomized = logs["simulate pbm randomize='top_k'"]
    seconds, est = best_of(args.repeat, lambda: estimate_propensity(randomized))
    report("estimate_propensity randomization", seconds, len(randomized))
    print("  ", np.round(est.propensity[:5], 3))
    pairs = logs["simulate pbm randomize='pairs'"]
    seconds, est = best_of(args.repeat, lambda: estimate_propensity(pairs, method="swap"))
    report("estimate_propensity swap", seconds, len(pairs))
    print("  ", np.round(est.propensity[:5], 3))
    # EM needs many impressions of each document at several ranks: the first 10 rows of
    # each of queries/10 queries, every row shown in every session, 10 noisy logging rankers
    # with --sessions sessions each (as many impressions as the other logs).
    keep = (qid < args.queries // 10) & (np.arange(qid.size) % 50 < 10)
    parts = []
    for i in range(10):
        noisy = y[keep] + rng.normal(0, 1.5, keep.sum())
        part = simulate(y[keep], noisy, qid[keep], n_sessions=args.sessions, random_state=10 + i)
        parts.append(part.assign(session=part["session"] + i * len(part)))
    several = pd.concat(parts, ignore_index=True)
    seconds, est = best_of(args.repeat, lambda: estimate_propensity(several, method="em"))
    report(f"estimate_propensity em ({est.n_iter} iter)", seconds, len(several))
    print("  ", np.round(est.propensity[:5], 3))
    plain = logs["simulate pbm"]
    seconds, _ = best_of(
        args.repeat,
        lambda: counterfactual_evaluate(plain, other, qid, propensity=1 / np.arange(1, 11)),
    )
    report("counterfactual_evaluate ips dcg@10", seconds, len(plain))


if __name__ == "__main__":
    main()
