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


Z3_LIMIT = 4_000_000
"""A uniqueness claim may rest on Z3 (no proof to replay) only where the CNF of its proof would
have more clauses than this, as the checker counts them from the case (``clauses``); at or below
it the package writes a proof (verifier/certify/drup.py uses this limit and this count)."""


def clauses(sem: str, n: int, m: int, squares: int) -> int | None:
    """The clauses a proof's CNF is counted at (``n`` positions, ``m`` moves, ``squares`` the
    sum of the squared out-degrees; for normal play, U1's: the drawn positions and their moves):
    normal play's U1 ``3n + 2m``, the mex equations' U3 ``sum(d^2 + 3d + 1)``; None where no
    claim may rest on Z3 (minimax, reachability)."""
    return {"normal": 3 * n + 2 * m, "impartial": squares + 3 * m + n}.get(sem)


def z3_fault(sem: str, n: int, m: int, squares: int) -> int:
    """1 where a uniqueness claim may rest on Z3, else ``BadProof`` naming ``$.uniqueness``."""
    k = clauses(sem, n, m, squares)
    if k is None or k <= Z3_LIMIT:
        what = f"{k:,} clauses, not above {Z3_LIMIT:,}" if k is not None else f"a {sem} case"
        raise BadProof(f"$.uniqueness: rests-on-z3 where a proof is required ({what})")
    return 1


def won_lost_cnf(succ: Sequence[Sequence[int]], val: Sequence[int]) -> list[list[int]]:
    """U1: W(x) = 2x+1, L(x) = 2x+2 keep the rules of normal play and differ from ``val``, over
    the drawn positions only: N2/N3's ranks (checked before) force every won and lost label in
    every solution, so those are constants here, and every clause they satisfy is left out."""
    cnf: list[list[int]] = []
    differs: list[int] = []
    for x, ys in enumerate(succ):
        if val[x] != 0:
            continue
        w, lo = 2 * x + 1, 2 * x + 2
        drawn = [y for y in ys if val[y] == 0]  # the others are won (N4: none is lost)
        cnf.append([-w, -lo])
        if ys:
            cnf += [[-w] + [2 * y + 2 for y in drawn], [lo] + [-2 * y - 1 for y in drawn]]
            cnf += [[w, -2 * y - 2] for y in drawn] + [[-lo, 2 * y + 1] for y in drawn]
        else:  # a drawn terminal: neither
            cnf += [[-w], [-lo]]
        differs += [w, lo]
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


def mex_cnf(succ: Sequence[Sequence[int]], other_than: Sequence[int] | None) -> list[list[int]]:
    """U3: V(x, k) = "x's Grundy value is k" (k = 0..d(x), numbered from 1 in position order)
    keep the mex equations; with ``other_than``, some value differs from it."""
    first = [1]
    for ys in succ:
        first.append(first[-1] + len(ys) + 1)
    cnf: list[list[int]] = []
    for x, ys in enumerate(succ):
        own = list(range(first[x], first[x + 1]))
        cnf += [own] + [[-own[j], -own[k]] for k in range(len(own)) for j in range(k)]
        for k, v in enumerate(own):  # no option has k; each smaller value is an option's
            cnf += [[-v, -(first[y] + k)] for y in ys if k <= len(succ[y])]
            cnf += [[-v, *(first[y] + j for y in ys if j <= len(succ[y]))] for j in range(k)]
    if other_than is not None:
        cnf.append([-(first[x] + v) for x, v in enumerate(other_than)])
    return cnf


def claim_fault(
    sem: str, succ: Sequence[Sequence[int]], leaf: Sequence[int], val: Sequence[Any],
    u: dict[str, Any], second: Sequence[int], index: dict[str, int],
) -> tuple[int | None, str] | None:  # fmt: skip
    """U1-U3: a normal or impartial uniqueness claim and its proof: None if it holds, else
    (the position or None, what is wrong). ``second``: normal play's witness labelling."""
    proof, said = u.get("proof"), u.get("claim")
    if sem == "normal" and proof in ("ranks", "drup", "witness"):
        if (said == "not unique") != (proof == "witness"):
            raise BadProof("$.uniqueness.claim")
        if proof == "ranks":  # N2/N3's ranks force every won and lost label
            return None if 0 not in val else (None, "by ranks, but some position is drawn")
        cnf = won_lost_cnf(succ, val)  # the drawn positions': the others are forced
        if proof == "drup":
            ok = refuted(cnf, u.get("drup"))
            return None if ok else (None, "the DRUP proof does not refute another labelling")
        moved = next((x for x, v in enumerate(val) if v != 0 and second[x] != v), None)
        if moved is not None:
            return moved, "the second labelling changes a label the ranks force"
        k = broken(cnf, second)  # a second labelling keeping every clause; the last: it differs
        at = None if k is None or k == len(cnf) - 1 else (abs(cnf[k][0]) - 1) // 2
        return None if k is None else (at, "the second labelling breaks this rule")
    count, listed = u.get("solutions"), [u[k] for k in ("first", "second") if k in u]
    if sem != "impartial" or proof != "mex" or count not in ("0", "1", "several"):
        raise BadProof("$.uniqueness.proof")
    if len(listed) != {"0": 0, "1": 1}.get(count, 2) or (said == "unique") != (count == "1"):
        raise BadProof("$.uniqueness: the claim, the count and the solutions listed differ")
    sols = [solution(s, index) for s in listed]
    for s in sols:  # each listed solution keeps every mex equation
        for x, ys in enumerate(succ):
            options = {s[y] for y in ys}
            if s[x] in options or any(h not in options for h in range(s[x])):
                return x, "a listed solution breaks the mex equation here"
    if count == "several":
        return None if sols[0] != sols[1] else (None, "the two solutions listed are one")
    ok = refuted(mex_cnf(succ, sols[0] if sols else None), u.get("drup"))
    return None if ok else (None, "the DRUP proof does not refute another solution")


def solution(d: Any, index: dict[str, int]) -> list[int]:
    """A solution listed by position name: an integer at least 0 for every position."""
    if not (isinstance(d, dict) and set(d) == set(index)):
        raise BadProof("$.uniqueness: a solution lists every position")
    if not all(type(v) is int and v >= 0 for v in d.values()):
        raise BadProof("$.uniqueness: a solution's values are integers at least 0")
    out = [0] * len(index)
    for name, v in d.items():
        out[index[name]] = v
    return out
