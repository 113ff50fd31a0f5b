"""Time Z3's proofs of Bouton's theorem and of the XOR rule for growing sizes.

Usage::

    .venv/bin/python benchmarks/bench_bouton.py            # print the tables
    .venv/bin/python benchmarks/bench_bouton.py --write    # also update docs/sprague-grundy.md

Every cell is one run (Z3's fixed seed 0 and the default resource limit of ``Options``), the
seconds of both parts together; ``unknown`` means the resource limit was hit (not a proof).
"""

from __future__ import annotations

import argparse
import platform
import sys
from pathlib import Path

import z3

from verifier.registry import Options
from verifier.smt.theorems import ProofResult, prove_bouton, prove_xor_rule

DOC = Path(__file__).resolve().parent.parent / "docs" / "sprague-grundy.md"
BEGIN, END = "<!-- bouton-table:begin -->", "<!-- bouton-table:end -->"


def cell(res: ProofResult) -> str:
    if res.verdict.value == "confirmed":
        return f"{res.seconds:.2f}"
    return f"{res.verdict.value} ({res.seconds:.0f} s)"


def bouton_table(piles: list[int], bits: list[int], method: str, options: Options) -> str:
    rows = [
        f"| piles \\ bits | {' | '.join(map(str, bits))} |",
        "|---|" + "---|" * len(bits),
    ]
    for m in piles:
        cells = []
        for k in bits:
            res = prove_bouton(m, k, options, method=method)
            cells.append(cell(res))
            print(f"bouton {method} m={m} k={k}: {cells[-1]}", file=sys.stderr, flush=True)
        rows.append(f"| {m} | {' | '.join(cells)} |")
    return "\n".join(rows)


def xor_table(bits: list[int], options: Options) -> str:
    rows = ["| bits k | masks (bits) | seconds |", "|---|---|---|"]
    for k in bits:
        res = prove_xor_rule(k, options)
        print(f"xor-rule k={k}: {cell(res)}", file=sys.stderr, flush=True)
        rows.append(f"| {k} | {2**k} | {cell(res)} |")
    return "\n".join(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--piles", type=int, nargs="+", default=[2, 3, 4, 6, 8, 12, 16])
    ap.add_argument("--bits", type=int, nargs="+", default=[4, 8, 16, 32, 64])
    ap.add_argument("--quantified-piles", type=int, nargs="+", default=[2, 3, 4])
    ap.add_argument("--quantified-bits", type=int, nargs="+", default=[4, 6, 8])
    ap.add_argument("--xor-bits", type=int, nargs="+", default=[1, 2, 3, 4, 5, 6, 7, 8])
    ap.add_argument("--write", action="store_true", help="replace the tables in the docs")
    args = ap.parse_args()
    options = Options()
    parts = [
        f"Z3 {z3.get_version_string()}, Python {platform.python_version()}, rlimit "
        f"{options.rlimit}, seed {options.seed}; seconds per proof (both parts).",
        "",
        "Bouton, `witness` encoding (the default):",
        "",
        bouton_table(args.piles, args.bits, "witness", options),
        "",
        "Bouton, `quantified` encoding (the move universally quantified in the negation):",
        "",
        bouton_table(args.quantified_piles, args.quantified_bits, "quantified", options),
        "",
        "XOR rule (induction step), by value width:",
        "",
        xor_table(args.xor_bits, options),
    ]
    out = "\n".join(parts)
    print(out)
    if args.write:
        text = DOC.read_text()
        head, rest = text.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        DOC.write_text(f"{head}{BEGIN}\n{out}\n{END}{tail}")


if __name__ == "__main__":
    main()
