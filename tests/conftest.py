"""Shared fixtures: the third-party datasets in ../shared/datasets (never copied here)."""

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared" / "datasets"


@pytest.fixture(scope="session")
def datasets_dir():
    """The shared datasets folder; tests using it skip when it is absent."""
    if not SHARED.is_dir():
        pytest.skip(f"shared datasets not found at {SHARED} (they live beside the checkout)")
    return SHARED
