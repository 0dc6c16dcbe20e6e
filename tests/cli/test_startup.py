"""``ltr-eval --version`` answers without importing pandas or scikit-learn (under 0.3 s)."""

import json
import subprocess
import sys

import pytest

import sklearn_ltr_metrics

HEAVY = ["pandas", "sklearn", "scipy", "numpy"]


def _run(code):
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    return out


@pytest.mark.parametrize("entry", ["sklearn_ltr_metrics._cli", "sklearn_ltr_metrics.__main__"])
def test_version_loads_nothing_heavy(entry):
    code = (
        "import json, sys\n"
        f"from {entry} import main\n"
        "try:\n    main(['--version'])\nexcept SystemExit as exc:\n    code = exc.code\n"
        f"print(json.dumps([code, [m for m in {HEAVY!r} if m in sys.modules]]))"
    )
    out = _run(code)
    lines = out.stdout.splitlines()
    assert lines[0] == f"ltr-eval {sklearn_ltr_metrics.__version__}", out.stderr
    assert json.loads(lines[1]) == [0, []]


@pytest.mark.slow  # fresh Python processes, end to end
def test_help_goes_through_the_parser():
    out = _run(
        "from sklearn_ltr_metrics._cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit as exc:\n"
        "    print('exit', exc.code)"
    )
    assert "exit 0" in out.stdout and "usage: ltr-eval" in out.stdout
    for command in ("evaluate", "compare", "fuse", "pool", "reconcile", "demo"):
        assert command in out.stdout


def test_import_of_the_package_is_light():
    out = _run(
        "import json, sys; import sklearn_ltr_metrics as s; "
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules])); print(s.__version__)"
    )
    assert json.loads(out.stdout.splitlines()[0]) == []
