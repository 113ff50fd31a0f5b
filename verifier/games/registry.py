"""The built-in games, each declared once in its own module (docs/games.md, "Adding a built-in
game").

A game module of ``verifier.games`` declares its game with a module-level ``GAME =
BuiltinGame(...)`` (or several in ``GAMES = (...)``): the name ``verifier generate`` knows it
by, a one-line summary, its options, the fast generator and, where there is one, the game on the
protocol (:class:`~verifier.games.protocol.Game`) that gives the same graph. Nothing else
names the game: :func:`builtin_games` finds the declarations by importing every public module
of the package, and ``verifier generate``, its help, its errors, the research sweep's games
(``verifier.research.study.GAMES``), the corpus (``verifier.games.corpus.CORPUS``), the
summary's class sizes and the ``.npz`` name codecs read them from here.

>>> ladder = find("ladder")[0]
>>> ladder.summary, [o.name for o in ladder.options]
("Kars' ladder graph L_n (Ex. 7.4)", ['n'])
>>> find("subtraction:1,2")[1], find(".07")[0].shown
('1,2', 'octal:CODE')
"""

from __future__ import annotations

import importlib
import pkgutil
import shlex
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from types import MappingProxyType, ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from verifier.errors import UsageError
from verifier.model import Case

if TYPE_CHECKING:
    from verifier.games._board import LazyNames
    from verifier.io.case_json import Encoding

__all__ = [
    "SYMMETRY",
    "UPTO",
    "BuiltinGame",
    "Codec",
    "Example",
    "Facts",
    "Option",
    "TieredForm",
    "builtin_games",
    "checked",
    "declared",
    "find",
    "generate",
    "hook",
    "known",
    "needs",
    "tiered",
    "tiered_form",
    "tiered_forms",
    "units",
]

_BOOLS = {"1": True, "true": True, "yes": True, "0": False, "false": False, "no": False}
_KINDS = {
    bool: "yes or no",
    int: "an integer",
    float: "a number",
    tuple: "a comma-separated list of numbers",
}

PACKAGE = "verifier.games"
"""The package whose modules are searched for declarations."""


@dataclass(frozen=True)
class Option:
    """One keyword option of a built-in game: ``--name`` on the command line (``_`` as ``-``)."""

    name: str
    type: type
    """``int``, ``float``, ``bool``, ``str`` (or ``tuple`` for a list of numbers)."""
    help: str
    required: bool = False
    """The game cannot be generated without it: :func:`generate` says which command works."""
    meaning: str = ""
    """What the value is, in the message of a missing required option (``layers``)."""
    example: object = None
    """A value that works, in that message (``4``)."""

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    def value(self, given: object) -> Any:
        """A text given (``--param symmetry=yes``) as the option's type (True); any other
        value as it is. ``UsageError`` if the text is no value of the type."""
        if not isinstance(given, str) or self.type is str:
            return given
        text = given.strip()
        try:
            if self.type is bool:
                return _BOOLS[text.lower()]
            if self.type is tuple:
                return tuple(float(v) for v in text.split(","))
            return self.type(text)
        except (KeyError, ValueError):
            kind = _KINDS.get(self.type, self.type.__name__)
            raise UsageError(f"option {self.name}: {given!r} is not {kind}") from None


@dataclass(frozen=True)
class Example:
    """A small instance of a game: ``verifier generate NAME`` with these options."""

    label: str
    name: str
    options: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    study: bool = True
    """Also a case of the research sweep (``verifier study uniqueness --games``)."""
    corpus: Encoding | None = None
    """Also a file of the regression corpus, ``cases/game-LABEL.json`` in this encoding
    (:mod:`verifier.games.corpus`)."""


@dataclass(frozen=True)
class Codec:
    """How a game's ``.npz`` files store position names as codes (``name_codec`` in the header,
    :mod:`verifier.games.name_codecs`)."""

    form: str
    """The codec's names, e.g. ``connect4:WxH``: those starting ``connect4:`` are this one's."""
    names: Callable[[str, NDArray[Any]], LazyNames]
    """``names(name_codec, codes)``: the names (``ValueError`` for codes of no position)."""


