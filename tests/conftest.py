"""Shared fixtures: the third-party datasets in ../shared/datasets (never copied here)."""

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared" / "datasets"


@pytest.fixture(scope="session")
def datasets_dir():
    """The shared datasets folder; tests using it skip when it is absent."""
    if not SHARED.is_dir():
        pytest.skip(
            f"the third-party datasets are absent: ../shared/datasets (here {SHARED}) is laid "
            "beside the checkout by the project's shared folder (shared/datasets, see its "
            "README.md); tests on real data need it"
        )
    return SHARED
