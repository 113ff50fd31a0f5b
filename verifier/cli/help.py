"""Help that fits 80 columns: the command classes every command of the CLI is built with."""

from __future__ import annotations

import inspect
import re
from typing import Any

import typer
from rich.console import Console
from typer.core import TyperCommand, TyperGroup

HELP_OPTIONS = {"help_option_names": ["-h", "--help"]}
"""``-h`` is ``--help`` in every command (the subcommands inherit it from their group)."""


def _metavar(param: Any) -> str | None:
    """A short name for an option's value in the help: nothing for a flag (not ``<bool>``),
    the choices when short, else N, NUM, PATH or TEXT (``None``: an argument, as Typer
    shows it)."""
    if param.param_type_name != "option" or param.metavar is not None:
        return param.metavar  # type: ignore[no-any-return]
    if param.is_flag:
        return ""
    desc = param.type_descriptor
    if desc.is_choice:
        choices = "|".join(str(getattr(c, "value", c)) for c in desc.choices or ())
        return choices if len(choices) <= 16 else "NAME"
    if desc.is_path:
        return "PATH"
    kind = desc.annotation
    return {int: "N", float: "NUM"}.get(kind, "TEXT")


_SENTENCE_END = re.compile(r"[.!?:]\)?$")


def _reflow(text: str) -> str:
    """A docstring as the help shows it: a paragraph's lines joined where a sentence runs on
    (Typer keeps a docstring's own line breaks, which left sentences broken mid-line at 80
    columns), a break kept after a sentence that ends a line (``Exit code: ...`` on its own)."""
    paragraphs = []
    for para in inspect.cleandoc(text).split("\n\n"):
        if para.startswith("\b"):  # click's mark for a paragraph printed as it is
            paragraphs.append(para)
            continue
        lines: list[str] = []
        for line in para.splitlines():
            line = line.strip()
            if lines and not (_SENTENCE_END.search(lines[-1]) and not line[:1].islower()):
                lines[-1] = f"{lines[-1]} {line}"
            else:
                lines.append(line)
        paragraphs.append("\n".join(lines))
    return "\n\n".join(paragraphs)


def _usage_name(param: Any) -> str:
    """An argument in the usage line: GAME, PATHS..., [NAME] (not Typer's ``{game}``)."""
    name = str(param.metavar or param.name).upper()
    name = name if param.required else f"[{name}]"
    return name + ("..." if param.nargs != 1 else "")


class _Fits80:
    """Help that fits 80 columns: short metavars (``_metavar``), the help option without one,
    the docstring's sentences reflowed (``_reflow``), arguments named in capitals and without
    Typer's ``<list[Path]>`` (a choice keeps its values)."""

    params: list[Any]
    help: str | None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.help:
            self.help = _reflow(self.help)
        for param in self.params:
            param.metavar = _metavar(param)
            if param.param_type_name == "argument" and not param.type_descriptor.is_choice:
                param.display_type_rich = lambda ctx: None

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        """Click's usage errors in our words: no hidden option suggested for a misspelt one
        (``--ouput``: ``--output``, never the old ``--out``), no pydantic ``Value error, ``
        before a bad value's message."""
        from typer._click.exceptions import BadParameter, NoSuchOption

        try:
            return super().parse_args(ctx, args)  # type: ignore[misc,no-any-return]
        except NoSuchOption as e:
            hidden = {n for p in self.params if getattr(p, "hidden", False) for n in p.opts}
            e.possibilities = [n for n in e.possibilities or () if n not in hidden]
            raise
        except BadParameter as e:
            e.message = e.message.removeprefix("Value error, ")
            raise

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces: list[str] = super().collect_usage_pieces(ctx)  # type: ignore[misc]
        typer_names = {
            p.get_usage_pieces(ctx)[0]: _usage_name(p)
            for p in self.params
            if p.param_type_name == "argument"
        }
        return [typer_names.get(piece, piece) for piece in pieces]

    def get_help_option(self, ctx: Any) -> Any:
        option = super().get_help_option(ctx)  # type: ignore[misc]
        if option is not None:
            option.metavar = ""
        return option


class _Command(_Fits80, TyperCommand):
    """A command whose help fits 80 columns, with ``-h``."""


class _GenerateCommand(_Command):
    """``generate``: the GAME argument's help lists the built-in games their modules declare,
    a game's own option says what its declaration says, ``{tiered}`` and ``{resumable}`` in an
    option's help are the games with a tiered form (those with a dataset of their own, those
    whose generation resumes), and a last panel says what each game is and takes (all read
    when the help is shown, so no other command imports the game modules)."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        from verifier.games.registry import builtin_games, known, tiered_forms

        declared = {o.name: o.help for g in builtin_games() for o in g.options}
        forms = tiered_forms()
        tiered = ", ".join(g.shown for g, f in forms if f.rules is not None)
        resumable = ", ".join(f"{g.shown} {f.resume}" for g, f in forms if f.resume is not None)
        for param in self.params:
            if param.param_type_name == "argument":  # GAME, the one argument
                param.help = (
                    f"{known()}, or your own game class: FILE.py:Class or module:Class, or an "
                    "OpenSpiel game: openspiel:NAME (docs/games.md)."
                )
            elif param.help is None and param.name in declared:
                param.help = declared[param.name]
            elif param.help:
                param.help = param.help.replace("{tiered}", tiered)
                param.help = param.help.replace("{resumable}", resumable)
        super().format_help(ctx, formatter)
        from rich.panel import Panel
        from rich.table import Table
        from typer.rich_utils import MAX_WIDTH

        own = {p.name: p.opts[0] for p in self.params}
        table = Table.grid(padding=(0, 1))
        for game in builtin_games():
            flags = " ".join(own.get(o.name, f"--param {o.name}=...") for o in game.options)
            table.add_row(game.shown, game.summary + (f" [{flags}]" if flags else ""))
        Console(highlight=False, width=MAX_WIDTH).print(
            Panel(table, title="Built-in games", title_align="left", border_style="dim")
        )


class _GrundyCommand(_Command):
    """``grundy``: the GAME argument's help lists the families of the impartial catalog
    (``verifier.games.catalog.FAMILIES``, read when the help is shown)."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        from verifier.games.catalog import FAMILIES

        for param in self.params:
            if param.param_type_name == "argument":  # GAME, the one argument
                param.help = f"{FAMILIES}."
        super().format_help(ctx, formatter)


class _Group(_Fits80, TyperGroup):
    """A group whose help fits 80 columns (its options as ``_Command``'s)."""


def group(name: str, help: str) -> typer.Typer:
    """A group of commands (``verifier``, ``verifier study``): help that fits 80 columns, with
    ``-h``, shown when no command is given; no shell completion, errors in our words."""
    return typer.Typer(
        name=name,
        cls=_Group,
        context_settings=HELP_OPTIONS,
        help=help,
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )
