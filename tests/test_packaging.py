"""The release checks of ``.ci/package_smoke.py`` catch what they are meant to catch.

The real build runs in ``.ci/run`` (minutes); here the content rules run on small archives made
from this checkout's own file list, once as they should be and once with each defect.
"""

import importlib.util
import io
import tarfile
import zipfile
from pathlib import Path, PurePosixPath

import pytest

ROOT = Path(__file__).resolve().parents[1]
_SPEC = importlib.util.spec_from_file_location("package_smoke", ROOT / ".ci" / "package_smoke.py")
smoke = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(smoke)
VERSION = smoke.expected_version()
PACKAGE = "sklearn_ltr_metrics"


def test_the_version_is_read_from_its_one_place():
    import sklearn_ltr_metrics

    assert VERSION == sklearn_ltr_metrics.__version__ == "0.2.0"


def _sdist(tmp_path, files):
    path = tmp_path / f"{PACKAGE}-{VERSION}.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        for name in files:
            info = tarfile.TarInfo(f"{PACKAGE}-{VERSION}/{name}")
            archive.addfile(info, io.BytesIO(b""))
    return path


def _good_sdist_files():
    top = ["setup.py", "pyproject.toml", "MANIFEST.in", "LICENSE", "README.md", "CHANGELOG.md"]
    top += ["PKG-INFO", "setup.cfg", f"{PACKAGE}.egg-info/SOURCES.txt"]
    return top + [str(p) for p in smoke.package_files()]


def test_sdist_rules(tmp_path):
    files = _good_sdist_files()
    pyx = smoke.check_sdist(_sdist(tmp_path, files), VERSION)
    assert pyx and all(p.suffix == ".pyx" for p in pyx)
    header = next(f for f in files if f.endswith((".h", ".pxi")))
    defects = {
        f"missing {header}": [f for f in files if f != header],
        "missing CHANGELOG.md": [f for f in files if f != "CHANGELOG.md"],
        f"should not ship {PACKAGE}/_x.c": [*files, f"{PACKAGE}/_x.c"],
        f"should not ship {PACKAGE}/_x.cpython-311-x86_64-linux-gnu.so": [
            *files,
            f"{PACKAGE}/_x.cpython-311-x86_64-linux-gnu.so",
        ],
        "should not ship tests/test_x.py": [*files, "tests/test_x.py"],
        "should not ship docs/_build/html/index.html": [*files, "docs/_build/html/index.html"],
    }
    for problem, content in defects.items():
        with pytest.raises(SystemExit, match=problem.replace(".", r"\.")):
            smoke.check_sdist(_sdist(tmp_path, content), VERSION)


def test_a_tracked_file_no_rule_knows_is_reported(tmp_path, monkeypatch):
    """A new data file (say a CSS template) would ship in neither artefact: say so."""
    tracked = smoke._tracked()
    assert tracked is not None  # a git checkout
    monkeypatch.setattr(smoke, "_tracked", lambda: {*tracked, PurePosixPath(PACKAGE, "a.css")})
    with pytest.raises(SystemExit, match=r"a\.css is tracked but neither shipped"):
        smoke.check_sdist(_sdist(tmp_path, _good_sdist_files()), VERSION)


def _wheel(tmp_path, files):
    path = tmp_path / f"{PACKAGE}-{VERSION}-cp311-cp311-linux_x86_64.whl"
    info = f"{PACKAGE}-{VERSION}.dist-info"
    with zipfile.ZipFile(path, "w") as archive:
        for name in files:
            archive.writestr(name, "")
        archive.writestr(f"{info}/METADATA", f"Name: x\nVersion: {VERSION}\nSummary: x\n")
        archive.writestr(f"{info}/entry_points.txt", "[console_scripts]\nltr-eval = x:main\n")
        archive.writestr(f"{info}/licenses/LICENSE", "BSD")
    return path


def test_wheel_rules(tmp_path):
    sources = smoke.package_files()
    pyx = {p for p in sources if p.suffix == ".pyx"}
    python = [str(p) for p in sources if p.suffix in {".py", ".pyi", ".typed"}]
    built = {p: str(p.with_suffix(".cpython-311-x86_64-linux-gnu.so")) for p in sorted(pyx)}
    compiled = list(built.values())
    smoke.check_wheel(_wheel(tmp_path, python + compiled), VERSION, pyx)
    one = sorted(pyx)[0]
    defects = {
        f"no compiled module for {one}": python + [c for p, c in built.items() if p != one],
        f"should not ship {one}": [*python, *compiled, str(one)],
        f"should not ship {PACKAGE}/_x.c": [*python, *compiled, f"{PACKAGE}/_x.c"],
        f"missing {PACKAGE}/py.typed": [f for f in python + compiled if not f.endswith("py.typed")],
        f"missing {PACKAGE}/__init__.py": [
            f for f in python + compiled if f != f"{PACKAGE}/__init__.py"
        ],
    }
    for problem, content in defects.items():
        with pytest.raises(SystemExit, match=problem.replace(".", r"\.")):
            smoke.check_wheel(_wheel(tmp_path, content), VERSION, pyx)
    assert PurePosixPath(PACKAGE, "py.typed") in sources
