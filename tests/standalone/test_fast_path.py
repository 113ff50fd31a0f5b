"""The checker's numpy path (checker/fast.py) says what its plain path says: on ``.npz``
certificates of the corpus (cases saved as ``.npz``) and of random graphs, as written and with
single entries corrupted, both give the same status, position, condition and message."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import checker.fast as fast
from checker.check_certificate import Outcome, check
from verifier import api
from verifier.games.random_graphs import random_case
from verifier.io import load_any
from verifier.io.binary import save_npz
from verifier.model.report import CaseVerdict

CASES = Path(__file__).resolve().parents[2] / "cases"
SEMANTICS = ("normal", "reachability", "minimax")


def _plain(case: Path, cert: Path, answers: Path | None = None) -> Outcome:
    """The plain path's verdict (the numpy path told it does not apply)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(fast, "judge", lambda *a: None)
        return check(str(case), str(cert), None if answers is None else str(answers))


def _both(case: Path, cert: Path, answers: Path | None = None) -> Outcome:
    calls = []
    real = fast.judge

    def spy(*a: Any) -> Any:
        calls.append(1)
        return real(*a)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(fast, "judge", spy)
        out = check(str(case), str(cert), None if answers is None else str(answers))
    assert calls, "the numpy path was not asked"
    plain = _plain(case, cert, answers)
    if plain.status == "BAD":  # each path words an unreadable file its own way
        assert (out.status, out.condition) == ("BAD", "file"), (case.name, out, plain)
    else:
        assert out == plain, (case.name, out)
    return out


def _npz_cases(tmp: Path) -> list[Path]:
    out = []
    for path in sorted(CASES.glob("*.json")):
        case = load_any(path)
        if case.semantics.value in SEMANTICS:
            out.append(save_npz(case, tmp / f"{path.stem}.npz"))
    for k, sem in enumerate(SEMANTICS * 2):
        case = random_case(sem, 60, 2.5, seed=k)  # cycles, draws, self-loops
        out.append(save_npz(case, tmp / f"random-{sem}-{k}.npz"))
    return out


