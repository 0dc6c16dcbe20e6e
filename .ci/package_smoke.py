"""Build the sdist and the wheel, check what each holds, install each in a fresh venv and run
the smoke checks from outside the repository; build the docs against the installed wheel.

Run from any folder with an interpreter that has ``build`` (the test extra): ::

    python .ci/package_smoke.py            # everything (about 10 minutes on 2 cores)
    python .ci/package_smoke.py --no-docs --no-sdist-install

The contents are checked by pattern, never against a list of today's file names:

- the sdist holds every tracked file of the package that a build needs (``*.py``, ``*.pyi``,
  ``*.pyx``, ``*.pxi``, ``*.pxd``, ``*.h``, ``py.typed``), the build files and the documents
  (setup.py, pyproject.toml, MANIFEST.in, LICENSE, README.md, CHANGELOG.md), and nothing else:
  no tests, docs, examples, generated C or built extension;
- the wheel holds every ``*.py`` and ``*.pyi`` of the package, one compiled module per
  ``*.pyx``, ``py.typed``, the license, and no source of the compiled modules (``.c``,
  ``.pyx``, ``.pxi``, ``.pxd``, ``.h``).

Each venv is made without the system's site-packages, so the wheel's declared dependencies are
what gets the package running; pip reuses its cache. The times of each step are printed.
"""

import argparse
import ast
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "sklearn_ltr_metrics"
#: Suffixes of the package's files that a build needs (the sdist ships them all).
BUILD_SUFFIXES = {".py", ".pyi", ".pyx", ".pxi", ".pxd", ".h", ".typed"}
#: Sources of the compiled modules: in the sdist, never in the wheel (nor the generated .c).
COMPILED_SOURCES = {".c", ".pyx", ".pxi", ".pxd", ".h"}
#: Files at the sdist's top level besides the package (PKG-INFO, setup.cfg: written by setuptools).
SDIST_TOP = {"setup.py", "pyproject.toml", "MANIFEST.in", "LICENSE", "README.md", "CHANGELOG.md"}
SDIST_GENERATED = {"PKG-INFO", "setup.cfg"}


