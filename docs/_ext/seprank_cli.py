"""``{seprank-cli}``: the command-line reference, one section per sub-command, generated
from seprank's argparse parser when the site is built (so it cannot drift from the code).

Each sub-command gets a section with the anchor ``seprank-NAME`` (``#seprank-measure``),
its description, its usage line, its options as a definition list (option strings,
metavar, help, default; each option its own anchor, ``#seprank-measure-depth``) and an
example: a command of :data:`EXAMPLES`, run when the site is built, with its output (so
the output cannot drift from the code either; a failing example fails the build). The
options' help is argparse's own text; nothing is retyped. An option with many choices is
shown as ``--only NAME [NAME ...]`` with its choices listed once after its help.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from docutils import nodes
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

LOGGER = logging.getLogger(__name__)
ROOT = Path(__file__).resolve().parents[2]
#: The usage lines' width (argparse breaks them between options, never inside one).
WIDTH = 86
#: An option with more choices than this shows NAME in its usage, and its choices once.
MANY = 5
#: The longest example output shown (the rest is counted, not shown).
MAX_LINES = 24
#: One example per sub-command, run in order in one scratch folder when the site is built
#: (later ones use what earlier ones wrote: the store, the certificate).
EXAMPLES = {
    "measure": "seprank measure --depth 2 --width 2 --seq-len 4",
    "bounds": "seprank bounds --depth 3 --width 4 --seq-len 8",
    "guide": "seprank guide --params 175e9",
    "verify": "seprank verify --quick --out vq",
    "figures": "seprank figures --only fig2_regimes --out figs",
    "transition": "seprank transition --plot-only --out tr",
    "archs": "seprank archs",
    "certify": "seprank certify --depth 2 --width 2 --seq-len 4 --out certs",
    "check-certificate": "seprank check-certificate "
                         "certs/LinearSelfAttention_L2_d2_H1_N4_A0-1_seed0_p67108859.json",
    "sweep": "seprank sweep example --db runs.sqlite --executor serial",
    "blocks": "seprank blocks --depth 2 --width 2 --seq-len 4 --db blocks.sqlite",
    "results": "seprank results --db runs.sqlite --format markdown --where seed=0",
    "study": "seprank study --vary depth=1:2 --param width=2 --out st",
}


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


def _many_choices(action: argparse.Action) -> bool:
    return action.choices is not None and len(action.choices) > MANY


def _option_item(action: argparse.Action, parser: argparse.ArgumentParser, command: str):
    item = nodes.definition_list_item()
    long = max(action.option_strings or [action.dest], key=len).lstrip("-")
    term = nodes.term(ids=[nodes.make_id(f"seprank-{command}-{long}")])
    if action.option_strings:
        names = ", ".join(action.option_strings)
        if action.nargs != 0:
            fmt = parser._get_formatter()
            names += " " + fmt._format_args(action, fmt._get_default_metavar_for_optional(action))
    else:
        names = action.metavar or action.dest
    term += nodes.literal(names, names)
    anchor = nodes.reference("", "¶", internal=True, refid=term["ids"][0],
                             classes=["headerlink"], reftitle="Link to this option")
    term += anchor
    item += term
    definition = nodes.definition()
    text = _help_text(action, parser)
    para = _paragraph(text)
    stop = "" if not text or text.rstrip().endswith((".", ";", ":")) else "."
    if _many_choices(action) and not isinstance(action, argparse._SubParsersAction):
        para += nodes.Text(f"{stop} Choices: ")  # once here: the term shows NAME, not a list
        stop = ""
        for i, c in enumerate(action.choices):
            para += nodes.Text(", " if i else "")
            para += nodes.literal(str(c), str(c))
        para += nodes.Text(".")
    default = action.default
    if (action.option_strings and action.nargs != 0 and default not in (None, argparse.SUPPRESS)
            and "default" not in text):
        para += nodes.Text(f"{stop} Default: ")
        para += nodes.literal(str(default), str(default))
        para += nodes.Text(".")
    definition += para
    item += definition
    return item


def _options(parser: argparse.ArgumentParser, positional: bool,
             command: str) -> nodes.definition_list:
    dl = nodes.definition_list(classes=["seprank-cli-options"])
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction) or action.help == argparse.SUPPRESS:
            continue
        if bool(action.option_strings) == positional:
            continue
        dl += _option_item(action, parser, command)
    return dl


def _short_metavars(parser: argparse.ArgumentParser) -> None:
    """An option with many choices shows NAME (its choices are listed once, in its help)."""
    for action in parser._actions:
        if _many_choices(action) and action.option_strings:
            action.metavar = "NAME"


def _usage(parser: argparse.ArgumentParser) -> str:
    parser.formatter_class = lambda prog: argparse.HelpFormatter(prog, width=WIDTH)
    return parser.format_usage().strip()


def run_examples() -> dict[str, tuple[str, int]]:
    """Run :data:`EXAMPLES` in one scratch folder: command -> (output, exit code); an example
    of a sub-command this seprank does not have is left out."""
    from seprank.cli import _build_parser

    have = set(_subcommands(_build_parser()))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])}
    out = {}
    with tempfile.TemporaryDirectory(prefix="seprank-cli-examples-") as tmp:
        for name, command in EXAMPLES.items():
            if name not in have:
                continue
            argv = [sys.executable, "-m", "seprank", *command.split()[1:]]
            r = subprocess.run(argv, cwd=tmp, env=env, capture_output=True, text=True,
                               timeout=300)
            out[name] = (r.stdout.rstrip("\n"), r.returncode)
    return out


def _example(name: str, ran: dict) -> list:
    if name not in ran:
        return []
    text, code = ran[name]
    lines = text.splitlines()
    if len(lines) > MAX_LINES:
        lines = lines[:MAX_LINES] + [f"... ({len(lines) - MAX_LINES} more lines)"]
    shown = f"$ {EXAMPLES[name]}\n" + "\n".join(lines)
    if code:
        shown += f"\n(exit code {code})"
    return [nodes.rubric("Example", "Example"),
            nodes.literal_block(shown, shown, language="text", classes=["seprank-cli-example"])]


class SeprankCli(SphinxDirective):
    """Emit one section per sub-command of ``seprank`` (no arguments, no content)."""

    has_content = False

    def run(self):
        from seprank.cli import _build_parser

        parser = _build_parser()
        summaries = _summaries(parser)
        ran = _EXAMPLES.result() if _EXAMPLES is not None else run_examples()
        for name in set(_subcommands(parser)) - set(EXAMPLES):
            LOGGER.warning(f"seprank {name} has no example in docs/_ext/seprank_cli.py")
        for name, (_, code) in ran.items():
            if code not in (0, 1):  # 1: verify/check-certificate may say "false" by design
                LOGGER.warning(f"the example of seprank {name} exited {code}")
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
            _short_metavars(sub)
            usage = _usage(sub)
            section += nodes.literal_block(usage, usage, language="text",
                                           classes=["seprank-cli-usage"])
            positional = _options(sub, positional=True, command=name)
            if len(positional):
                section += nodes.rubric("Arguments", "Arguments")
                section += positional
            optional = _options(sub, positional=False, command=name)
            if len(optional):
                section += nodes.rubric("Options", "Options")
                section += optional
            section += _example(name, ran)
            self.state.document.note_implicit_target(section, section)
            out.append(section)
        return out


_EXAMPLES = None  # the examples' run, started when the build starts (a Future)


def start_examples(app) -> None:
    """builder-inited: run the examples in a thread while Sphinx reads the other pages (the
    build itself uses one core; the examples' subprocesses use the other)."""
    global _EXAMPLES
    if _EXAMPLES is None:
        _EXAMPLES = ThreadPoolExecutor(max_workers=1).submit(run_examples)


def setup(app):
    app.add_directive("seprank-cli", SeprankCli)
    app.connect("builder-inited", start_examples)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
