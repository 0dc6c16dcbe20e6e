"""Writing a report directory: all or nothing, never deleting what the report did not write.

The files go into a hidden temporary folder beside the target, named
``.ltr_report.<pid>.<hex>.tmp`` (short, whatever the target's length), which is renamed onto
the target at the end. An old report being replaced is first renamed to
``.ltr_report.<pid>.<hex>.old`` and then deleted. On any error the temporary folder is
removed; a folder left by a killed process (its pid no longer runs) is found and removed by the
next write into the same parent folder, or reported by a ``RuntimeWarning`` when it holds
anything a report does not write.

Missing parent folders of the target are created (and removed again if the write fails).
``force=True`` replaces only an empty folder or a report folder holding nothing but the files
a report writes (:data:`REPORT_FILES`, ``plots/<name>.png``); a folder with any other file is
never deleted, and a folder that cannot be written to (read-only) is refused before anything
is written.

CSV cells are made safe for spreadsheet viewers: a text cell (system name, query id, metric
spec) that begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is written with a
leading apostrophe (``'=cmd``), so Excel, LibreOffice and Google Sheets show it as text instead
of running it as a formula. Numbers are never changed.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import secrets
import shutil
import stat
import sys
import warnings
from pathlib import Path

import pandas as pd

from ..io._base import atomic_write_path

__all__ = [
    "GENERATOR",
    "PLOT_NAMES",
    "REPORT_FILES",
    "check_report_target",
    "spreadsheet_safe",
    "write_report",
]

#: Files of a report directory: role -> name.
REPORT_FILES = {
    "per_query": "per_query.csv",
    "per_cutoff": "per_cutoff.csv",
    "markdown": "summary.md",
    "json": "summary.json",
    "html": "report.html",
    "plots": "plots",
}
#: Plots of a report, by file stem.
PLOT_NAMES = (
    "recall_at_k",
    "precision_at_k",
    "precision_recall",
    "difficulty",
    "heatmap",
    "significance_matrix",
)
#: Marker in summary.json that lets ``write(force=True)`` recognise a report it may replace.
GENERATOR = "sklearn_ltr_metrics"

_PREFIX = ".ltr_report."
_WORK = re.compile(r"^\.ltr_report\.(\d+)\.[0-9a-f]+\.(tmp|old)$")
#: Hidden partial files of ``atomic_write_path`` inside a folder being written.
_PARTIAL = re.compile(r"^\..+\.[0-9a-f]{8}\.tmp(\.\w+)?$")
_UNSAFE_START = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(frame):
    """A copy of ``frame`` whose text cells cannot run as spreadsheet formulas (see above)."""
    out = frame.copy()
    for column in out.columns:
        values = out[column]
        if pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
            continue
        out[column] = values.map(
            lambda v: "'" + v if isinstance(v, str) and v.startswith(_UNSAFE_START) else v
        )
    return out


def _allowed(relative):
    """Whether a path inside a report folder is one a report writes."""
    parts = relative.parts
    if len(parts) == 1:
        return parts[0] in REPORT_FILES.values()
    return (
        len(parts) == 2
        and parts[0] == REPORT_FILES["plots"]
        and parts[1] in {f"{n}.png" for n in PLOT_NAMES}
    )


def _foreign_entries(folder, *, partial=False):
    """Entries of ``folder`` a report does not write (``partial``: allow half-written files)."""
    out = []
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if path.is_symlink() or not (_allowed(relative) or (partial and _PARTIAL.match(path.name))):
            out.append(str(relative))
    return out


def _is_report(directory):
    try:
        with open(directory / REPORT_FILES["json"], encoding="utf-8") as handle:
            return str(json.load(handle).get("generator", "")).startswith(GENERATOR)
    except (OSError, ValueError, AttributeError):
        return False


def _first_existing(path):
    """``path`` or its nearest ancestor that exists."""
    path = path.absolute()
    while not os.path.lexists(path) and path.parent != path:
        path = path.parent
    return path


def _check_new_target(target):
    """Refuse a new ``target`` whose missing parent folders could not be created."""
    existing = _first_existing(target.parent)
    if not existing.is_dir():
        raise FileExistsError(
            f"Cannot write the report to {str(target)!r}: {str(existing)!r} is a file, not a "
            "folder. Choose another path."
        )
    if not os.access(existing, os.W_OK | os.X_OK):
        raise PermissionError(
            f"Cannot write the report to {str(target)!r}: the folder {str(existing)!r} is "
            "read-only. Choose another path."
        )


def _replace_refusal(target):
    """Why an existing ``target`` may not be replaced even with ``force`` (None: it may be)."""
    if target.is_symlink() or not target.is_dir():
        return FileExistsError(
            f"{str(target)!r} exists and is not a report directory; refusing to replace it "
            "even with force. Choose another path."
        )
    if not any(target.iterdir()):
        return None
    if not _is_report(target):
        return FileExistsError(
            f"{str(target)!r} is a non-empty directory that is not a report written by "
            f"{GENERATOR} (no {REPORT_FILES['json']} naming it); refusing to delete it even "
            "with force. Choose another path."
        )
    foreign = _foreign_entries(target)
    if foreign:
        shown = ", ".join(repr(f) for f in foreign[:5]) + (" ..." if len(foreign) > 5 else "")
        return FileExistsError(
            f"{str(target)!r} is a report folder that also holds files the report did not "
            f"write ({shown}); refusing to delete them even with force. Move them out, or "
            "choose another directory."
        )
    for folder in (target, target / REPORT_FILES["plots"]):
        if folder.is_dir() and not os.access(folder, os.W_OK | os.X_OK):
            return PermissionError(
                f"{str(folder)!r} is read-only, so the old report cannot be deleted; refusing "
                f"to replace it. Make it writable (chmod -R u+w {str(target)!r}) or choose "
                "another directory."
            )
    return None


def check_report_target(target, force):
    """Raise unless ``target`` may be written (new, or replaceable with ``force``).

    A new ``target`` may be nested in folders that do not exist yet (they are created). An
    existing one that even ``force`` may not replace is refused with the reason, whatever
    ``force`` is, so the message never suggests ``force`` where it would not help.
    """
    target = Path(os.fspath(target))
    if not os.path.lexists(target):
        _check_new_target(target)
        return
    refusal = _replace_refusal(target)
    if refusal is not None:
        raise refusal
    if not force:
        raise FileExistsError(
            f"{str(target)!r} already exists; pass force=True (--force on the command line) "
            "to replace it, or choose another directory."
        )


def _make_writable_and_retry(function, path, _exc):
    parent = os.path.dirname(path)
    with contextlib.suppress(OSError):
        os.chmod(parent, os.stat(parent).st_mode | stat.S_IWUSR | stat.S_IXUSR)
    function(path)


def _remove_tree(path):
    """Delete a folder this module made; True when it is gone."""
    handler = (
        {"onexc": _make_writable_and_retry}
        if sys.version_info >= (3, 12)
        else {"onerror": _make_writable_and_retry}
    )
    with contextlib.suppress(OSError):
        shutil.rmtree(path, **handler)
    return not os.path.lexists(path)


def _pid_alive(pid):
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def _clean_stale(parent):
    """Remove work folders of killed writes in ``parent``; warn about those that hold more."""
    try:
        entries = list(parent.iterdir())
    except OSError:
        return
    for path in entries:
        match = _WORK.match(path.name)
        if not match or _pid_alive(int(match.group(1))):
            continue
        if path.is_symlink() or not path.is_dir() or _foreign_entries(path, partial=True):
            warnings.warn(
                f"{str(path)!r} looks like the work folder of an interrupted report write but "
                "holds files a report does not write; it was left alone: delete it by hand.",
                RuntimeWarning,
                stacklevel=4,
            )
            continue
        if not _remove_tree(path):
            warnings.warn(
                f"Could not delete {str(path)!r}, left by an interrupted report write; delete "
                "it by hand.",
                RuntimeWarning,
                stacklevel=4,
            )


#: Tries to put a report in place while other writers keep taking the target.
_PLACE_TRIES = 8
#: ``os.replace`` of a folder onto one that is not empty / not a folder.
_TAKEN = (errno.ENOTEMPTY, errno.EEXIST, errno.ENOTDIR, errno.EISDIR)


class ReportWriteConflict(FileExistsError):
    """Other writers kept replacing the target while this one put its report in place."""


def write_report(target, write_files, *, force=False):
    """Run ``write_files(folder)`` into a temporary folder, then rename it onto ``target``."""
    target = Path(os.fspath(target))
    check_report_target(target, force)
    parent = target.absolute().parent
    created = _make_parents(parent)
    _clean_stale(parent)
    token = f"{_PREFIX}{os.getpid()}.{secrets.token_hex(4)}"
    tmp = parent / f"{token}.tmp"
    try:
        os.mkdir(tmp)
        write_files(tmp)
        _put_in_place(tmp, target, parent / f"{token}.old", force)
    except BaseException:
        _remove_tree(tmp)
        for folder in reversed(created):  # the missing parents this write made, if still empty
            with contextlib.suppress(OSError):
                os.rmdir(folder)
        raise
    return target


def _put_in_place(tmp, target, trash, force):
    """Rename ``tmp`` onto ``target``, the old report (if any) first moved to ``trash`` and
    deleted. Another writer may take the target between any two renames: a rename that finds
    the target gone or taken tries again (the old report it moved away deleted, as it would
    have been), so each writer ends with its report in place (the last one wins) or with an
    error naming the target (``force=False`` and a report appeared; or it kept being taken)
    and leaves no hidden folder behind."""
    for _ in range(_PLACE_TRIES):
        if os.path.lexists(target):
            check_report_target(target, force)  # appeared or changed meanwhile
            try:
                os.replace(target, trash)
            except FileNotFoundError:
                continue  # another writer moved it away first
        try:
            os.replace(tmp, target)
        except OSError as exc:
            if exc.errno not in _TAKEN:
                _restore(trash, target)
                raise
            _discard(trash)  # another writer's report took the place: the old one is gone
            continue
        _discard(trash)
        return
    raise ReportWriteConflict(
        f"Could not write the report to {str(target)!r}: other writers kept replacing it at "
        "the same time; write each report to its own directory, or run again."
    )


def _restore(trash, target):
    """Put the old report back after a failed rename, or delete it when the place is taken."""
    if os.path.lexists(trash):
        try:
            os.replace(trash, target)
        except OSError:
            _discard(trash)


def _discard(trash):
    if os.path.lexists(trash) and not _remove_tree(trash):
        warnings.warn(
            f"The old report was replaced but its copy {str(trash)!r} could not be "
            "deleted; delete it by hand.",
            RuntimeWarning,
            stacklevel=4,
        )


def _make_parents(parent):
    """Create ``parent`` and its missing ancestors; the folders made, outermost first."""
    missing = []
    while not os.path.lexists(parent):
        missing.append(parent)
        parent = parent.parent
    for folder in reversed(missing):
        os.mkdir(folder)
    return missing[::-1]


def write_text(folder, name, text):
    with atomic_write_path(folder / name) as tmp:
        tmp.write_text(text, encoding="utf-8", newline="\n")


def write_csv(folder, name, frame):
    with atomic_write_path(folder / name) as tmp:
        spreadsheet_safe(frame).to_csv(tmp, index=False, lineterminator="\n")


def write_bytes(folder, name, data):
    with atomic_write_path(folder / name) as tmp:
        tmp.write_bytes(data)
