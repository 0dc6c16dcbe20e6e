"""The one random-state policy: None, int, Generator and RandomState everywhere."""

import numpy as np
import pandas as pd
import pytest

from sklearn_ltr_metrics._random import (
    check_random_state,
    check_seed_sequence,
    legacy_random_state,
    random_seed,
    spawn_generators,
)
from sklearn_ltr_metrics.stats import bootstrap_ci, compare_systems, paired_test, summarize


def test_int_seeds_match_numpy():
    assert check_random_state(7).random() == np.random.default_rng(7).random()
    assert check_random_state(np.int64(7)).random() == np.random.default_rng(7).random()
    a, b = spawn_generators(3, 2)
    c, d = (np.random.default_rng(s) for s in np.random.SeedSequence(3).spawn(2))
    assert (a.random(), b.random()) == (c.random(), d.random())
    assert legacy_random_state(5).randint(1000) == np.random.RandomState(5).randint(1000)
    assert random_seed(11) == 11


def test_generators_are_used_and_random_states_seed():
    gen = np.random.default_rng(0)
    assert check_random_state(gen) is gen
    first = check_random_state(np.random.RandomState(1)).random()
    assert first == check_random_state(np.random.RandomState(1)).random()  # reproducible
    rs = np.random.RandomState(2)
    assert legacy_random_state(rs) is rs
    s1 = check_seed_sequence(np.random.default_rng(4)).generate_state(1)
    s2 = check_seed_sequence(np.random.default_rng(4)).generate_state(1)
    assert (s1 == s2).all()
    assert isinstance(legacy_random_state(np.random.default_rng(0)), np.random.RandomState)
    assert isinstance(legacy_random_state(2**40), np.random.RandomState)


@pytest.mark.parametrize(
    ("value", "error", "match"),
    [
        (-1, ValueError, "non-negative integer"),
        (True, TypeError, "RandomState"),
        (0.5, TypeError, "e.g. random_state=0"),
        ("0", TypeError, "numpy.random.Generator"),
    ],
)
def test_bad_random_states(value, error, match):
    for function in (check_random_state, check_seed_sequence, legacy_random_state, random_seed):
        with pytest.raises(error, match=match):
            function(value)


def test_every_statistic_accepts_every_kind():
    values = np.linspace(0, 1, 20)
    table = pd.DataFrame({"n_pos": np.arange(1, 21), "n_neg": 30, "m": values})
    for kind in (None, 0, np.random.default_rng(0), np.random.RandomState(0)):
        assert len(bootstrap_ci(values, n_resamples=50, random_state=kind)) == 2
        assert paired_test(values, values[::-1], n_resamples=50, random_state=kind).n == 20
        summarize(table, n_resamples=20, random_state=kind)
        compare_systems({"a": table, "b": table}, baseline="a", random_state=kind)
    # A seeded RandomState gives reproducible intervals, as an int does.
    one = bootstrap_ci(values, n_resamples=50, random_state=np.random.RandomState(3))
    two = bootstrap_ci(values, n_resamples=50, random_state=np.random.RandomState(3))
    assert one == two
