"""Memory per position of the big-game path (generate, load, solve), measured by tracemalloc:
numpy registers every array it allocates there, so the numbers are exact and do not depend on
the machine's load (unlike times, which belong in ``benchmarks/``). Connect Four 4x4 (161,029
positions) stands for the big boards: the bytes per position are the same on 5x4 (38 and 54)
and they are what decides whether 6x4 (94,910,577 positions) fits in 8 GiB. Storing the
successor ids as int64 again raises them to 49 and 68 bytes, over these bounds."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

from verifier.claims import run_with_claims
from verifier.games import connect4
from verifier.io.answers import load_answers, save_answers
from verifier.io.binary import load_npz, save_npz
from verifier.pipeline import run_case
from verifier.registry import Options

GENERATE_BYTES = 42  # per position, traced peak of generate (measured 38.1)
SOLVE_BYTES = 60  # per position, traced peak of load + solve with the compiled engine (53.4)
ANSWER_BYTES = 20  # per position, traced peak of writing the answer .npz (16.1; 40 when every
# column was made before the first was written)
LINEAR_BYTES = 135  # per position, traced peak of load + answers + the linear certificate
# (122.1; 154.9 when the checks gathered per-edge int64 and row-start arrays)


def _peak(run: object) -> float:
    tracemalloc.start()
    try:
        run()  # type: ignore[operator]
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_generate_load_and_solve_stay_within_their_bytes_per_position(tmp_path: Path) -> None:
    options = Options(engine="compiled")
    run_case(connect4.generate(3, 4), options, smt=False)  # kernels loaded before measuring
    n = connect4.generate(4, 4).graph.n
    assert n == 161_029
    made = []
    per_position = _peak(lambda: made.append(connect4.generate(4, 4))) / n
    assert per_position <= GENERATE_BYTES, f"generate: {per_position:.1f} B/position"
    save_npz(made.pop(), tmp_path / "c.npz")

    def solve() -> None:
        report = run_case(load_npz(tmp_path / "c.npz"), options, smt=False)
        assert report.summary["won"] == 38_675 and report.summary["drawn"] == 90_120

    per_position = _peak(solve) / n
    assert per_position <= SOLVE_BYTES, f"load + solve: {per_position:.1f} B/position"


def test_answer_file_written_one_column_at_a_time(tmp_path: Path) -> None:
    case = connect4.generate(4, 4)
    report = run_case(case, Options(engine="compiled"), smt=False)
    assert report.solution is not None
    path = tmp_path / "answers.npz"
    per_position = _peak(lambda: save_answers(report.solution, case, path)) / case.graph.n
    assert per_position <= ANSWER_BYTES, f"answers: {per_position:.1f} B/position"
    back = load_answers(path, case)
    assert back.given.all() and int((back.values == 0).sum()) == 90_120  # the drawn positions
    assert "remoteness" in back and "move" in back


def test_linear_certificate_stays_within_its_bytes_per_position(tmp_path: Path) -> None:
    options = Options(engine="compiled", linear=True)
    for w, name in ((3, "small"), (4, "big")):  # the 3x4 run loads the kernels and the checks
        case = connect4.generate(w, 4)
        report = run_case(case, Options(engine="compiled"), smt=False)
        assert report.solution is not None
        save_npz(case, tmp_path / f"{name}.npz")
        save_answers(report.solution, case, tmp_path / f"{name}-answers.npz")
    verdicts = []

    def certify(name: str) -> None:
        case = load_npz(tmp_path / f"{name}.npz")
        claims = load_answers(tmp_path / f"{name}-answers.npz", case)
        verdicts.append(run_with_claims(case, options, claims).verdict)

    certify("small")
    per_position = _peak(lambda: certify("big")) / 161_029
    assert per_position <= LINEAR_BYTES, f"linear certificate: {per_position:.1f} B/position"
    assert [v.value for v in verdicts] == ["verified", "verified"]
