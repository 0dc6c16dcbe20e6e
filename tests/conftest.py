"""Shared fixtures: the third-party datasets in ../shared/datasets (never copied here).

The folder lies beside the checkout (``<checkout>/../shared/datasets``), or wherever the
environment variable ``SKLEARN_LTR_DATASETS`` points; CONTRIBUTING.md ("Test data") says what
each of its six folders holds, where it comes from and under which licence.
"""

import os
from pathlib import Path

import pytest

SHARED = Path(
    os.environ.get("SKLEARN_LTR_DATASETS")
    or Path(__file__).resolve().parents[2] / "shared" / "datasets"
)


def missing_data(what):
    """The one-line skip reason of a test on real data: what is missing and how to get it."""
    return (
        f"real data absent: {what} not found in {SHARED} (lay the shared datasets beside the "
        "checkout as ../shared/datasets, or set SKLEARN_LTR_DATASETS; CONTRIBUTING.md, "
        "'Test data', says where each folder comes from)"
    )


@pytest.fixture(scope="session")
def datasets_dir():
    """The shared datasets folder; tests using it skip when it is absent."""
    if not SHARED.is_dir():
        pytest.skip(missing_data("the datasets folder"))
    return SHARED
