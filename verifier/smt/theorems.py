"""Theorems of the seed proved by Z3 over bit-vectors: Bouton's theorem and the XOR rule.

Each proof asserts the *negation* of a claim and expects ``unsat``; ``sat`` yields a
counterexample (``refuted``), Z3's ``unknown`` is reported with its reason, never as a proof.

**Bouton** (:func:`prove_bouton`), for nim positions ``x = (x_1..x_m)`` with every ``x_i < 2^k``
and ``s = x_1 xor ... xor x_m``:

* (N) if ``s != 0`` then some move (``x_i -> y`` with ``y < x_i``) reaches XOR 0. Two
  encodings: ``witness`` (default) negates "the seed's move ``y = x_i xor s`` is legal on some
  pile and reaches XOR 0" (an existential proved by exhibiting the move; quantifier-free);
  ``quantified`` leaves ``y`` universally quantified in the negation, so Z3 must find the move
  itself (slow and erratic in Z3's quantifier engine).
* (P) if ``s = 0`` then every move leaves XOR ``!= 0``.

With "a position without moves is a P-position" (``(0..0)``, XOR 0) these are exactly the seed's
inductive characterisation of P- and N-positions, so by induction on the number of counters
the P-positions are the positions of XOR 0, for every position of ``m`` heaps below ``2^k``.

**XOR rule** (:func:`prove_xor_rule`), the induction step of the seed's sum theorem, with
``k``-bit values: for all ``a, b < 2^k`` and all sets ``A, B`` of ``k``-bit values with
``mex A = a`` and ``mex B = b``,

    ``mex ({a' xor b : a' in A} ∪ {a xor b' : b' in B}) = a xor b``.

``A`` and ``B`` are the value sets of the options of games ``G`` and ``H``; by the induction
hypothesis the options of ``G + H`` (``G' + H`` and ``G + H'``) have the values inside the mex.
So for all finite acyclic games whose positions all have values below ``2^k`` (as sets, ``A``
and ``B`` are bit masks of ``2^k`` bits: arbitrary, not only those of some small game),
``g(G + H) = g(G) xor g(H)``; for ``n`` components apply it ``n - 1`` times. What is not
proved by Z3: the induction itself (a one-line argument) and games with larger values.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import reduce
from types import MappingProxyType
from typing import Any

import z3

from verifier.model import Verdict
from verifier.registry import Options
from verifier.smt.mex import make_solver

__all__ = ["ProofPart", "ProofResult", "prove_bouton", "prove_xor_rule"]


@dataclass(frozen=True)
class ProofPart:
    """One claim: its negation was given to Z3."""

    claim: str
    status: str
    """Z3's answer to the negation: ``unsat`` (proved), ``sat``, ``unknown``."""
    seconds: float
    counterexample: Mapping[str, Any] | None = None
    reason: str = ""
    """Z3's ``reason_unknown()`` when ``status`` is ``unknown``."""


@dataclass(frozen=True)
class ProofResult:
    """The verdict on a theorem: ``confirmed`` iff every part's negation is ``unsat``."""

    theorem: str
    statement: str
    verdict: Verdict
    seconds: float
    parts: tuple[ProofPart, ...]
    params: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def detail(self) -> str:
        return "; ".join(f"{p.claim}: {p.status}" for p in self.parts)


def _solve_negation(
    claim: str, negation: z3.BoolRef, options: Options, show: Mapping[str, z3.ExprRef]
) -> ProofPart:
    s = make_solver(options)
    s.add(negation)
    t0 = time.perf_counter()
    status = s.check()
    secs = time.perf_counter() - t0
    if status == z3.sat:
        model = s.model()
        cex = {k: str(model.eval(e, model_completion=True)) for k, e in show.items()}
        return ProofPart(claim, "sat", secs, cex)
    if status == z3.unknown:
        return ProofPart(claim, "unknown", secs, reason=s.reason_unknown())
    return ProofPart(claim, "unsat", secs)


def _verdict(parts: tuple[ProofPart, ...]) -> Verdict:
    if any(p.status == "sat" for p in parts):
        return Verdict.REFUTED
    if all(p.status == "unsat" for p in parts):
        return Verdict.CONFIRMED
    return Verdict.UNKNOWN


def _xor(terms: list[z3.BitVecRef]) -> z3.BitVecRef:
    return reduce(lambda u, v: u ^ v, terms)


