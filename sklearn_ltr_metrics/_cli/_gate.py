"""The ``--fail-if-worse METRIC[:MARGIN]`` option of ``ltr-eval compare`` (the parser imports
it; it borrows ``--metrics``' message for an unknown metric). A failed gate exits with 3."""

from __future__ import annotations

import argparse

__all__ = ["add_gate_option", "gate_spec"]


def gate_spec(text):
    """``METRIC[:MARGIN]`` -> (metric, margin); an argparse type (a bad value exits with 2)."""
    metric, sep, margin_text = str(text).rpartition(":")
    if not sep or "@" in margin_text:  # no margin (the colon, if any, is the metric's own)
        metric, margin_text = str(text), ""
    metric = metric.strip()
    if not metric:
        raise argparse.ArgumentTypeError(
            f"expected METRIC[:MARGIN] such as ndcg@10:0.01, got {text!r}"
        )
    margin = 0.0
    if margin_text.strip():
        try:
            margin = float(margin_text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"the margin of {text!r} must be a number >= 0 such as 0.01"
            ) from None
        if not margin >= 0 or margin == float("inf"):
            raise argparse.ArgumentTypeError(f"the margin of {text!r} must be a number >= 0")
    from ..metrics._registry import parse_metrics

    try:
        parse_metrics([metric])
    except (TypeError, ValueError) as exc:
        from ._flags import metric_error  # the --metrics message, in this option's name

        message = metric_error([metric], exc, option="--fail-if-worse")
        raise argparse.ArgumentTypeError(message.partition(": ")[2]) from None
    return metric, margin


def add_gate_option(parser):
    """Add ``--fail-if-worse METRIC[:MARGIN]`` to the ``compare`` parser."""
    parser.add_argument(
        "--fail-if-worse",
        type=gate_spec,
        metavar="METRIC[:MARGIN]",
        help="regression gate: exit 3 when the run is significantly worse than --baseline on "
        "METRIC (by more than MARGIN), overall or in a stratum of n_pos; 0 otherwise",
    )