@dataclass(frozen=True)
class Facts:
    """A block of a game's own in the summary of its solved cases (``summary[key]``: the
    longest win per side to move in chess), and how the table shows it."""

    key: str
    owns: Callable[[Case], bool]
    """Whether a case is this game's (the block is computed only for those)."""
    compute: Callable[[Case, NDArray[np.int8], NDArray[np.int64]], dict[str, Any]]
    """The block from the labels (+1 / -1 / 0 per node) and remoteness (-1 where none)."""
    lines: Callable[[dict[str, Any]], list[str]]
    """The block as lines of the table (``longest win, White to move: mate in 28 ...``)."""


@dataclass(frozen=True)
class TieredForm:
    """A built-in game as a tiered dataset (``verifier generate NAME -o DIR --engine dask``,
    docs/distributed.md): what reads and writes it on the Dask route.

    The hooks are named ``"module:attribute"`` and imported when used: the registry's search
    imports no Dask module and no kernel, and the game's module imports nothing of
    ``verifier.distributed`` (which imports the games)."""

    manifest: str
    """The game's name in a dataset's ``manifest.json`` (``$.game``)."""
    generate: str
    """The tiered generator, ``generate(game, to, options) -> str``: ``game`` as given on the
    command line, ``to`` a ``commands.Target``, ``options`` a ``commands.GameOptions``; the line
    saying what was written (``UsageError`` on bad input, before a cluster starts)."""
    rules: str | None = None
    """The class of the ``TierGame`` a manifest of this game is read with, called with the
    manifest's parameters (``None``: the generic stored graph's, ``GraphTiers``)."""
    resume: str | None = None
    """Where ``--resume`` continues a stopped generation, in ``generate``'s help (``after its
    last written tier``); ``None``: this game's generation cannot resume."""
    again: Callable[[Mapping[str, Any]], str | None] | None = None
    """The words after ``verifier generate`` that write the game as a case file, from a
    manifest's parameters (``connect4 --width 4 --height 4``); ``None`` if they cannot say."""
    source: tuple[str, str] | None = None
    """For an ``.npz`` case refused for its size: a pattern of its ``source`` (groups: the
    parameters, the last one the symmetry) and the words after ``verifier generate`` that write
    it in tiers, formatted with the groups (``chess:{0}``)."""
    solved: str | None = None
    """After a solve, a block of the game's own: ``solved(path, manifest, client)`` -> rows
    (``--format json``'s ``materials``) ..."""
    solved_lines: str | None = None
    """... and ``solved_lines(rows, symmetric)``, the rows as lines of the table."""
    witnesses: str | None = None
    """``witnesses(path, manifest, witnesses) -> (names, reasons)``: a check's witnesses named
    in the game's words (chess: by FEN), added to the report's."""
    classes: str = "positions up to symmetry"
    """What a class of a dataset stored up to symmetry is, in its reports (``positions up to
    the mirror``): they count ``classes (CLASSES)``."""
    holds: str | None = None
    """What the check of the dataset itself (``positions``, ``spans``) proves it holds, in the
    verdict (``the legal {kind} of its materials and their legal moves``; ``{kind}``:
    positions or classes); ``None``: the game has no such check."""
    positions: str | None = None
    """The check of a shard's positions, moves and dead ends recomputed from its codes:
    ``positions(root, game, tier, entry, expansion, refs, lo) -> (violations, first witness,
    span)``, run by the worker judging the shard (``dataset.judge``); ``span``: what ``spans``
    reads of the shard."""
    spans: str | None = None
    """``spans(game, tier, spans, lo) -> witness or None``: one task per tier, given the spans
    ``positions`` found: the tier's shards hold every position of the game's tier."""
    order: str | None = None
    """``order(root, manifest, perms) -> (tiers, codes)``: the dataset's tiers in the order of
    the game's case (``verifier generate``'s numbering; ``perms[k]`` sorts tier ``k``'s codes)
    and, in that order, the code that names each position (``names``); ``None``: the tiers in
    the dataset's order, each position named by its own code."""
    names: str | None = None
    """``names(game, codes, whole) -> LazyNames``: the positions of those codes named as the
    in-memory case names them (``whole``: every position of the dataset, in order, so the names
    carry the codec); ``None``: positions named by their ids (a stored graph's)."""


