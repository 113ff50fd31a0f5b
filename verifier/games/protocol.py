"""Your own game in one Python file: the :class:`Game` protocol and :func:`explore`.

A game is any class with these methods (subclassing :class:`Game` gives the optional ones
their defaults, but is not required):

* ``initial()``: the start position (any Python value: a string, a tuple, ...); or
  ``initials()``: several start positions (every heap size of a heap game, every position of an
  endgame), explored in the order given; the case then has no root;
* ``moves(state)``: the successor positions, an iterable of states, or a mapping
  ``{move name: state}`` (the names are for the game's author; the graph keeps the moves);
* ``outcome(state)``: ``None`` unless play has stopped; else ``"won"`` / ``"lost"`` /
  ``"draw"`` (``normal``, the mover's view) or a number or ``"win"`` / ``"draw"`` /
  ``"loss"`` (``minimax``, Max's view). A ``normal`` state with no moves and no outcome is lost
  for the mover; ``impartial`` and ``reachability`` games have no outcomes;
* ``to_move(state)``: ``"max"`` / ``"min"`` (or 0 / 1) for ``minimax``, the player 0 or 1 for
  ``reachability``; not needed by ``normal`` and ``impartial`` games (the mover alternates);
* ``is_target(state)``: ``reachability`` only: player 0 wins on reaching such a state;
* ``key(state)``: a hashable key naming the position (``str(key)`` is its name in every
  output and answer file); default: the state itself;
* ``canonical(state)`` (optional): a representative of the state's class (positions are
  joined up to it), or ``symmetries(state)`` (optional): the states equivalent to it, the one
  with the least ``str(key)`` representing them;
* ``semantics``: a class attribute, ``"normal"``, ``"minimax"``, ``"reachability"`` or
  ``"impartial"``.

:func:`explore` walks the game breadth-first from ``initial()``, joins positions with the same
key and builds the :class:`~verifier.model.Case`. A mistake in the game's code is a
:class:`GameError`, one line naming the position's key and the method.

>>> class Take(Game):
...     semantics = "impartial"
...     def initial(self): return 3
...     def moves(self, n): return [n - k for k in (1, 2) if n >= k]
>>> case = explore(Take())
>>> case.graph.n, case.graph.m, list(case.graph.names)
(4, 5, ['3', '2', '1', '0'])
"""

from __future__ import annotations

import math
import numbers
from array import array
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Any

import numpy as np

from verifier.errors import VerifierError
from verifier.io.case_json import LABEL_VALUES, VALUE_WORDS
from verifier.model import MAX, MIN, NOBODY, Case, GameGraph, Semantics
from verifier.model.describe import Description, describe

__all__ = ["DEFAULT_MAX_POSITIONS", "Game", "GameError", "explore"]

DEFAULT_MAX_POSITIONS = 10_000_000
"""The most positions :func:`explore` builds unless told otherwise."""

Progress = Callable[[int, int], None]
"""``progress(positions, frontier)``: called every few thousand positions."""


class GameError(VerifierError, ValueError):
    """A game's code did something the protocol does not allow; ``str(err)`` is one line."""

    def __init__(self, game: str, message: str) -> None:
        self.game = game
        self.message = " ".join(message.split())
        super().__init__(f"{game}: {self.message}")


class Game:
    """Base class of a game (optional: any class with ``initial`` and ``moves`` will do)."""

    semantics: str = "impartial"

    def initial(self) -> Any:
        raise NotImplementedError("a game needs initial()")

    def moves(self, state: Any) -> Iterable[Any] | Mapping[str, Any]:
        raise NotImplementedError("a game needs moves(state)")

    def outcome(self, state: Any) -> str | float | None:
        return None

    def key(self, state: Any) -> Hashable:
        return state  # type: ignore[no-any-return]


_START = "initial()"
"""Where the start state comes from, in place of a position's key in errors."""
# the case format's words (a normal outcome may also say win / loss)
_MINIMAX_WORDS = {k: v for k, v in VALUE_WORDS.items() if isinstance(k, str)}
_NORMAL_WORDS = {**LABEL_VALUES, "win": 1.0, "loss": -1.0}
_OWNERS = {"max": MAX, "min": MIN, 0: MAX, 1: MIN}


def _show(key: object) -> str:
    text = str(key)
    return repr(text if len(text) <= 60 else text[:57] + "...")