def _read(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def _corruptions(arrays: dict[str, np.ndarray], rng: random.Random) -> list[tuple[str, dict]]:
    n = len(arrays["value"])
    out = []
    for f in ("value", "remoteness", "move", "lfp", "gfp", "lfp_rank", "gfp_rank"):
        if f not in arrays:
            continue
        for x in rng.sample(range(n), min(n, 2)):
            for new in ({"value": (1, 0, -1), "lfp": (0.0, 1.0, -1.0), "gfp": (0.0, 1.0)}.get(
                f, (-1, 0, int(arrays[f][x]) + 1, rng.randrange(n)))):  # fmt: skip
                a = arrays[f].copy()
                if a[x] == new:
                    continue
                a[x] = new
                out.append((f"{f}[{x}] -> {new}", {**arrays, f: a}))
        out.append((f"{f} dropped", {k: v for k, v in arrays.items() if k != f}))
    head = json.loads(arrays["header"].tobytes())
    for key in ("won", "lost", "drawn", "longest_win"):
        h = json.loads(json.dumps(head))
        h["summary"][key] = (h["summary"][key] or 0) + 1
        out.append((f"summary.{key}", {**arrays, "header": _text(h)}))
    if head.get("line"):
        h = json.loads(json.dumps(head))
        h["line"] = h["line"][:-1]
        out.append(("line cut", {**arrays, "header": _text(h)}))
    return out


def _text(h: dict[str, Any]) -> np.ndarray:
    return np.frombuffer(json.dumps(h).encode(), dtype=np.uint8)


@pytest.mark.slow  # 20 s: the answer-file agreement below stays in the default run
def test_both_paths_agree_on_certificates_and_their_corruptions(tmp_path: Path) -> None:
    rng = random.Random(7)
    judged = rejected = 0
    for case in _npz_cases(tmp_path):
        cert = tmp_path / f"{case.stem}.cert.npz"
        rep = api.verify(case, certificate=cert)
        assert rep.verdict is CaseVerdict.VERIFIED, (case.name, rep.findings)
        assert _both(case, cert).status == "ACCEPTED"
        arrays = _read(cert)
        for what, changed in _corruptions(arrays, rng):
            bad = tmp_path / "bad.cert.npz"
            np.savez(bad, **changed)
            out = _both(case, bad)
            if what.startswith(("value", "summary", "line")):  # one answer is right
                assert out.status != "ACCEPTED", (case.name, what)
            judged += 1
            rejected += out.status == "REJECTED"
    print(f"{judged} certificates judged by both paths, {rejected} rejected")
    assert judged >= 500 and rejected >= judged // 2, (judged, rejected)


def test_both_paths_agree_on_answer_files(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from verifier.cli import app

    for case in _npz_cases(tmp_path)[-6:]:  # the random ones
        cert, ans = tmp_path / f"{case.stem}.cert.npz", tmp_path / f"{case.stem}.ans.npz"
        res = CliRunner().invoke(
            app, ["solve", str(case), "-o", str(ans), "--certificate", str(cert)]
        )
        assert res.exit_code == 0, res.output
        assert _both(case, cert, ans).status == "ACCEPTED"
        arrays = _read(ans)
        for f in ("value", "remoteness", "move"):
            a = arrays[f].copy()
            other = [v for v in np.unique(a) if v != a[3]]  # a value of the semantics
            a[3] = other[0] if f == "value" else a[3] + 1
            np.savez(tmp_path / "bad.ans.npz", **{**arrays, f: a})
            out = _both(case, cert, tmp_path / "bad.ans.npz")
            assert (out.status, out.condition) == ("REJECTED", "answers"), out
            np.savez(tmp_path / "bad.ans.npz", **{k: v for k, v in arrays.items() if k != f})
            assert _both(case, cert, tmp_path / "bad.ans.npz").status == "REJECTED"


def test_both_paths_agree_on_the_printed_csv(tmp_path: Path) -> None:
    """Issue 44 (4): the CSV ``verify --format csv`` prints is judged on the numpy path (a
    10^6-position answer in seconds, not minutes), with the plain path's verdicts: each cell
    changed, a row twice, a name of no position, a ragged row, the outcome word."""
    import io

    from verifier import api
    from verifier.writers.csv import solution_records, write_records

    judged = 0
    for case in _npz_cases(tmp_path)[-6:]:  # the random ones
        cert = tmp_path / f"{case.stem}.cert.npz"
        rep = api.verify(case, certificate=cert)
        assert rep.verdict is CaseVerdict.VERIFIED
        out = io.StringIO()
        write_records(solution_records(rep.solution), out)
        head, *rows = out.getvalue().splitlines()
        csv_file = tmp_path / f"{case.stem}.csv"
        csv_file.write_text(out.getvalue())
        assert _both(case, cert, csv_file).status == "ACCEPTED"
        cols = head.split(",")
        for k, name in enumerate(cols):
            cells = rows[3].split(",")
            swap = {"win": "loss", "loss": "win", "draw": "win", "won": "lost", "lost": "draw"}
            if name == "position":
                cells[k] = "no-such-position"
            elif cells[k] in swap:
                cells[k] = swap[cells[k]]
            elif cells[k] == "":
                cells[k] = "1"
            elif name == "move":
                cells[k] = rows[4].split(",")[0]
            else:
                cells[k] = str(float(cells[k]) + 1) if "." in cells[k] else str(int(cells[k]) + 1)
            bad = [*rows[:3], ",".join(cells), *rows[4:]]
            csv_file.write_text("\n".join([head, *bad]) + "\n")
            found = _both(case, cert, csv_file)
            assert found.status in ("REJECTED", "BAD"), (case.name, name, found)
            judged += 1
        for bad in ([rows[3], *rows], [*rows[:3], rows[3] + ",", *rows[4:]]):  # twice, ragged
            csv_file.write_text("\n".join([head, *bad]) + "\n")
            assert _both(case, cert, csv_file).status == "BAD"
    assert judged >= 18
