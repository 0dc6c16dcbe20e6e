"""Type aliases of the public signatures, for type checkers and readers (``py.typed``).

Annotations only: every module that uses them has ``from __future__ import annotations``, so
none of these is evaluated when the package runs. The option names (``ties``, ``gain``...) are
typed ``str`` rather than a ``Literal`` of today's choices: the registry and the conventions
presets are the one list of what is valid, checked at run time with a message naming the choices.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import IO, Any

import numpy as np

__all__ = ["Cutoff", "Gain", "MetricSpecs", "PathOrFile", "RandomState", "StrPath"]

#: A file name.
StrPath = str | os.PathLike[str]
#: A file name or an open file object (text or binary, as the function says).
PathOrFile = str | os.PathLike[str] | IO[Any]
#: Metric specs: ``"ndcg@10"``, a list of them, or ``None`` for the defaults.
MetricSpecs = str | Sequence[str] | None
#: Cut-offs for specs given without ``@k``: an int, a list of them, a rule's name or a callable.
Cutoff = int | str | Sequence[int] | Callable[..., Any] | None
#: DCG gain: ``"exponential"``, ``"linear"`` or a mapping label -> gain.
Gain = str | Mapping[Any, float] | None
#: What scikit-learn accepts as ``random_state``, plus a numpy ``Generator``.
RandomState = int | np.random.RandomState | np.random.Generator | None
