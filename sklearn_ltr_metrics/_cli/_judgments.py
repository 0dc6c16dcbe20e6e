"""``--qrels-format``: trec_eval's ``-R`` for ``ltr-eval evaluate`` and ``compare``.

``qrels`` (the default) is an ordinary qrels file; ``qrels_jg`` a qrels file whose second
column names a judgment group (for ``--metrics qrels_jg``: map_avgjg, P_avgjg,
Rprec_mult_avgjg); ``prefs`` preference judgments ``qid jg jsg doc_id level`` and
``qrels_prefs`` a qrels file read as preferences (for ``--metrics all_prefs``); ``subtopics``
TREC diversity qrels ``qid subtopic doc_id label`` (for ndeval's measures, ``alpha_nDCG@20``). With
``--format trec`` the output is trec_eval's ``-q`` layout, as ``trec_eval -q -R <format>``
prints it.
"""

from __future__ import annotations

__all__ = ["QRELS_FORMATS", "add_qrels_format", "qrels_format"]

#: The accepted values of ``--qrels-format`` (trec_eval's ``-R``).
QRELS_FORMATS = ("qrels", "qrels_jg", "qrels_prefs", "prefs", "subtopics")


def add_qrels_format(group):
    """Add ``--qrels-format`` to an argument group."""
    group.add_argument(
        "--qrels-format",
        choices=QRELS_FORMATS,
        default="qrels",
        help="format of --qrels, as trec_eval's -R: qrels ('qid iter doc_id label'), "
        "qrels_jg (the second column a judgment group; --metrics qrels_jg), prefs "
        "('qid jg jsg doc_id level' preferences) or qrels_prefs (qrels read as "
        "preferences; --metrics all_prefs) or subtopics (TREC diversity qrels 'qid subtopic "
        "doc_id label', ndeval's; --metrics alpha_nDCG@20 ...) (default: qrels)",
    )


def qrels_format(args):
    """The ``--qrels-format`` of parsed arguments (``qrels`` for commands without it)."""
    return getattr(args, "qrels_format", None) or "qrels"
