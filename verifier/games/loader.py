"""Load a game class written by the user: ``path/to/mygame.py:MyGame`` or ``pkg.module:MyGame``.

>>> is_game_spec("games/mine.py:Mine"), is_game_spec("octal:.07")
(True, False)
>>> parse_params(["n=7", "rule=misere"])
{'n': 7, 'rule': 'misere'}
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from verifier.games.openspiel import PREFIX
from verifier.games.protocol import GameError
from verifier.games.registry import builtin_games

__all__ = ["is_game_spec", "load_game", "parse_params"]

_MODULE = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")
_INT = re.compile(r"^[+-]?\d+$")


def is_game_spec(text: str) -> bool:
    """Whether a GAME argument names a user's game class (``FILE.py:Class`` or ``module:Class``)
    rather than a built-in game (``subtraction:1,2``, ``octal:.07``: a name its module declares,
    :mod:`verifier.games.registry`)."""
    if text.strip().startswith(PREFIX):
        return True
    where, sep, _ = text.strip().rpartition(":")
    if not sep or not where:
        return False
    if where.lower() in {w for g in builtin_games() for w in (g.name, *g.aliases)}:
        return False
    return where.endswith(".py") or "/" in where or "\\" in where or bool(_MODULE.match(where))


def parse_params(items: Iterable[str]) -> dict[str, Any]:
    """``NAME=VALUE`` strings as keyword arguments (integers as ``int``, the rest as ``str``)."""
    params: dict[str, Any] = {}
    for item in items:
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or not name.isidentifier():
            raise GameError("--param", f"{item!r} is not NAME=VALUE (e.g. --param n=7)")
        if name in params:
            raise GameError("--param", f"{name!r} given twice")
        params[name] = int(value) if _INT.match(value.strip()) else value
    return params


def load_game(spec: str, params: dict[str, Any] | None = None) -> Any:
    """An instance of the game class ``spec`` names, built with ``params`` as keywords.

    Raises :class:`~verifier.games.protocol.GameError` (one line) for a missing file, module
    or class, an import that fails, or parameters the class does not take.
    """
    if spec.strip().startswith(PREFIX):  # pyspiel is imported only now
        from verifier.games.openspiel import OpenSpielGame

        return OpenSpielGame(spec.strip().removeprefix(PREFIX), **(params or {}))
    where, sep, cls_name = spec.strip().rpartition(":")
    if not sep or not where or not cls_name.isidentifier():
        raise GameError(spec, "expected FILE.py:Class or package.module:Class")
    module: Any
    if where.endswith(".py") or "/" in where or "\\" in where:
        path = Path(where)
        if not path.is_file():
            raise GameError(spec, f"no such file: {where}")
        mod_name = "verifier_user_game_" + re.sub(r"\W", "_", path.stem)
        loader_spec = importlib.util.spec_from_file_location(mod_name, path)
        if loader_spec is None or loader_spec.loader is None:
            raise GameError(spec, f"cannot import {where} (not a Python file?)")
        module = importlib.util.module_from_spec(loader_spec)
        sys.modules[mod_name] = module  # dataclasses and pickling look the module up
        folder = str(path.resolve().parent)
        sys.path.insert(0, folder)  # the game's own helper modules beside it
        try:
            loader_spec.loader.exec_module(module)
        except Exception as e:  # the user's file: show its error in one line
            sys.modules.pop(mod_name, None)
            raise GameError(spec, f"importing {where} raised {type(e).__name__}: {e}") from None
        finally:
            sys.path.remove(folder)
    else:
        try:
            module = importlib.import_module(where)
        except ModuleNotFoundError as e:
            if e.name is not None and where.startswith(e.name):
                raise GameError(spec, f"no module named {e.name!r}") from None
            raise GameError(spec, f"importing {where} raised ModuleNotFoundError: {e}") from None
        except Exception as e:
            raise GameError(spec, f"importing {where} raised {type(e).__name__}: {e}") from None
    cls = getattr(module, cls_name, None)
    if cls is None:
        found = sorted(
            n for n, v in vars(module).items() if isinstance(v, type) and hasattr(v, "moves")
        )
        hint = f"; it defines {', '.join(found)}" if found else ""
        raise GameError(spec, f"{where} has no class {cls_name!r}{hint}")
    try:
        return cls(**(params or {}))
    except Exception as e:
        raise GameError(
            spec, f"{cls_name}({_shown(params)}) raised {type(e).__name__}: {e}"
        ) from None


def _shown(params: dict[str, Any] | None) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in (params or {}).items())
