"""The checker's REJECTED line (``check_certificate.py`` and ``fast.py`` alike): which certified
claim fails, then what the condition that refutes it needs. Standard library only."""

from __future__ import annotations

CLAIMED = {"won": "won", "lost": "lost", "draw": "a draw", "outside W": "outside W",
           "player 0 in W": "in W, player 0 to move", "player 1 in W": "in W, player 1 to move",
           "inf(K)": "inf(K)"}  # fmt: skip
"""What a condition's argument (the text before ': ') says the certificate claims."""


def said(position: str | None, condition: str, why: str) -> str:
    """A REJECTED line: which certified claim fails, then what the condition needs."""
    label, _, needs = why.partition(": ")
    if condition == "answers":  # the answer file's claim, not the certificate's
        return f"position {position!r}: answers {why}"
    if condition in ("line", "move"):
        at = "" if position is None else f" at {position!r}"
        return f"the certificate's {condition}{at} {why}"
    if position is None:
        return f"the certificate's {condition} claim fails: {why}"
    if label in CLAIMED and needs:
        claim = f"the certificate claims {position!r} is {CLAIMED[label]}"
        return f"{claim}, but {condition} needs {needs}"
    return f"the certificate's entry for {position!r} fails {condition}: {why}"
