"""Uniqueness in normal play, checked without Z3 (docs/certificates.md, *Uniqueness*, U1-U2):
the CNF of "another labelling keeps the won/lost rules" built from the case, and the replay of
a DRUP proof that it is unsatisfiable by reverse unit propagation (as drat-trim does, without
its optimisations). Standard library only; part of the standalone checker.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class BadProof(ValueError):
    """A proof that is not DRUP text (the checker reports the file as unreadable)."""


def won_lost_cnf(
    succ: Sequence[Sequence[int]], leaf: Sequence[int], val: Sequence[int]
) -> list[list[int]]:
    """U1: W(x) = 2x+1, L(x) = 2x+2 keep the rules of normal play and differ from ``val``."""
    cnf: list[list[int]] = []
    differs: list[int] = []
    for x, ys in enumerate(succ):
        w, lo = 2 * x + 1, 2 * x + 2
        if ys:
            cnf += [[-w, -lo], [-w] + [2 * y + 2 for y in ys], [lo] + [-2 * y - 1 for y in ys]]
            cnf += [[w, -2 * y - 2] for y in ys] + [[-lo, 2 * y + 1] for y in ys]
        else:  # a terminal: its label
            cnf += [[-w, -lo], [w if leaf[x] == 1 else -w], [lo if leaf[x] == -1 else -lo]]
        differs += [-w] if val[x] == 1 else [-lo] if val[x] == -1 else [w, lo]
    return [*cnf, differs]


def broken(cnf: list[list[int]], labels: Sequence[int]) -> int | None:
    """The first clause a labelling (+1 won, -1 lost, 0 drawn per position) does not keep."""
    true = {2 * x + 1 if v == 1 else 2 * x + 2 for x, v in enumerate(labels) if v}
    return next(
        (k for k, cl in enumerate(cnf) if all((abs(b) in true) != (b > 0) for b in cl)), None
    )


def refuted(cnf: list[list[int]], proof: Any) -> bool:
    """U2: every lemma of ``proof`` (DRUP text lines) follows by unit propagation from the
    clauses before it, and propagation ends in a conflict (deletions are ignored: sound)."""
    if not (isinstance(proof, list) and all(isinstance(t, str) for t in proof)):
        raise BadProof("$.uniqueness.drup: a list of DRUP lines is needed")
    cls: list[list[int]] = []
    nfalse: list[int] = []
    occ: dict[int, list[int]] = {}
    true: set[int] = set()
    trail: list[int] = []

    def assign(queue: list[int]) -> bool:  # False on a conflict (the queue is run to its end)
        ok = True
        while queue:
            a = queue.pop()
            if a in true or -a in true:
                ok &= a in true
                continue
            true.add(a)
            trail.append(a)
            for k in occ.get(-a, ()):  # the clauses where a made a literal false
                nfalse[k] += 1
                if nfalse[k] >= len(cls[k]) - 1:  # unit or false: find what is left
                    rest = [b for b in cls[k] if -b not in true]
                    ok &= bool(rest)
                    queue += rest if len(rest) == 1 else []
        return ok

    def add(cl: list[int]) -> bool:  # False if the clauses conflict at the top level
        cls.append(cl)
        nfalse.append(sum(-b in true for b in cl))
        for b in cl:
            occ.setdefault(b, []).append(len(cls) - 1)
        rest = [b for b in cl if -b not in true]
        return bool(rest) and (len(rest) > 1 or assign(rest))

    if not all(add(cl) for cl in cnf):
        return True
    for line in proof:  # a lemma: its negation propagates to a conflict; then it is added
        lits = [int(t) for t in line.removeprefix("d").split()]
        if lits[-1:] != [0] or 0 in lits[:-1]:
            raise BadProof(f"$.uniqueness.drup: {line!r} is not a clause ending in 0")
        if line.startswith("d"):
            continue
        mark, conflict = len(trail), not assign([-b for b in lits[:-1]])
        for a in trail[mark:]:  # undo
            true.discard(a)
            for k in occ.get(-a, ()):
                nfalse[k] -= 1
        del trail[mark:]
        if not conflict or not add(lits[:-1]):
            return conflict
    return False