def expected_version():
    """The version, read from the one place it is written (without importing the package)."""
    tree = ast.parse((ROOT / PACKAGE / "_version.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and node.targets[0].id == "__version__":
            return node.value.value
    raise SystemExit(f"no __version__ in {PACKAGE}/_version.py")


def _tracked():
    """The package's files tracked by git (None outside a git checkout)."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z", PACKAGE], cwd=ROOT, capture_output=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return {PurePosixPath(p) for p in listed.decode().split("\0") if p}


def package_files():
    """The package's files a build needs, relative to the root (tracked by git when it can)."""
    paths = _tracked()
    if paths is None:
        paths = {PurePosixPath(p.relative_to(ROOT).as_posix()) for p in (ROOT / PACKAGE).rglob("*")}
    return {p for p in paths if p.suffix in BUILD_SUFFIXES and "__pycache__" not in p.parts}


def unknown_files():
    """Tracked files of the package that no packaging rule knows (a data file would not ship)."""
    return sorted(str(p) for p in _tracked() or () if p.suffix not in BUILD_SUFFIXES)


@contextmanager
def step(title):
    print(f"\n=== {title}", flush=True)
    start = time.perf_counter()
    yield
    print(f"=== {title}: {time.perf_counter() - start:.0f} s", flush=True)


def run(*command, cwd=None):
    print("$", " ".join(map(str, command)), flush=True)
    subprocess.run([str(c) for c in command], cwd=cwd, check=True)


def fail_if(problems, what):
    if problems:
        raise SystemExit(f"{what}:\n  " + "\n  ".join(sorted(problems)))


def check_sdist(path, version):
    with tarfile.open(path) as archive:
        names = [m.name for m in archive.getmembers() if m.isfile()]
    top = f"{PACKAGE}-{version}"
    if any(not n.startswith(top + "/") for n in names):
        raise SystemExit(f"{path.name}: files outside {top}/")
    members = {PurePosixPath(n).relative_to(top) for n in names}
    problems = [f"missing {name}" for name in SDIST_TOP if PurePosixPath(name) not in members]
    problems += [f"missing {p}" for p in package_files() - members]
    problems += [
        f"{p} is tracked but neither shipped nor excluded by a rule: add its suffix to "
        "MANIFEST.in, package-data and BUILD_SUFFIXES here"
        for p in unknown_files()
    ]
    for member in members:
        allowed = (
            str(member) in SDIST_TOP | SDIST_GENERATED
            or member.parts[0] == f"{PACKAGE}.egg-info"
            or (member.parts[0] == PACKAGE and member.suffix in BUILD_SUFFIXES)
        )
        if not allowed:
            problems.append(f"should not ship {member}")
    fail_if(problems, f"{path.name} is not what a build needs")
    pyx = sorted(str(m) for m in members if m.suffix == ".pyx")
    print(f"sdist: {len(members)} files, build files and documents, {len(pyx)} .pyx: {pyx}")
    return {m for m in members if m.suffix == ".pyx"}


def check_wheel(path, version, pyx_files):
    with zipfile.ZipFile(path) as archive:
        members = {PurePosixPath(n) for n in archive.namelist() if not n.endswith("/")}
        metadata = archive.read(f"{PACKAGE}-{version}.dist-info/METADATA").decode()
        entry_points = archive.read(f"{PACKAGE}-{version}.dist-info/entry_points.txt").decode()
    python_files = {p for p in package_files() if p.suffix in {".py", ".pyi", ".typed"}}
    problems = [f"missing {p}" for p in python_files - members]
    problems += [f"should not ship {m}" for m in members if m.suffix in COMPILED_SOURCES]
    if PurePosixPath(PACKAGE, "py.typed") not in members:
        problems.append(f"missing {PACKAGE}/py.typed")
    compiled = {m for m in members if m.suffix in {".so", ".pyd"}}
    for source in pyx_files:
        stem = source.with_suffix("")
        if not any(m.parent == stem.parent and m.name.split(".")[0] == stem.name for m in compiled):
            problems.append(f"no compiled module for {source}")
    if f"\nVersion: {version}\n" not in metadata:
        problems.append(f"METADATA does not say Version: {version}")
    if "ltr-eval" not in entry_points:
        problems.append("no ltr-eval console script")
    if not any(m.parent.name == "licenses" or m.name == "LICENSE" for m in members):
        problems.append("no LICENSE in the wheel's metadata")
    fail_if(problems, f"{path.name} is not what users should install")
    print(
        f"wheel: {len(members)} files, {len(compiled)} compiled modules: "
        f"{sorted(str(m) for m in compiled)}"
    )


def make_venv(folder):
    """A fresh venv without the system's packages; its python."""
    run(sys.executable, "-m", "venv", folder)
    return folder / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def pip_install(python, *requirements):
    run(python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *requirements)


def smoke(python, version, workdir):
    """The installed-package checks, run from ``workdir`` (outside the repository)."""
    trec = ROOT.parent / "shared" / "datasets" / "trec_eval-test"
    run(
        python,
        ROOT / ".ci" / "smoke_installed.py",
        "--version",
        version,
        "--trec-dir",
        trec,
        "--source-root",
        ROOT,
        cwd=workdir,
    )


def build_docs(python, workdir):
    """Sphinx ``-W`` against the installed wheel: the console script, not ``python -m``, so
    neither the current folder nor the source tree is first on ``sys.path``."""
    sphinx = Path(python).with_name("sphinx-build" + (".exe" if os.name == "nt" else ""))
    output = workdir / "docs.log"
    with open(output, "w") as log:
        result = subprocess.run(
            [
                str(sphinx),
                "-W",
                "--keep-going",
                "-b",
                "html",
                str(ROOT / "docs"),
                str(ROOT / "docs" / "_build" / "html"),
            ],
            cwd=workdir,
            stdout=log,
            stderr=subprocess.STDOUT,
            check=False,
        )
    text = output.read_text()
    print(text[-3000:])
    if result.returncode != 0:
        raise SystemExit(f"the docs build against the installed wheel failed ({result.returncode})")
    documented = [line for line in text.splitlines() if line.startswith("documenting ")]
    site = str(Path(python).parents[1])
    if not documented or site not in documented[0]:
        raise SystemExit(f"the docs did not document the installed wheel (in {site}): {documented}")
    print(documented[0])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", type=Path, help="copy the sdist and the wheel into this folder")
    parser.add_argument("--no-docs", action="store_true", help="skip the docs build")
    parser.add_argument(
        "--no-sdist-install",
        action="store_true",
        help="check the sdist's contents but do not install it",
    )
    args = parser.parse_args(argv)
    version = expected_version()
    start = time.perf_counter()
    work = Path(tempfile.mkdtemp(prefix="ltr_package_smoke_")).resolve()
    dist = work / "dist"
    try:
        with step("build the sdist, then the wheel from it (python -m build)"):
            run(sys.executable, "-m", "build", "--outdir", dist, ROOT)
        (sdist,) = dist.glob(f"{PACKAGE}-{version}.tar.gz")
        (wheel,) = dist.glob(f"{PACKAGE}-{version}-*.whl")
        if args.keep:
            args.keep.mkdir(parents=True, exist_ok=True)
            for artefact in (sdist, wheel):
                shutil.copy2(artefact, args.keep)
        with step("check what the sdist and the wheel hold"):
            pyx_files = check_sdist(sdist, version)
            check_wheel(wheel, version, pyx_files)
        with step("install the wheel in a fresh venv and run the smoke checks"):
            python = make_venv(work / "wheel-venv")
            pip_install(python, wheel)
            smoke(python, version, work)
        if not args.no_docs:
            with step("build the docs with -W against the installed wheel"):
                pip_install(python, f"{wheel}[doc]")
                build_docs(python, work)
        if not args.no_sdist_install:
            with step("install the sdist (compiles the engine) in a fresh venv, smoke checks"):
                python = make_venv(work / "sdist-venv")
                pip_install(python, sdist)
                smoke(python, version, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"\npackaging checks passed in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
