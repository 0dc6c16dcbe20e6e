"""ranx compiled by numba, as its users run it.

The other tests run ranx's numba kernels as plain Python (``NUMBA_DISABLE_JIT``, set by the
root ``conftest.py``): the same code, without minutes of compilation on a fresh machine. This
slow test runs ranx in a fresh process with numba's JIT on, for every fusion method, and
checks that the compiled values equal the package's, as the interpreted ones do in
``tests/runs/test_fusion.py``.
"""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from sklearn_ltr_metrics.runs import fuse, fusion_method_names

from .test_fusion import PARAMS, as_dict, random_runs

pytest.importorskip("ranx")
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent(
    """
    import json, sys, warnings
    import numba
    from numba import config
    assert not config.DISABLE_JIT, "numba's JIT is off"
    warnings.filterwarnings("ignore", message=".*unsafe cast")
    import ranx
    from tests.runs.test_fusion import PARAMS, random_runs
    def to_ranx(frame):
        run = {}
        for q, d, s in zip(frame["qid"], frame["doc_id"], frame["score"]):
            run.setdefault(str(q), {})[str(d)] = float(s)
        return ranx.Run(run)
    out = {}
    for method in json.loads(sys.argv[1]):
        condorcet = "condorcet" in method
        frames = random_runs(1, noise=0.05 if condorcet else 1.0, drop_one=condorcet)
        fused = ranx.fuse([to_ranx(f) for f in frames], method=method,
                          params=PARAMS.get(method, {}))
        out[method] = [[q, d, s] for q, docs in fused.to_dict().items() for d, s in docs.items()]
    print(json.dumps(out))
    """
)


def test_compiled_ranx_fuses_as_the_package_does():
    methods = fusion_method_names()
    env = {**os.environ, "NUMBA_DISABLE_JIT": "0", "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, json.dumps(methods)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=900,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    compiled = json.loads(result.stdout.splitlines()[-1])
    assert sorted(compiled) == sorted(methods)
    for method in methods:
        condorcet = "condorcet" in method
        frames = random_runs(1, noise=0.05 if condorcet else 1.0, drop_one=condorcet)
        ours = as_dict(fuse(frames, method, **PARAMS.get(method, {})))
        theirs = {(q, d): s for q, d, s in compiled[method]}
        assert ours.keys() == theirs.keys(), method
        keys = sorted(ours)
        np.testing.assert_allclose(
            [ours[k] for k in keys], [theirs[k] for k in keys], rtol=1e-10, atol=1e-12,
            err_msg=method,
        )  # fmt: skip
