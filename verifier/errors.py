"""The project's exceptions: one root, children that also inherit a builtin."""

from __future__ import annotations

__all__ = ["CaseError", "CycleError", "NotApplicable", "UsageError", "VerifierError"]


class VerifierError(Exception):
    """Root of every error this package raises on purpose."""


class CaseError(VerifierError, ValueError):
    """A case file (or other user input) is malformed.

    ``str(err)`` is one line: ``FILE: JSON-PATH: what is wrong``.
    """

    def __init__(self, file: str | None, path: str, message: str) -> None:
        self.file = file or "<input>"
        self.path = path or "$"
        self.message = " ".join(message.split())
        super().__init__(f"{self.file}: {self.path}: {self.message}")


class UsageError(VerifierError, ValueError):
    """A command was called with arguments that make no sense together."""


class CycleError(VerifierError, ValueError):
    """An algorithm that needs an acyclic graph met a cycle; names the nodes of one cycle."""

    def __init__(self, cycle: list[str], what: str = "graph") -> None:
        self.cycle = tuple(cycle)
        shown = " -> ".join([*cycle, cycle[0]]) if cycle else "?"
        super().__init__(f"the {what} has a cycle: {shown}")


class NotApplicable(VerifierError):
    """A solver or check does not apply to this case (the reason says why); it is skipped."""
