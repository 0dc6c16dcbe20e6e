"""Build the compiled engine (``sklearn_ltr_metrics._engine._ranking`` and ``._sums``), with OpenMP
where the compiler has it.

Everything else about the package is declared in ``pyproject.toml``. As scikit-learn did in its
setuptools days, the build first compiles and links a tiny OpenMP program with the same compiler:
if that works the extension gets ``-fopenmp`` (``/openmp`` on MSVC) and its ``prange`` loops run
in threads; if not, a warning says so and the extension is built serially (same results, one
thread). ``pip install -e .`` runs this with Cython, numpy and setuptools from the build
requirements.
"""

import glob
import os
import shutil
import sys
import tempfile
import textwrap

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

OPENMP_TEST = textwrap.dedent(
    """
    #include <omp.h>
    int main(void) {
        int n = 0;
        #pragma omp parallel reduction(+: n)
        n += 1;
        return omp_get_max_threads() > 0 && n > 0 ? 0 : 1;
    }
    """
)


def openmp_flags(compiler):
    """Compile and link flags that enable OpenMP for ``compiler``, or None when it has none.

    On macOS, Apple clang takes OpenMP from the environment instead (as scikit-learn's wheels
    do): ``CPPFLAGS="-Xpreprocessor -fopenmp"``, ``CFLAGS="-I<libomp>/include"`` and
    ``LDFLAGS="-L<libomp>/lib -lomp"``; then no flag is added and the test program is linked
    with the ``-L``/``-l``/``-Wl,-rpath`` parts of ``LDFLAGS``.
    """
    if os.environ.get("SKLEARN_LTR_NO_OPENMP"):
        return None
    msvc = compiler.compiler_type == "msvc"
    if msvc:
        flag = ["/openmp"]
    elif sys.platform == "darwin" and "openmp" in os.environ.get("CPPFLAGS", ""):
        flag = []
    else:
        flag = ["-fopenmp"]
    libraries = [
        f for f in os.environ.get("LDFLAGS", "").split() if f.startswith(("-L", "-l", "-Wl,-rpath"))
    ]
    work = tempfile.mkdtemp(prefix="ltr_openmp_")
    try:
        source = os.path.join(work, "test_openmp.c")
        with open(source, "w") as handle:
            handle.write(OPENMP_TEST)
        objects = compiler.compile([source], output_dir=work, extra_postargs=flag)
        link = [] if msvc else flag + libraries
        compiler.link_executable(objects, "test_openmp", output_dir=work, extra_postargs=link)
    except Exception:  # any compile or link failure means no usable OpenMP
        return None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return flag, ([] if msvc else flag)


class BuildExt(build_ext):
    """``build_ext`` that adds the OpenMP flags after checking the compiler supports them."""

    def build_extensions(self):
        flags = openmp_flags(self.compiler)
        if flags is None and os.environ.get("SKLEARN_LTR_REQUIRE_OPENMP"):
            # Release wheels (cibuildwheel) set this: a serial wheel must fail, not ship.
            raise RuntimeError(
                "SKLEARN_LTR_REQUIRE_OPENMP is set but this compiler has no usable OpenMP; "
                "see CONTRIBUTING.md (Releasing) for the flags each platform needs."
            )
        if flags is None:
            print("warning: no OpenMP for this compiler; the engine is built single-threaded")
        for ext in self.extensions:
            ext.extra_compile_args = ["-O3"] if self.compiler.compiler_type != "msvc" else []
            if flags is not None:
                ext.extra_compile_args += flags[0]
                ext.extra_link_args = flags[1]
        super().build_extensions()


#: Where the compiled engine's sources live: one subpackage, ``sklearn_ltr_metrics/_engine``.
ENGINE = "sklearn_ltr_metrics/_engine"

#: The compiled engine: grouping and ranking (``_ranking``), sums over the support (``_sums``).
#: Each ``.pyx`` includes its steps' ``.pxi`` files; every ``.pxi`` and the header are
#: dependencies, so editing one rebuilds both extensions.
extensions = [
    Extension(
        f"sklearn_ltr_metrics._engine.{name}",
        [f"{ENGINE}/{name}.pyx"],
        include_dirs=[np.get_include(), ENGINE],
        depends=sorted(glob.glob(f"{ENGINE}/*.pxi") + glob.glob(f"{ENGINE}/*.h")),
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    )
    for name in ("_ranking", "_sums")
]

modules = cythonize(extensions, compiler_directives={"language_level": 3})
for module in modules:
    # Cython lists numpy's headers (absolute paths) as dependencies too: not ours to ship, and
    # the sdist warns for each ("the path must be relative"). Rebuilds follow our own sources.
    module.depends = [path for path in module.depends if not os.path.isabs(path)]

setup(ext_modules=modules, cmdclass={"build_ext": BuildExt})
