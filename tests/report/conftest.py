"""Fixtures of the report tests."""

import pytest

from sklearn_ltr_metrics.report import _result

_DRAW = _result.report_pngs
#: Each report's PNGs, drawn once in the session: id -> (report, kept alive; what was drawn).
_DRAWN = {}


def _report_pngs(report):
    if id(report) not in _DRAWN:
        _DRAWN[id(report)] = (report, _DRAW(report))
    return _DRAWN[id(report)][1]


@pytest.fixture
def pngs_once(monkeypatch):
    """Draw each report's figures once (real PNGs, by the package's own code), for the tests of
    what ``write`` does with files: they write the same report many times."""
    monkeypatch.setattr(_result, "report_pngs", _report_pngs)
