"""README's command-line section lists every command ``ltr-eval --help`` lists."""

import argparse
import re
from pathlib import Path

from sklearn_ltr_metrics._cli._commands import COMMANDS, build_parser

README = Path(__file__).resolve().parents[2] / "README.md"


def _section():
    text = README.read_text(encoding="utf-8")
    start = text.index("## The command line")
    end = text.index("\n## ", start + 1) if "\n## " in text[start + 1 :] else len(text)
    return text[start:end]


def _subparsers():
    parser = build_parser(COMMANDS)
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return action.choices


def test_every_command_has_an_example():
    section = _section()
    commands = _subparsers()
    assert len(commands) >= 6
    for name in commands:
        assert re.search(rf"^ltr-eval {name}\b", section, flags=re.M), name
    words = {6: "six", 7: "seven", 8: "eight"}
    assert f"has {words.get(len(commands), len(commands))} commands" in section


def test_compare_options_of_the_issue_are_shown():
    section = _section()
    compare = _subparsers()["compare"]
    options = {s for a in compare._actions for s in a.option_strings}
    for option in ("--fail-if-worse", "--matrix-test", "--stages", "--reranks"):
        assert option in options and option in section, option
