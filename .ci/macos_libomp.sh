#!/usr/bin/env bash
# cibuildwheel's before-all on macOS (pyproject.toml, [tool.cibuildwheel.macos]): install
# conda-forge's llvm-openmp, built for old macOS releases (Homebrew's libomp targets the
# runner's own release, which delocate then refuses for an older wheel tag), into $HOME/libomp.
# The same approach as scikit-learn's build_tools/wheels; GitHub's macOS runners have conda.
set -euxo pipefail
conda create --yes --prefix "$HOME/libomp" --channel conda-forge "llvm-openmp>=17,<19"
ls "$HOME/libomp/include/omp.h" "$HOME/libomp/lib/libomp.dylib"