@dataclass(frozen=True)
class BuiltinGame:
    """A built-in game as ``verifier generate`` sees it (a module's ``GAME``).

    ``generate(**options)`` is the fast generator; a game with an ``argument`` is named
    ``name:ARGUMENT`` (``subtraction:1,2,3``) and its generator takes the text after the colon
    first: ``generate(text, **options)``. ``protocol`` takes the same arguments and gives the
    game on the protocol (its class, or a function choosing one).
    """

    name: str
    summary: str
    generate: Callable[..., Case]
    options: tuple[Option, ...] = ()
    protocol: Callable[..., Any] | None = None
    argument: str | None = None
    """The argument's placeholder in the lists (``S`` shows ``subtraction:S``)."""
    parse: Callable[[str], object] | None = None
    """Checks an argument (``ValueError``: the name is no game of this kind)."""
    aliases: tuple[str, ...] = ()
    bare: Callable[[str], bool] | None = None
    """Whether a name without ``name:`` is this game's argument (``.07`` is ``octal:.07``)."""
    examples: tuple[Example, ...] = ()
    class_sizes: Callable[[Case], NDArray[np.int64] | None] | None = None
    """For a case of this game reduced by symmetry (its id ends in ``-symmetric``): how many
    positions each node stands for (``verify``'s summary); ``None`` for another case."""
    codec: Codec | None = None
    facts: Facts | None = None
    """The game's own block in the summary of its cases, if it has one."""
    order: int = 1000
    """Place in the lists (help, errors, the sweep): smaller first, then by name."""
    tiers: TieredForm | None = None
    """The game as a tiered dataset on the Dask route, if it has one."""
    kernels: tuple[str, str] | None = None
    """Compiled kernels its generator runs: the module and their name in the notice that the
    first run compiles them (``verifier.kernel_cache.say_if_cold``)."""

    @property
    def shown(self) -> str:
        """The name as the lists show it: ``subtraction:S``."""
        return f"{self.name}:{self.argument}" if self.argument else self.name

    def build(self, argument: str | None, options: Mapping[str, Any]) -> Case:
        """The case by the fast generator (options already checked)."""
        return self.generate(*self._head(argument), **options)

    def build_protocol(self, argument: str | None, options: Mapping[str, Any]) -> Any:
        """The game on the protocol (``None`` for a game without one)."""
        if self.protocol is None:
            return None
        return self.protocol(*self._head(argument), **options)

    def _head(self, argument: str | None) -> tuple[str, ...]:
        return () if self.argument is None else (argument or "",)


def builtin_games() -> tuple[BuiltinGame, ...]:
    """Every declared built-in game, in list order."""
    return _discover(PACKAGE, tuple(getattr(sys.modules.get(PACKAGE), "__path__", ())))


@cache
def _discover(package: str, path: tuple[str, ...]) -> tuple[BuiltinGame, ...]:
    """The declarations of the public modules of ``package`` (``path``: where they are; a new
    path, a new search). A module needing an optional package that is missing is passed over."""
    if not path:
        path = tuple(importlib.import_module(package).__path__)
    found: dict[str, tuple[BuiltinGame, str]] = {}
    for short in sorted(info[1] for info in pkgutil.iter_modules(list(path))):
        if short.startswith("_"):
            continue
        name = f"{package}.{short}"
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name is None or e.name.split(".")[0] == "verifier":
                raise
            continue  # an optional extra (e.g. python-chess) is not installed
        for game in declared(module):
            for word in (game.name, *game.aliases):
                if word in found:
                    raise RuntimeError(
                        f"two built-in games named {word!r}: in {found[word][1]} and {name}"
                    )
                found[word] = (game, name)
    games = {id(g): g for g, _ in found.values()}.values()
    return tuple(sorted(games, key=lambda g: (g.order, g.name)))


