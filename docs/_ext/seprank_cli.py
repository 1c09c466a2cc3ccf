"""``{seprank-cli}``: the command-line reference, one section per sub-command, generated
from seprank's argparse parser when the site is built (so it cannot drift from the code).

Each sub-command gets a section with the anchor ``seprank-NAME`` (``#seprank-measure``),
its description, its usage line and its options as a definition list (option strings,
metavar, help, default). The options' help is argparse's own text; nothing is retyped.
"""

from __future__ import annotations

import argparse
import re

from docutils import nodes
from sphinx.util.docutils import SphinxDirective


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices.items())


def _summaries(parser: argparse.ArgumentParser) -> dict[str, str]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {c.dest: c.help or "" for c in sub._choices_actions}


def _help_text(action: argparse.Action, parser: argparse.ArgumentParser) -> str:
    """argparse's help for ``action``, with its %(default)s-style fields filled in."""
    if not action.help or action.help == argparse.SUPPRESS:
        return ""
    formatter = parser._get_formatter()
    return formatter._expand_help(action)


#: An option name inside a help text (shown as code, so no typography touches its dashes).
OPTION = re.compile(r"(?<![\w-])(--[A-Za-z][\w-]*)")


def _paragraph(text: str) -> nodes.paragraph:
    """``text`` as a paragraph, each option name in it a literal (--depth stays --depth)."""
    para = nodes.paragraph()
    for i, piece in enumerate(OPTION.split(text)):
        if piece:
            para += nodes.literal(piece, piece) if i % 2 else nodes.Text(piece)
    return para


def _option_item(action: argparse.Action, parser: argparse.ArgumentParser):
    item = nodes.definition_list_item()
    term = nodes.term()
    if action.option_strings:
        names = ", ".join(action.option_strings)
        if action.nargs != 0:
            fmt = parser._get_formatter()
            names += " " + fmt._format_args(action, fmt._get_default_metavar_for_optional(action))
    else:
        names = action.metavar or action.dest
    term += nodes.literal(names, names)
    item += term
    definition = nodes.definition()
    text = _help_text(action, parser)
    para = _paragraph(text)
    if action.choices and not isinstance(action, argparse._SubParsersAction):
        choices = ", ".join(str(c) for c in action.choices)
        para += nodes.Text(f" Choices: {choices}.")
    default = action.default
    if (action.option_strings and action.nargs != 0 and default not in (None, argparse.SUPPRESS)
            and "default" not in text):
        para += nodes.Text(" Default: ")
        para += nodes.literal(str(default), str(default))
        para += nodes.Text(".")
    definition += para
    item += definition
    return item


def _options(parser: argparse.ArgumentParser, positional: bool) -> nodes.definition_list:
    dl = nodes.definition_list(classes=["seprank-cli-options"])
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction) or action.help == argparse.SUPPRESS:
            continue
        if bool(action.option_strings) == positional:
            continue
        dl += _option_item(action, parser)
    return dl


class SeprankCli(SphinxDirective):
    """Emit one section per sub-command of ``seprank`` (no arguments, no content)."""

    has_content = False

    def run(self):
        from seprank.cli import _build_parser

        parser = _build_parser()
        summaries = _summaries(parser)
        out = []
        # a table of the sub-commands first, each linking to its section
        table = nodes.bullet_list()
        for name in _subcommands(parser):
            ref = nodes.reference("", "", internal=True, refid=f"seprank-{name}")
            ref += nodes.literal(f"seprank {name}", f"seprank {name}")
            para = nodes.paragraph()
            para += ref
            para += nodes.Text(f": {summaries.get(name, '')}")
            table += nodes.list_item("", para)
        out.append(table)
        for name, sub in _subcommands(parser).items():
            section = nodes.section(ids=[f"seprank-{name}"], names=[f"seprank {name}"])
            title = f"seprank {name}"
            section += nodes.title(title, "", nodes.literal(title, title))
            description = sub.description or summaries.get(name, "")
            if description:
                section += _paragraph(description)
            usage = sub.format_usage().strip()
            section += nodes.literal_block(usage, usage, language="text")
            positional = _options(sub, positional=True)
            if len(positional):
                section += nodes.rubric("Arguments", "Arguments")
                section += positional
            optional = _options(sub, positional=False)
            if len(optional):
                section += nodes.rubric("Options", "Options")
                section += optional
            self.state.document.note_implicit_target(section, section)
            out.append(section)
        return out


def setup(app):
    app.add_directive("seprank-cli", SeprankCli)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
