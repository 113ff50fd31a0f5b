"""The checker against a forger (issue 43, items 2-4, 6, 7), on certificates the package writes
afresh in each test: an ``.npz`` file without numpy is one line and exit 2; a uniqueness claim
needs a proof the checker replays, or rests on Z3 only above the size where no proof is written
(the checker counts the clauses itself); a repeated JSON key is BAD naming it, in the checker
and in the package's readers; fractional entries of an ``.npz`` certificate are BAD, not
truncated; a position answered twice in an answer file is BAD, as ``verify --answers`` says."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

import checker.drup
import checker.fast as fast
from checker.check_certificate import Outcome, check
from verifier import api
from verifier.cli import app
from verifier.io import load_any
from verifier.io.binary import save_npz
from verifier.model.report import CaseVerdict

CASES = Path(__file__).resolve().parents[2] / "cases"
CHECKER = Path(__file__).resolve().parents[2] / "checker" / "check_certificate.py"
runner = CliRunner()


def _fresh(
    tmp: Path, stem: str, npz: bool = False, cert_suffix: str = ".json"
) -> tuple[Path, Path]:
    """A corpus case (as ``.npz`` when asked) and the certificate ``verify`` writes for it."""
    case = CASES / f"{stem}.json"
    if npz:
        case = save_npz(load_any(case), tmp / f"{stem}.npz")
    cert = tmp / f"{stem}.cert{cert_suffix}"
    rep = api.verify(case, certificate=cert)
    assert rep.verdict is CaseVerdict.VERIFIED, rep.findings
    assert check(str(case), str(cert)).status == "ACCEPTED"
    return case, cert


def _arrays(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def _header(a: dict[str, np.ndarray]) -> dict[str, Any]:
    return dict(json.loads(a["header"].tobytes()))


def _text(raw: str) -> np.ndarray:
    return np.frombuffer(raw.encode(), dtype=np.uint8)


def _judge(case: Path, cert: Path, answers: Path | None = None, *, numpy_path: bool) -> Outcome:
    """The checker's verdict, asserting which path judged."""
    calls: list[Any] = []
    real = fast.judge

    def spy(*a: Any) -> Any:
        found = real(*a)
        calls.append(found)
        return found

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(fast, "judge", spy)
        out = check(str(case), str(cert), None if answers is None else str(answers))
    assert (bool(calls) and calls[0] is not None) == numpy_path, calls
    return out


# ------------------------------------------------------------------ item 2: numpy missing
@pytest.mark.parametrize("case_npz", [True, False])
def test_an_npz_file_without_numpy_is_one_line_and_exit_2(tmp_path: Path, case_npz: bool) -> None:
    case, cert = _fresh(tmp_path, "knuth-cycle-with-exit", npz=case_npz, cert_suffix=".npz")
    blocked = (  # the checker run as a script, with every ``import numpy`` failing
        "import runpy, sys; sys.modules['numpy'] = None; "
        f"sys.path.insert(0, {str(CHECKER.parent)!r}); "
        f"sys.argv = ['check_certificate.py', {str(case)!r}, {str(cert)!r}]; "
        f"runpy.run_path({str(CHECKER)!r}, run_name='__main__')"
    )
    r = subprocess.run([sys.executable, "-c", blocked], capture_output=True, text=True, check=False)
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr and r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "numpy is needed to read .npz files" in lines[0], r.stderr


# ---------------------------------------------------------------- item 3: uniqueness proofs
@pytest.mark.parametrize(
    "stem", ["knuth-pure-cycle", "kars-figure1-b-lt-d", "impartial-loopy-smith"]
)
def test_a_uniqueness_claim_without_its_proof_is_bad(tmp_path: Path, stem: str) -> None:
    case, cert = _fresh(tmp_path, stem)
    doc = json.loads(cert.read_text())
    claim = doc["uniqueness"]["claim"]
    for said in (claim, "not unique" if claim == "unique" else "unique"):  # true and false
        for u in (
            {"claim": said, "proof": None},
            {"claim": said},
            {"claim": said, "proof": "rests-on-z3", "reason": "Z3 says so"},  # a small case
        ):
            cert.write_text(json.dumps(doc | {"uniqueness": u}))
            out = check(str(case), str(cert))
            assert (out.status, out.condition) == ("BAD", "file"), (u, out)
            assert "$.uniqueness" in out.message, out.message
    cert.write_text(json.dumps(doc | {"uniqueness": {"proof": None}}))  # a block, no claim
    assert check(str(case), str(cert)).status == "BAD"
    del doc["uniqueness"]  # no claim at all: nothing to prove
    cert.write_text(json.dumps(doc))
    assert check(str(case), str(cert)).message == "ACCEPTED"