def declared(module: ModuleType) -> tuple[BuiltinGame, ...]:
    """The games a module declares: its ``GAME`` and the items of its ``GAMES``."""
    one = getattr(module, "GAME", None)
    several = getattr(module, "GAMES", ())
    games = ([one] if one is not None else []) + list(several if isinstance(several, tuple) else ())
    return tuple(g for g in games if isinstance(g, BuiltinGame))


def tiered_forms() -> tuple[tuple[BuiltinGame, TieredForm], ...]:
    """The games with a tiered form, in list order."""
    return tuple((g, g.tiers) for g in builtin_games() if g.tiers is not None)


def tiered(name: str) -> tuple[BuiltinGame, TieredForm] | None:
    """The game with a tiered form that ``name`` names as ``generate --engine dask`` takes it:
    the exact name (``connect4``), or ``NAME:`` and its argument (``chess:KQK``, any case);
    ``None`` for no such game."""
    for game, form in tiered_forms():
        if name.lower().startswith(game.name + ":") if game.argument else name == game.name:
            return game, form
    return None


def tiered_form(manifest: str) -> TieredForm | None:
    """The tiered form of the built-in game a dataset's manifest names (``$.game``); ``None``
    for a dataset of no game's own (a stored graph's)."""
    return next((form for _, form in tiered_forms() if form.manifest == manifest), None)


def units(manifest: Any) -> str:
    """What a dataset counts: positions, or classes of positions up to symmetry (its game's
    ``TieredForm.classes``)."""
    if not manifest.parameters.get("symmetric"):
        return "positions"
    form = tiered_form(manifest.game)
    return f"classes ({form.classes if form is not None else TieredForm.classes})"


def hook(ref: str) -> Any:
    """What ``"module:attribute"`` names, its module imported now."""
    module, _, attribute = ref.partition(":")
    return getattr(importlib.import_module(module), attribute)


def known() -> str:
    """The games' names as the lists show them: ``tictactoe, ..., subtraction:S, ...``."""
    return ", ".join(g.shown for g in builtin_games())


def find(name: str) -> tuple[BuiltinGame, str | None]:
    """The game ``name`` names and its argument (``UsageError`` for no game)."""
    text = name.strip()
    family, colon, argument = text.partition(":")
    for game in builtin_games():
        arg: str | None
        if family.lower() in (game.name, *game.aliases):
            arg = argument if colon else None
        elif game.bare is not None and game.bare(text):
            arg = text
        else:
            continue
        if (game.argument is None) != (arg is None) or arg == "":
            break
        try:
            if arg is not None and game.parse is not None:
                game.parse(arg)
        except ValueError:
            break
        return game, arg
    raise UsageError(f"unknown game {name!r}; known: {known()}")


def needs(name: str, option: Option) -> UsageError:
    """The error of a missing required option: the command that works."""
    return UsageError(
        f"generator {name!r} needs {option.flag} ({option.meaning}), e.g. "
        f"verifier generate {shlex.quote(name)} {option.flag} {option.example} -o case.json"
    )


def checked(game: BuiltinGame, name: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """The options given (``None``: not given), checked against the game's declaration."""
    given = {k: v for k, v in options.items() if v is not None}
    extra = sorted(set(given) - {o.name for o in game.options})
    if extra:
        shown = ", ".join("--" + k.replace("_", "-") for k in extra)
        raise UsageError(f"generator {name!r} does not take {shown}")
    for option in game.options:
        if option.required and option.name not in given:
            raise needs(name, option)
        if option.name in given:
            given[option.name] = option.value(given[option.name])
    return given


def generate(name: str, **options: Any) -> Case:
    """The case of the built-in game ``name`` by its fast generator; options that are ``None``
    are left at their defaults. ``UsageError`` (one line) for an unknown name, an option the
    game does not take or lacks, or values it refuses."""
    game, argument = find(name)
    kw = checked(game, name.strip() if argument else name.strip().lower(), options)
    try:
        return game.build(argument, kw)
    except ValueError as e:
        raise UsageError(str(e)) from e


SYMMETRY = Option("symmetry", bool, "Reduce by the board's symmetries.")
"""``--symmetry``, shared by the board games."""
UPTO = Option("upto", int, "impartial families: heaps 0..upto.", True, "heaps 0..N", example=30)
"""``--upto``, shared by the heap games."""
