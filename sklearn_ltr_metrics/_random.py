"""The package's one random-state policy (a shared leaf: every family may import it).

Every public ``random_state`` parameter of the package (statistics, the report, the rankers,
the data generator) accepts the same four kinds of value and gives them the same meaning:

==============================  ============================================================
``None``                        fresh entropy from the operating system: results differ
                                from run to run.
an int ``>= 0`` (numpy ints     a seed: the same int always gives the same results.
too, not ``bool``)
a :class:`numpy.random.Generator`  used as it is and advanced (the caller's stream: a
                                seeded generator gives reproducible results).
a :class:`numpy.random.RandomState`  the legacy scikit-learn kind: used as it is where legacy
                                draws are needed, else a seed is drawn from it (so it too is
                                advanced, and a seeded one gives reproducible results).
==============================  ============================================================

Anything else is a ``TypeError``; a negative int is a ``ValueError``. Code that needs several
independent streams (one per metric, system or stratum) spawns them from one
:class:`numpy.random.SeedSequence` (:func:`check_seed_sequence`), so adding a stream never
changes the others. An int seed ``s`` gives ``numpy.random.default_rng(s)`` and
``SeedSequence(s)``, as numpy itself does.
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = [
    "RANDOM_STATE_KINDS",
    "check_random_state",
    "check_seed_sequence",
    "legacy_random_state",
    "random_seed",
    "spawn_generators",
]

#: What a ``random_state`` may be, in words (for docstrings and error messages).
RANDOM_STATE_KINDS = (
    "None, a non-negative int, a numpy.random.Generator or a numpy.random.RandomState"
)

#: Seeds drawn from a generator lie in [0, 2**63).
_SEED_BOUND = 2**63


def _check(random_state, name):
    """Return ``random_state`` checked (an int as a Python int)."""
    if random_state is None or isinstance(
        random_state, (np.random.Generator, np.random.RandomState)
    ):
        return random_state
    if isinstance(random_state, numbers.Integral) and not isinstance(
        random_state, (bool, np.bool_)
    ):
        if random_state < 0:
            raise ValueError(
                f"{name} must be a non-negative integer seed, got {random_state!r}; "
                f"e.g. {name}=0 for reproducible results."
            )
        return int(random_state)
    raise TypeError(
        f"{name} must be {RANDOM_STATE_KINDS}, got {random_state!r} "
        f"({type(random_state).__name__}); e.g. {name}=0 for reproducible results."
    )


def random_seed(random_state, name="random_state"):
    """An int seed in ``[0, 2**63)`` from any accepted ``random_state`` (None: fresh entropy).

    For code that hands a seed to another library (LightGBM's ``seed``). An int is returned as
    it is; a Generator or RandomState is advanced by one draw.
    """
    state = _check(random_state, name)
    if state is None:
        return int(np.random.SeedSequence().generate_state(2, dtype=np.uint32).view(np.uint64)[0])
    if isinstance(state, int):
        return state
    if isinstance(state, np.random.Generator):
        return int(state.integers(_SEED_BOUND))
    return int(state.randint(0, _SEED_BOUND - 1, dtype=np.int64))


def check_random_state(random_state, name="random_state"):
    """A :class:`numpy.random.Generator` from any accepted ``random_state``.

    ``None`` and an int go through :func:`numpy.random.default_rng`; a Generator is returned
    as it is; a RandomState gives a Generator seeded by one draw from it.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_ltr_metrics._random import check_random_state
    >>> a = check_random_state(0).integers(100, size=3)
    >>> b = np.random.default_rng(0).integers(100, size=3)
    >>> bool((a == b).all())
    True
    >>> check_random_state(np.random.RandomState(0)).integers(10) == check_random_state(
    ...     np.random.RandomState(0)).integers(10)
    np.True_
    """
    state = _check(random_state, name)
    if state is None or isinstance(state, (int, np.random.Generator)):
        return np.random.default_rng(state)
    return np.random.default_rng(random_seed(state, name))


def check_seed_sequence(random_state, name="random_state"):
    """A :class:`numpy.random.SeedSequence` to ``spawn`` independent child streams from.

    An int ``s`` gives ``SeedSequence(s)``; a Generator or RandomState gives a sequence
    seeded by one draw from it (reproducible when it is seeded); ``None`` fresh entropy.
    """
    state = _check(random_state, name)
    if state is None:
        return np.random.SeedSequence()
    if isinstance(state, int):
        return np.random.SeedSequence(state)
    return np.random.SeedSequence(random_seed(state, name))


def spawn_generators(random_state, n, name="random_state"):
    """``n`` independent Generators spawned from ``random_state`` (see the module docstring)."""
    return [np.random.default_rng(s) for s in check_seed_sequence(random_state, name).spawn(n)]


def legacy_random_state(random_state, name="random_state"):
    """A :class:`numpy.random.RandomState` (what scikit-learn's estimators draw from).

    ``None`` and an int give ``RandomState(seed)`` (an int as it is, so the streams match
    ``sklearn.utils.check_random_state``); a RandomState is returned as it is; a Generator
    gives a RandomState seeded by one draw from it.
    """
    state = _check(random_state, name)
    if isinstance(state, np.random.RandomState):
        return state
    if state is None:
        return np.random.RandomState()
    if isinstance(state, int) and state < 2**32:
        return np.random.RandomState(state)
    return np.random.RandomState(np.random.MT19937(random_seed(state, name)))
