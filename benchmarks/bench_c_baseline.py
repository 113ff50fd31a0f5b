"""The C baseline of issue 18: whole-process ``verifier solve`` against a plain C retrograde
program on the same graph (run by hand, not in CI).

    .venv/bin/python benchmarks/bench_c_baseline.py                     # 10^6 nodes, 5 rounds
    .venv/bin/python benchmarks/bench_c_baseline.py --nodes 1000000 10000000 --repeat 3 --write

The graph: ``verifier generate random --semantics normal --nodes N --degree 4 --seed 0
--cyclic`` (random moves with cycles and self-loops, 10% dead ends, each dead end lost, won or
drawn at random). ``benchmarks/c/retrograde.c`` is compiled here with ``gcc -O2`` and reads the
case's two CSR arrays and the dead ends' labels as raw little-endian integers (written once
from the ``.npz``, not timed: the C program's input format); it builds the predecessor lists,
runs Knuth's retrograde analysis with one FIFO queue and writes label and remoteness per node,
as a whole process (``tests/engine/test_c_baseline.py`` compares it with the solvers).

Timed, in interleaved rounds after one unmeasured round (``benchtools.interleaved``):

- the C program, the baseline;
- ``verifier solve G.npz`` at its defaults (``--engine auto``: above 200,000 nodes the numpy
  and the compiled retrograde both run and are compared node by node; the readable summary);
- ``verifier solve G.npz --engine numpy``: the numpy engine alone (numba is not imported);
- ``verifier solve G.npz -o answers.npz``: the default engines, the answer file written (value,
  remoteness, move per node; ``--force`` replaces the last round's);
- ``verifier solve G.npz --engine compiled -o answers.npz``: one solver, the answer file;
- ``python -c 'import numpy'``: the floor of any run of the tool.

The C program's labels and remoteness are compared with the answer file's, node by node
(a mismatch stops the run). The issue's target: ``verifier solve`` within 2x the C program's
whole process at 10^6 nodes. ``--write`` puts the table between the ``bench-c-baseline``
markers of ``docs/benchmarks.md``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from benchtools import generate_random, interleaved, load_note, ratio_table, write_block

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "benchmarks.md"
SOURCE = ROOT / "benchmarks" / "c" / "retrograde.c"
BASE = "C retrograde"


def compile_c(out: Path) -> str:
    """``gcc -O2`` of the C program into ``out``; the compiler's version line."""
    gcc = shutil.which("gcc")
    if gcc is None:
        raise SystemExit("gcc not found: the C baseline needs a C compiler")
    subprocess.run([gcc, "-O2", "-o", str(out), str(SOURCE)], check=True)
    return subprocess.run([gcc, "--version"], capture_output=True, text=True).stdout.splitlines()[0]


def write_raw(case: Path, raw: Path) -> tuple[int, int]:
    """The C program's input from the case's arrays: int64 n, int64 m, int32 succ_ptr, int32
    succ_idx, int8 declared label of each dead end (0 elsewhere). Returns (n, m)."""
    with np.load(case) as z:
        ptr, idx = z["succ_ptr"].astype("<i4"), z["succ_idx"].astype("<i4")
        end = np.nan_to_num(z["value"], nan=0.0).astype(np.int8)
    n, m = len(ptr) - 1, len(idx)
    with raw.open("wb") as f:
        f.write(np.array([n, m], dtype="<i8").tobytes())
        f.write(ptr.tobytes())
        f.write(idx.tobytes())
        f.write(end.tobytes())
    return n, m


def compare(labels_file: Path, answers: Path, n: int) -> None:
    """Stop unless the C program's labels and remoteness equal the answer file's."""
    data = labels_file.read_bytes()
    label = np.frombuffer(data[:n], dtype=np.int8).astype(np.int64)
    rem = np.frombuffer(data[n:], dtype="<i4").astype(np.int64)
    with np.load(answers) as z:
        value, remoteness = z["value"], z["remoteness"]
    for what, ours, theirs in (("label", value, label), ("remoteness", remoteness, rem)):
        bad = np.flatnonzero(ours != theirs)
        if len(bad):
            i = int(bad[0])
            raise SystemExit(f"{what} differs at node {i}: verifier {ours[i]}, C {theirs[i]}")


def measure(nodes: int, repeat: int) -> tuple[str, list[str]]:
    """One graph of ``nodes`` positions: its description and the table of the timed rounds."""
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        case, raw, labels, answers = (tmp / f for f in ("g.npz", "g.bin", "c.bin", "a.npz"))
        proc, _, _ = generate_random("normal", nodes, 4.0, 0, case)
        if proc.returncode != 0:
            raise SystemExit(proc.stderr)
        n, m = write_raw(case, raw)
        exe = tmp / "retrograde"
        gcc = compile_c(exe)
        cli = [sys.executable, "-m", "verifier.cli", "solve", str(case)]
        limit = ["--max-positions", str(4 * (n + m))]
        commands = [
            (BASE, [str(exe), str(raw), str(labels)]),
            ("verifier solve G.npz", [*cli, *limit]),
            ("verifier solve G.npz --engine numpy", [*cli, *limit, "--engine", "numpy"]),
            ("verifier solve G.npz -o answers.npz", [*cli, *limit, "--force", "-o", str(answers)]),
            (
                "verifier solve G.npz --engine compiled -o answers.npz",
                [*cli, *limit, "--engine", "compiled", "--force", "-o", str(answers)],
            ),
            ("python -c 'import numpy'", [sys.executable, "-c", "import numpy"]),
        ]
        env = dict(os.environ)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        times = interleaved(commands, repeat, ROOT, env)
        compare(labels, answers, n)
    what = (
        f"A random normal-play graph of {n:,} positions and {m:,} moves ({gcc}); the C "
        "program's labels and remoteness equal the answer file's at every node:"
    )
    return what, ratio_table(times, BASE, "C")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--nodes", type=int, nargs="+", default=[1_000_000], help="graph sizes")
    ap.add_argument("--repeat", type=int, default=5, help="measured rounds (default 5)")
    ap.add_argument("--write", action="store_true", help="update docs/benchmarks.md")
    args = ap.parse_args()
    lines = [
        f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} with "
        f"`.venv/bin/python benchmarks/bench_c_baseline.py --nodes "
        f"{' '.join(map(str, args.nodes))} --repeat {args.repeat}` (load average at the start: "
        f"{load_note()})."
    ]
    for nodes in args.nodes:
        what, rows = measure(nodes, args.repeat)
        lines += ["", what, "", *rows]
    print(*lines, sep="\n")
    if args.write:
        begin, end = "<!-- bench-c-baseline:begin -->", "<!-- bench-c-baseline:end -->"
        write_block(DOC, begin, end, "\n".join([begin, *lines, end]))


if __name__ == "__main__":
    main()