def prove_bouton(
    piles: int, bits: int, options: Options | None = None, *, method: str = "witness"
) -> ProofResult:
    """Prove Bouton's theorem for all nim positions of ``piles`` heaps below ``2**bits``.

    ``method``: ``"witness"`` (default) proves (N) by showing that the seed's move (``x_i ->
    x_i xor s`` on some pile where that is smaller) exists and reaches XOR 0: quantifier-free,
    fast. ``"quantified"`` leaves the move universally quantified in the negation, so Z3 must
    find it; Z3's quantifier engine is slow and erratic on it (see docs/sprague-grundy.md).
    """
    if piles < 1 or bits < 1:
        raise ValueError(f"piles and bits must be >= 1, got piles={piles}, bits={bits}")
    options = options or Options()
    t0 = time.perf_counter()
    x = [z3.BitVec(f"x{i}", bits) for i in range(piles)]
    s = _xor(x)

    def after(i: int, y: z3.BitVecRef) -> z3.BitVecRef:
        return _xor([y if j == i else x[j] for j in range(piles)])

    show = {f"x{i}": x[i] for i in range(piles)}
    if method == "quantified":
        # (N) negated: XOR != 0 and no move (for all i, all y < x_i) reaches XOR 0
        y = z3.BitVec("y", bits)
        no_move = [
            z3.ForAll([y], z3.Implies(z3.ULT(y, x[i]), after(i, y) != 0)) for i in range(piles)
        ]
        n_negation = z3.And(s != 0, *no_move)
    elif method == "witness":
        # (N) negated for the seed's move: no pile i where y = x_i xor s is smaller than x_i
        # and reaches XOR 0
        n_negation = z3.And(
            s != 0,
            *[
                z3.Not(z3.And(z3.ULT(x[i] ^ s, x[i]), after(i, x[i] ^ s) == 0))
                for i in range(piles)
            ],
        )
    else:
        raise ValueError(f"method must be 'witness' or 'quantified', got {method!r}")
    n_part = _solve_negation("XOR != 0 => some move reaches XOR 0", n_negation, options, show)
    # (P) negated: XOR = 0 and some move (pile i, new size y_i < x_i) keeps XOR 0
    ys = [z3.BitVec(f"y{i}", bits) for i in range(piles)]
    bad_move = [z3.And(z3.ULT(ys[i], x[i]), after(i, ys[i]) == 0) for i in range(piles)]
    p_part = _solve_negation(
        "XOR = 0 => every move leaves XOR != 0",
        z3.And(s == 0, z3.Or(bad_move)),
        options,
        {**show, **{f"y{i}": ys[i] for i in range(piles)}},
    )
    parts = (n_part, p_part)
    q = method == "quantified"
    return ProofResult(
        theorem="bouton",
        statement=(
            f"for all nim positions of {piles} heaps below 2^{bits}: XOR != 0 => some move "
            "reaches XOR 0, and XOR = 0 => every move leaves XOR != 0"
        ),
        verdict=_verdict(parts),
        seconds=time.perf_counter() - t0,
        parts=parts,
        params=MappingProxyType({"piles": piles, "bits": bits, "quantified": int(q)}),
    )


def _bit(mask: z3.BitVecRef, v: int) -> z3.BoolRef:
    return z3.Extract(v, v, mask) == 1


def _member(mask: z3.BitVecRef, value: z3.BitVecRef, bits: int) -> z3.BoolRef:
    """``value in mask`` for a symbolic ``bits``-bit value (mask has ``2^bits`` bits)."""
    width = 2**bits
    wide = value if width == bits else z3.ZeroExt(width - bits, value)
    return z3.Extract(0, 0, z3.LShR(mask, wide)) == 1


def _is_mex(mask: z3.BitVecRef, m: z3.BitVecRef, bits: int) -> z3.BoolRef:
    below = [z3.Implies(z3.ULT(z3.BitVecVal(v, bits), m), _bit(mask, v)) for v in range(2**bits)]
    return z3.And(*below, z3.Not(_member(mask, m, bits)))


def prove_xor_rule(bits: int, options: Options | None = None) -> ProofResult:
    """Prove the induction step of the XOR rule for ``bits``-bit values (module docstring)."""
    if not 1 <= bits <= 12:
        raise ValueError(f"bits must be between 1 and 12 (masks of 2^bits bits), got {bits}")
    options = options or Options()
    t0 = time.perf_counter()
    width = 2**bits
    a, b = z3.BitVec("a", bits), z3.BitVec("b", bits)
    sa, sb = z3.BitVec("A", width), z3.BitVec("B", width)
    hyp = z3.And(_is_mex(sa, a, bits), _is_mex(sb, b, bits))
    show = {"a": a, "b": b, "A": sa, "B": sb}
    # sanity: the hypotheses are satisfiable (the proof is not vacuous)
    sanity = _solve_negation("hypotheses satisfiable", z3.Not(z3.Not(hyp)), options, show)
    ap, bp, c = z3.BitVec("a1", bits), z3.BitVec("b1", bits), z3.BitVec("c", bits)

    def in_options(value: z3.BitVecRef) -> z3.BoolRef:
        """``value`` is the value of some option of G + H (quantified over the option)."""
        return z3.Or(
            z3.Exists([ap], z3.And(_member(sa, ap, bits), ap ^ b == value)),
            z3.Exists([bp], z3.And(_member(sb, bp, bits), a ^ bp == value)),
        )

    differs = _solve_negation(
        "a xor b is not the value of an option of G + H",
        z3.And(hyp, in_options(a ^ b)),
        options,
        show,
    )
    covers = _solve_negation(
        "every c < a xor b is the value of an option of G + H",
        z3.And(hyp, z3.ULT(c, a ^ b), z3.Not(in_options(c))),
        options,
        {**show, "c": c},
    )
    parts = (differs, covers)
    verdict = _verdict(parts)
    if sanity.status != "sat" and verdict is Verdict.CONFIRMED:
        verdict = Verdict.UNKNOWN  # vacuous: the hypotheses could not be shown satisfiable
    return ProofResult(
        theorem="xor-rule",
        statement=(
            f"for all a, b < 2^{bits} and all sets A, B of {bits}-bit values with mex A = a and "
            "mex B = b: mex({a' xor b : a' in A} ∪ {a xor b' : b' in B}) = a xor b"
        ),
        verdict=verdict,
        seconds=time.perf_counter() - t0,
        parts=(sanity, *parts),
        params=MappingProxyType({"bits": bits}),
    )
