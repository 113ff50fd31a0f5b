"""Chess endgames of up to four men from the command line: generate, solve, verify; the table of
``docs/games.md`` (section *Chess endgames of up to four men*).

Usage::

    .venv/bin/python benchmarks/bench_chess.py                 # KPK, KQKR, KBNK, KRKP
    .venv/bin/python benchmarks/bench_chess.py KPK KQKQ        # other materials
    .venv/bin/python benchmarks/bench_chess.py --write         # also update docs/games.md

Each endgame runs as a user would: ``verifier generate chess:M [--symmetry] -o M.npz``,
``verifier solve M.npz -o M-answers.npz`` (both in-memory solvers, compared), then ``verifier
verify M.npz --answers M-answers.npz --linear`` (the checks without Z3), each a process of its
own, timed whole with its peak resident memory (``/usr/bin/time``). Materials with pawns are
measured without symmetry when they are small (KPK) and with the mirror a<->h otherwise; the
pawnless four-man ones with the 8 symmetries of the board. The counts, the longest win per side
to move and its FEN come from the solve's JSON report.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from benchtools import load_note, run_cli, write_block

DOC = Path(__file__).resolve().parent.parent / "docs" / "games.md"
BEGIN, END = "<!-- bench_chess: begin -->", "<!-- bench_chess: end -->"
PLAIN = {"KPK", "KQK", "KRK"}
"""Endgames measured without symmetry (small enough); the others with it."""


def measure(material: str, tmp: Path) -> dict[str, object]:
    sym = material not in PLAIN
    case, answers = tmp / f"{material}.npz", tmp / f"{material}-answers.npz"
    steps: dict[str, tuple[float, int]] = {}
    gen = ["generate", f"chess:{material}", "-o", str(case)] + (["--symmetry"] if sym else [])
    report = tmp / f"{material}.json"
    for name, args in (
        ("generate", gen),
        ("solve", ["solve", str(case), "-o", str(answers), "--json", "--no-values"]),
        ("verify --linear", ["verify", str(case), "--answers", str(answers), "--linear"]),
    ):
        proc, secs, peak_kb = run_cli(args)
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(args)}: exit {proc.returncode}\n{proc.stderr[-2000:]}")
        if name == "solve":
            report.write_text(proc.stdout)
        if name == "verify --linear" and "VERIFIED" not in proc.stdout:
            raise SystemExit(f"{material}: not verified\n{proc.stdout[-2000:]}")
        steps[name] = (secs, peak_kb)
    summary = _summary(json.loads(report.read_text()))
    return {"material": material, "symmetry": sym, "steps": steps, "summary": summary}


def _summary(doc: dict[str, object]) -> dict[str, object]:
    cases = doc["cases"] if isinstance(doc, dict) and "cases" in doc else [doc]
    out: dict[str, object] = cases[0]["summary"]  # type: ignore[index]
    return out


def table(rows: list[dict[str, object]]) -> str:
    lines = [
        "| endgame | symmetry | nodes | positions, all materials | moves "
        "| the endgame's positions, White to move: won / lost / drawn "
        "| Black to move: won / lost / drawn | longest win, White to move "
        "| longest win, Black to move | generate s / GB | solve s / GB | "
        "verify --linear s / GB |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        s = r["summary"]
        assert isinstance(s, dict)
        sym = s.get("symmetry") or s
        chess = s.get("chess") or {}

        def win(side: str, chess: dict[str, object] = chess) -> str:
            w = chess.get(side)
            if not isinstance(w, dict):
                return "none"
            return f"mate in {w['mate_in']} ({w['plies']} plies): `{w['examples'][0]}`"

        steps = r["steps"]
        assert isinstance(steps, dict)
        cells = [f"{secs:.1f} / {kb / 2**20:.2f}" for secs, kb in steps.values()]
        own = chess["materials"][r["material"]]  # type: ignore[index]
        wdl = [f"{own[x]['won']:,} / {own[x]['lost']:,} / {own[x]['drawn']:,}" for x in own]
        lines.append(
            f"| {r['material']} | {'yes' if r['symmetry'] else 'no'} | {s['positions']:,} | "
            f"{sym['positions']:,} | {s['moves']:,} | {wdl[0]} | {wdl[1]} | {win('white')} | "
            f"{win('black')} | " + " | ".join(cells) + " |"
        )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("materials", nargs="*", default=["KPK", "KQKR", "KBNK", "KRKP"])
    ap.add_argument("--write", action="store_true", help="update docs/games.md")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as d:
        for m in args.materials:
            rows.append(measure(m, Path(d)))
            print(json.dumps(rows[-1], default=str), file=sys.stderr, flush=True)
    text = table(rows)
    note = f"Measured on this project's 2-core machine (load averages {load_note()})."
    print(text)
    if args.write:
        write_block(DOC, BEGIN, END, f"{BEGIN}\n{text}\n\n{note}\n{END}")


if __name__ == "__main__":
    main()