def explore(
    game: Any,
    max_positions: int = DEFAULT_MAX_POSITIONS,
    progress: Progress | None = None,
    *,
    name: str | None = None,
    case_id: str | None = None,
    source: str | None = None,
) -> Case:
    """The case of ``game``: every position reachable from ``initial()``, breadth-first.

    ``name`` names the game in errors (default: its class name). Raises :class:`GameError`.
    """
    title = name or type(game).__name__
    sem_text = getattr(game, "semantics", None)
    try:
        sem = Semantics(str(sem_text).lower())
    except ValueError:
        raise GameError(
            title,
            f"semantics is {sem_text!r}: expected 'normal', 'minimax', 'reachability' or "
            "'impartial'",
        ) from None
    several = callable(getattr(game, "initials", None))
    for method in ("initials" if several else "initial", "moves"):
        if not callable(getattr(game, method, None)):
            raise GameError(title, f"the game has no {method}() method")

    def fail(key: object, method: str, message: str) -> GameError:
        where = "the start state" if key == _START else f"position {_show(key)}"
        return GameError(title, f"{where}: {method}: {message}")

    def call(method: str, key: object, *args: Any) -> Any:
        try:
            return getattr(game, method)(*args)
        except Exception as e:  # the user's code: any exception is their bug, shown in one line
            raise fail(key, f"{method}()", f"raised {type(e).__name__}: {e}") from None

    has = {m: callable(getattr(game, m, None)) for m in ("key", "canonical", "symmetries")}

    def key_of(state: Any, where: object) -> Hashable:
        """The key of ``state`` (reached from the position ``where``), checked."""
        k1 = call("key", where, state) if has["key"] else state
        try:
            hash(k1)
        except TypeError as e:
            if not has["key"]:
                hint = "give the game a key(state) returning a str, int or tuple"
                if where == _START:
                    raise GameError(
                        title, f"initial(): the start state is not hashable ({e}): {hint}"
                    ) from None
                raise fail(
                    where, "moves()", f"a successor is not hashable ({_show(k1)}: {e}): {hint}"
                ) from None
            raise fail(
                str(k1), "key()", f"the key is not hashable ({e}): return a str, int or tuple"
            ) from None
        k2 = call("key", where, state) if has["key"] else state
        if k1 != k2:
            raise fail(k1, "key()", f"the key is not stable: a second call gave {_show(k2)}")
        return k1  # type: ignore[no-any-return]

    def canonical(state: Any, where: object) -> Any:
        if has["canonical"]:
            return call("canonical", where, state)
        if has["symmetries"]:
            images = [*call("symmetries", where, state), state]
            return min(images, key=lambda s: str(key_of(s, where)))
        return state

    has_outcome = callable(getattr(game, "outcome", None))
    d = describe(sem)  # what the semantics asks of a game: targets, owners, outcomes
    if d.has_targets and not callable(getattr(game, "is_target", None)):
        raise GameError(title, f"a {sem.value} game needs is_target(state)")
    if d.owner_names and not callable(getattr(game, "to_move", None)):
        raise GameError(title, f"a {sem.value} game needs to_move(state)")

    def node(state: Any, key: Hashable, degree: int) -> tuple[int, float, bool]:
        """The owner code, the terminal value (NaN if none) and whether it is a target."""
        out = call("outcome", key, state) if has_outcome else None
        value = math.nan
        if out is not None:
            if degree:
                raise fail(
                    key,
                    "outcome()",
                    f"gave {out!r} but moves() gave {degree} move(s): "
                    "a position with an outcome has no moves",
                )
            got_value = _outcome_value(d, out)
            if isinstance(got_value, str):
                raise fail(key, "outcome()", got_value)
            value = got_value
        elif not degree and d.terminal_default is not None:
            value = d.terminal_default  # normal: the mover cannot move and has lost
        elif not degree and d.value_field == "value":
            raise fail(key, "outcome()", f"a {sem.value} position with no moves needs a value")
        hit = False
        if d.has_targets:
            hit = call("is_target", key, state)
            if not isinstance(hit, bool | np.bool_):
                raise fail(key, "is_target()", f"gave {hit!r}: expected True or False")
        code = NOBODY
        if d.owner_names and degree:
            who = call("to_move", key, state)
            got = _OWNERS.get(who.lower() if isinstance(who, str) else who)
            if got is None or isinstance(who, bool):
                raise fail(key, "to_move()", f"gave {who!r}: expected {d.owner_spelling()}")
            code = got
        return code, value, bool(hit)

    # Only the frontier holds states; a position done is its key, its name and a few numbers.
    ids: dict[Hashable, int] = {}
    keys: list[Hashable] = []
    queue: deque[tuple[int, Any]] = deque()
    given = call("initials", _START) if several else [call("initial", _START)]
    try:
        starts = list(given)
    except TypeError as e:
        raise GameError(title, f"initials(): did not return an iterable of states ({e})") from None
    if not starts:
        raise GameError(title, "initials(): gave no state: a game needs a start")
    for start in starts:
        start = canonical(start, _START)
        k = key_of(start, _START)
        if k not in ids:
            ids[k] = len(keys)
            keys.append(k)
            queue.append((ids[k], start))
    src, dst = array("q"), array("q")
    owner, value, target = array("b"), array("d"), array("b")
    while queue:
        i, state = queue.popleft()
        key = keys[i]
        got = call("moves", key, state)
        if isinstance(got, Mapping):
            got = got.values()
        try:
            successors = list(got)
        except TypeError as e:
            raise fail(key, "moves()", f"did not return an iterable of states ({e})") from None
        seen: set[int] = set()
        for y in successors:
            y = canonical(y, key)
            ky = key_of(y, key)
            j = ids.get(ky)
            if j is None:
                j = ids[ky] = len(keys)
                if j >= max_positions:
                    raise GameError(
                        title,
                        f"more than {max_positions:,} positions (--max-positions); the "
                        f"last one reached: {_show(ky)}",
                    )
                keys.append(ky)
                queue.append((j, y))
            if j not in seen:
                seen.add(j)
                src.append(i)
                dst.append(j)
        code, val, hit = node(state, key, len(seen))
        owner.append(code)
        value.append(val)
        target.append(hit)
        if progress is not None and i % 4096 == 4095:
            progress(len(keys), len(queue))
    if progress is not None:
        progress(len(keys), 0)

    names = [str(k) for k in keys]
    if "" in names:
        raise fail("", "key()", "the key prints as an empty string: a position's name is not empty")
    if len(set(names)) != len(names):
        first: dict[str, Hashable] = {}
        for k, nm in zip(keys, names, strict=True):
            if nm in first:
                raise fail(
                    k,
                    "key()",
                    f"two different keys print as the same name ({first[nm]!r} "
                    f"and {k!r}): str(key) names the position",
                )
            first[nm] = k
    del ids, keys
    graph = GameGraph.from_edges(
        names,
        np.frombuffer(src, dtype=np.int64),
        np.frombuffer(dst, dtype=np.int64),
        semantics=sem,
        owner=np.frombuffer(owner, dtype=np.int8),
        value=np.frombuffer(value, dtype=np.float64),
        target=np.frombuffer(target, dtype=np.int8).astype(np.bool_),
    )
    return Case(
        graph=graph,
        id=case_id or title,
        root=None if several else 0,
        source=source or f"verifier.games.protocol: {title}",
        description=(getattr(game, "__doc__", None) or "").strip().split("\n")[0] or None,
    )


def _outcome_value(d: Description, out: object) -> float | str:
    """The stored value of a terminal's outcome (a label +1/-1/0, or a minimax score), or
    what is wrong with it."""
    sem = d.semantics
    if d.value_field == "label":
        if isinstance(out, str) and out.lower() in _NORMAL_WORDS:
            return _NORMAL_WORDS[out.lower()]
        return f"gave {out!r}: a {sem.value} game's outcome is 'won', 'lost' or 'draw'"
    if d.value_field == "value":
        if isinstance(out, str) and out.lower() in _MINIMAX_WORDS:
            return _MINIMAX_WORDS[out.lower()]
        real = isinstance(out, numbers.Real) and not isinstance(out, bool | np.bool_)
        if real and math.isfinite(float(out)):  # type: ignore[arg-type]
            return float(out)  # type: ignore[arg-type]
        return (
            f"gave {out!r}: a {sem.value} game's outcome is a finite number or 'win', 'draw' or "
            "'loss'"
        )
    return f"gave {out!r}: {sem.value} games have no outcomes (return None)"
