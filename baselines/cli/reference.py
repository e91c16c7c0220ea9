"""The command-line reference, rendered from the argument parsers themselves.

Why generated: a hand-kept list of options went stale by 34 options in six
verbs (issue 43), because nothing failed when a verb grew one. This renders
every verb, argument, default and help text from `build_parser()`;
`baselines.cli.doc_blocks` writes it into docs/cli.md and
`tests/test_docs_generated.py` fails when that block differs from it.
"""
from __future__ import annotations

import argparse

from . import build_parser


def verb_parsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """Each verb's sub-parser, in the order `costmatch --help` lists them."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _cell(text: str) -> str:
    """Text safe inside a markdown table cell: one line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _name(action: argparse.Action) -> str:
    if not action.option_strings:  # a positional
        name = action.metavar or action.dest
        if action.nargs in ("+",):
            name += " ..."
        elif action.nargs in ("?", "*"):
            name = f"[{name}{' ...' if action.nargs == '*' else ''}]"
        return name
    flags = ", ".join(action.option_strings)
    if action.nargs == 0:
        return flags
    if action.choices is not None and action.metavar is None:
        value = "|".join(str(c) for c in action.choices)
    else:
        value = action.metavar or action.dest.upper()
    return f"{flags} {value}"


def _default(action: argparse.Action) -> str:
    if action.required:
        return "required"
    if isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction)):
        return "off" if action.default is False else "on"
    if action.default is None or action.default is argparse.SUPPRESS:
        return ""
    if isinstance(action.default, str):
        return f"`{action.default}`"
    return f"`{action.default!r}`"


def _help(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    if not action.help:
        return ""
    return parser._get_formatter()._expand_help(action)  # argparse's own %(default)s / %% expansion


def _usage(parser: argparse.ArgumentParser) -> str:
    """The usage line on one line, whatever the terminal's width."""
    formatter = argparse.HelpFormatter(parser.prog, width=10_000)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups, prefix="")
    return " ".join(formatter.format_help().split())


def _options_table(parser: argparse.ArgumentParser) -> list[str]:
    rows = ["| argument | default | meaning |", "|---|---|---|"]
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue  # -h is on every verb; the verbs have their own sections
        rows.append(f"| `{_cell(_name(action))}` | {_cell(_default(action))} | {_cell(_help(parser, action))} |")
    return rows


def render(parser: argparse.ArgumentParser | None = None) -> str:
    """The reference for every verb: usage, then one row per argument (name, default, help)."""
    parser = parser or build_parser()
    lines = ["### costmatch", "", f"`{_usage(parser)}`", "", *_options_table(parser)]
    for verb, sub in verb_parsers(parser).items():
        lines += ["", f"### costmatch {verb}", "", _cell(sub.description or ""), "",
                  f"`{_usage(sub)}`", "", *_options_table(sub)]
    return "\n".join(lines) + "\n"
