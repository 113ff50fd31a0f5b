"""How a notebook shows the model's answers: drawings the writers lend the model.

The model draws nothing (it knows nothing of screens): ``writers.notebook`` and ``writers.svg``
register their functions here by name when imported (``@displays``), and ``Solution.svg``,
``Solution._repr_html_`` and ``CaseReport._repr_html_`` call them (``displayed``). The Python
API (``verifier.solve``, ``verifier.verify``) imports those writers before it returns an answer,
so a notebook always has them; with none registered a drawing is ``None`` (IPython then prints
the object's text ``repr``). Nothing here imports a layer above the model.

>>> @displays("greeting")
... def _hello(who: str) -> str:
...     return f"<p>hello {who}</p>"
>>> displayed("greeting", "you"), displayed("no such drawing", "you")
('<p>hello you</p>', None)
>>> del DISPLAYS["greeting"]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["DISPLAYS", "displayed", "displays"]

F = TypeVar("F", bound=Callable[..., Any])

DISPLAYS: dict[str, Callable[..., str | None]] = {}
"""The drawings lent to the model, by name: ``solution_html``, ``solution_svg``,
``report_html``."""


def displays(name: str) -> Callable[[F], F]:
    """Register the decorated function as the drawing ``name`` (a writer's, at its import)."""

    def register(fn: F) -> F:
        DISPLAYS[name] = fn
        return fn

    return register


def displayed(name: str, *args: Any) -> str | None:
    """The drawing ``name`` of ``args`` (``None``: no writer lent it)."""
    draw = DISPLAYS.get(name)
    return None if draw is None else draw(*args)
