"""Two writers racing on one report target: every order of their renames ends with a complete
report in place or with the package's error naming the target, and no hidden folder left.

The renames are forced into each order: ``os.replace`` of the writing module is wrapped so
that each writer's rename waits for its turn in the schedule (the checks between renames run
when they would, the real race)."""

import itertools
import json
import os
import threading

import pytest

from sklearn_ltr_metrics.report import _write

pytestmark = pytest.mark.filterwarnings("error")


def _files(name):
    def write_files(folder):
        summary = {"generator": _write.GENERATOR, "writer": name}
        (folder / "summary.json").write_text(json.dumps(summary))
        (folder / "summary.md").write_text(f"# {name}\n")

    return write_files


class _Scheduler:
    """Lets each writer's ``os.replace`` run in the order of ``schedule`` ("ABAB"); once a
    writer is done or the schedule is used up, renames run freely."""

    def __init__(self, schedule, real):
        self.schedule, self.turn, self.real = list(schedule), 0, real
        self.done, self.cond = set(), threading.Condition()

    def replace(self, src, dst):
        me = threading.current_thread().name
        with self.cond:
            self.cond.wait_for(lambda: self._mine(me), timeout=5)
        try:
            return self.real(src, dst)
        finally:
            with self.cond:
                if self.turn < len(self.schedule) and self.schedule[self.turn] == me:
                    self.turn += 1
                self.cond.notify_all()

    def _mine(self, me):
        while self.turn < len(self.schedule) and self.schedule[self.turn] in self.done:
            self.turn += 1
        return self.turn >= len(self.schedule) or self.schedule[self.turn] == me

    def finished(self, name):
        with self.cond:
            self.done.add(name)
            self.cond.notify_all()


def _race(tmp_path, monkeypatch, schedule, *, existing, force=True):
    target = tmp_path / "report"
    if existing:
        _write.write_report(target, _files("old"))
    scheduler = _Scheduler(schedule, os.replace)
    monkeypatch.setattr(_write.os, "replace", scheduler.replace)
    outcome = {}

    def writer(name):
        try:
            _write.write_report(target, _files(name), force=force)
            outcome[name] = "written"
        except OSError as exc:
            outcome[name] = exc
        finally:
            scheduler.finished(name)

    threads = [threading.Thread(target=writer, args=(n,), name=n) for n in "AB"]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    monkeypatch.undo()
    return target, outcome


#: Every order of two renames per writer (the second try of a writer runs freely).
ORDERS = sorted({"".join(p) for p in itertools.permutations("AABB")})


@pytest.mark.parametrize("existing", [True, False])
@pytest.mark.parametrize("order", ORDERS)
def test_every_order_ends_complete_or_with_an_error_naming_the_target(
    tmp_path, monkeypatch, order, existing
):
    target, outcome = _race(tmp_path, monkeypatch, order, existing=existing)
    assert set(outcome) == {"A", "B"}
    written = [name for name, result in outcome.items() if result == "written"]
    for name, result in outcome.items():
        if result != "written":
            assert str(target) in str(result), (name, result)
    assert written  # at least one complete report
    summary = json.loads((target / "summary.json").read_text())
    assert summary["writer"] in written  # a complete report of a writer that succeeded
    assert (target / "summary.md").read_text() == f"# {summary['writer']}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]  # nothing hidden left


@pytest.mark.parametrize("order", ["ABAB", "AABB", "BABA"])
def test_without_force_the_loser_is_refused_by_name(tmp_path, monkeypatch, order):
    target, outcome = _race(tmp_path, monkeypatch, order, existing=False, force=False)
    results = sorted(outcome.values(), key=str)
    assert "written" in results
    refused = [r for r in results if r != "written"]
    for error in refused:
        assert isinstance(error, FileExistsError) and str(target) in str(error)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]


def test_a_writer_between_the_two_renames_of_another(tmp_path, monkeypatch):
    """The issue's case, forced without threads: B writes its whole report right after A has
    moved the old one away; A used to fail with a bare 'Directory not empty' and leave its
    hidden '.old' folder."""
    target = tmp_path / "report"
    _write.write_report(target, _files("old"))
    real = os.replace
    calls = []

    def replace(src, dst):
        real(src, dst)
        calls.append(dst)
        if len(calls) == 1:  # A's first rename: the old report moved away
            monkeypatch.setattr(_write.os, "replace", real)
            _write.write_report(target, _files("B"), force=True)
            monkeypatch.setattr(_write.os, "replace", replace)

    monkeypatch.setattr(_write.os, "replace", replace)
    _write.write_report(target, _files("A"), force=True)
    monkeypatch.undo()
    assert json.loads((target / "summary.json").read_text())["writer"] == "A"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]