@pytest.mark.parametrize("stem", ["knuth-pure-cycle", "impartial-loopy-smith"])
def test_a_claim_rests_on_z3_only_above_the_limit(
    tmp_path: Path, stem: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    case, cert = _fresh(tmp_path, stem)
    doc = json.loads(cert.read_text())
    doc["uniqueness"] = {"claim": doc["uniqueness"]["claim"], "proof": "rests-on-z3"}
    doc["uniqueness"]["reason"] = "more than the limit's clauses"
    cert.write_text(json.dumps(doc))
    out = check(str(case), str(cert))
    assert out.status == "BAD" and "rests-on-z3 where a proof is required" in out.message
    monkeypatch.setattr(checker.drup, "Z3_LIMIT", 5)  # the case is now above the limit
    assert check(str(case), str(cert)).message == "ACCEPTED (uniqueness rests on Z3)"


def test_the_numpy_path_holds_the_same_uniqueness_rule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for stem in ("knuth-pure-cycle", "kars-figure1-b-lt-d"):
        case, cert = _fresh(tmp_path, stem, npz=True, cert_suffix=".npz")
        arrays = _arrays(cert)
        head = _header(arrays)
        claim = head["uniqueness"]["claim"]
        for u in (
            {"claim": claim, "proof": None},
            {"claim": claim},
            {"claim": "unique", "proof": None},
            {"claim": claim, "proof": "rests-on-z3", "reason": "Z3 says so"},
        ):
            np.savez(cert, **{**arrays, "header": _text(json.dumps(head | {"uniqueness": u}))})
            out = _judge(case, cert, numpy_path=True)
            assert (out.status, out.condition) == ("BAD", "file"), (stem, u, out)
            assert "$.uniqueness" in out.message, out.message
        if stem == "knuth-pure-cycle":
            monkeypatch.setattr(checker.drup, "Z3_LIMIT", 5)
            out = _judge(case, cert, numpy_path=True)
            assert out.message == "ACCEPTED (uniqueness rests on Z3)", out
            monkeypatch.undo()


# -------------------------------------------------------------- item 4: duplicate JSON keys
def test_a_repeated_key_in_a_certificate_is_bad_naming_it(tmp_path: Path) -> None:
    case, cert = _fresh(tmp_path, "knuth-cycle-with-exit")
    doc = json.loads(cert.read_text())
    assert doc["nodes"]["x"]["value"] == "lost"
    # a wrong entry first, the right one last (which a last-wins reader keeps)
    nodes = json.dumps(doc["nodes"])
    forged = nodes.replace('"x": {', '"x": {"value": "won", ', 1)
    cert.write_text(json.dumps(doc).replace(nodes, forged))
    out = check(str(case), str(cert))
    assert out.status == "BAD", out
    assert "$.nodes.x: duplicate key 'value'" in out.message, out.message
    u = json.dumps(doc["uniqueness"])  # a false claim first, then the true one
    wrong = json.dumps({"claim": "not unique", "proof": "witness", "witness": {}})
    cert.write_text(
        json.dumps(doc).replace(f'"uniqueness": {u}', f'"uniqueness": {wrong}, "uniqueness": {u}')
    )
    out = check(str(case), str(cert))
    assert out.status == "BAD" and "$: duplicate key 'uniqueness'" in out.message, out.message


def test_a_repeated_key_in_a_case_or_answer_file_is_bad(tmp_path: Path) -> None:
    case, cert = _fresh(tmp_path, "knuth-cycle-with-exit")
    raw = case.read_text()
    twice = tmp_path / "twice.json"
    twice.write_text(raw.replace('"z": {}', '"z": {}, "z": {"moves": ["x"]}'))
    out = check(str(twice), str(cert))
    assert out.status == "BAD" and "$.nodes: duplicate key 'z'" in out.message, out.message
    answers = tmp_path / "a.json"
    r = runner.invoke(
        app, ["solve", str(case), "-o", str(answers), "--certificate", str(cert), "--force"]
    )
    assert r.exit_code == 0, r.output
    doc = json.loads(answers.read_text())
    right = json.dumps(doc["nodes"]["x"])
    answers.write_text(
        json.dumps(doc).replace(f'"x": {right}', f'"x": {{"value": "won"}}, "x": {right}')
    )
    out = check(str(case), str(cert), str(answers))
    assert out.status == "BAD" and "$.nodes: duplicate key 'x'" in out.message, out.message
    # the package's readers say the same: one line naming the file, the path and the key
    for args, where in (
        (["verify", str(twice)], "$.nodes.z"),
        (["verify", str(case), "--answers", str(answers)], "$.nodes.x"),
    ):
        proc = subprocess.run(
            [sys.executable, "-m", "verifier.cli", *args], capture_output=True, text=True,
            check=False,
        )  # fmt: skip
        assert proc.returncode == 2, proc.stdout + proc.stderr
        said = (proc.stdout + proc.stderr).strip().splitlines()
        assert len(said) == 1 and "Traceback" not in said[0], said
        assert where in said[0] and "duplicate key" in said[0], said


def test_a_repeated_key_in_an_npz_header_is_bad_on_both_paths(tmp_path: Path) -> None:
    case, cert = _fresh(tmp_path, "knuth-cycle-with-exit", npz=True, cert_suffix=".npz")
    arrays = _arrays(cert)
    raw = arrays["header"].tobytes().decode()
    head = json.loads(raw)
    wrong = json.dumps({**head["summary"], "won": head["summary"]["won"] + 1})
    forged = raw.replace('"summary":', f'"summary": {wrong}, "summary":', 1)
    np.savez(cert, **{**arrays, "header": _text(forged)})
    out = _judge(case, cert, numpy_path=True)
    assert out.status == "BAD" and "$: duplicate key 'summary'" in out.message, out.message
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(fast, "judge", lambda *a: None)
        out = check(str(case), str(cert))
    assert out.status == "BAD" and "$: duplicate key 'summary'" in out.message, out.message


# --------------------------------------------------------------- item 6: fractional entries
def test_fractional_entries_of_an_npz_certificate_are_bad(tmp_path: Path) -> None:
    # the plain path (impartial): a Grundy value 2.9 and a counter 1.5
    case, cert = _fresh(tmp_path, "impartial-subtraction-1-2-3", npz=True, cert_suffix=".npz")
    arrays = _arrays(cert)
    x = int(np.argmax(arrays["value"]))
    assert arrays["value"][x] >= 1
    for f, delta in (("value", 0.9), ("counter", 0.5)):
        a = arrays[f].astype(np.float64)
        a[x] += delta
        np.savez(cert, **{**arrays, f: a})
        out = _judge(case, cert, numpy_path=False)
        assert out.status == "BAD" and "is not an integer" in out.message, (f, out)
    # the numpy path (normal, minimax): a remoteness 3.7, a rank 0.5
    for stem, f in (("knuth-cycle-with-exit", "remoteness"), ("kars-figure1-b-lt-d", "lfp_rank")):
        case, cert = _fresh(tmp_path, stem, npz=True, cert_suffix=".npz")
        arrays = _arrays(cert)
        a = arrays[f].astype(np.float64)
        x = int(np.argmax(a))
        a[x] += 0.7
        np.savez(cert, **{**arrays, f: a})
        out = _judge(case, cert, numpy_path=True)
        assert out.status == "BAD" and "is not an integer" in out.message, (stem, out)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(fast, "judge", lambda *a: None)
            out = check(str(case), str(cert))
        assert out.status == "BAD" and "is not an integer" in out.message, (stem, out)


# ------------------------------------------------------------ item 7: a position twice
def test_a_position_answered_twice_is_bad(tmp_path: Path) -> None:
    case, cert = _fresh(tmp_path, "knuth-cycle-with-exit")
    csv_file = tmp_path / "a.csv"
    r = runner.invoke(
        app, ["solve", str(case), "-o", str(csv_file), "--certificate", str(cert), "--force"]
    )
    assert r.exit_code == 0, r.output
    head, *rows = csv_file.read_text().splitlines()
    x_row = next(row for row in rows if row.startswith("x,"))
    wrong = x_row.replace(",lost,", ",won,")
    csv_file.write_text("\n".join([head, wrong, *rows]) + "\n")  # wrong first, then right
    out = check(str(case), str(cert), str(csv_file))
    assert out.status == "BAD" and "duplicate entry for position 'x'" in out.message, out
    proc = subprocess.run(
        [sys.executable, "-m", "verifier.cli", "verify", str(case), "--answers", str(csv_file)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert proc.returncode == 2 and "duplicate entry for position 'x'" in proc.stdout + proc.stderr
    # .npz answers, on both paths: the row of x again, wrong, before the right one
    for npz_case in (False, True):
        case, cert = _fresh(tmp_path, "knuth-cycle-with-exit", npz=npz_case, cert_suffix=".npz")
        ans = tmp_path / f"a{int(npz_case)}.npz"
        r = runner.invoke(
            app, ["solve", str(case), "-o", str(ans), "--certificate", str(cert), "--force"]
        )
        assert r.exit_code == 0, r.output
        arrays = _arrays(ans)
        twice = {k: np.concatenate([v[:1], v]) if k != "header" else v for k, v in arrays.items()}
        twice["value"][0] = -twice["value"][0] if twice["value"][0] else 1
        np.savez(ans, **twice)
        out = _judge(case, cert, ans, numpy_path=npz_case)
        assert out.status == "BAD" and "duplicate entry for position" in out.message, out
