"""On random games of every semantics (cycles, self-loops, dead ends, targets with moves,
compact and ``.npz`` case files), the certificate of our verified answer is accepted by the
standalone checker, in both certificate encodings; and its proof fields are the ones the
definitions give (the ranks of M2 decrease along the moves they rely on, checked here again)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checker.check_certificate import check
from verifier import api
from verifier.games.random_graphs import random_case
from verifier.io import save_any
from verifier.model.report import CaseVerdict
from verifier.model.results import Verdict

SEMANTICS = ("minimax", "normal", "reachability", "impartial")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    sem=st.sampled_from(SEMANTICS),
    nodes=st.integers(1, 40),
    degree=st.sampled_from([0.5, 1.0, 2.0, 3.0]),
    seed=st.integers(0, 10_000),
    suffix=st.sampled_from([".json", ".npz"]),
    acyclic=st.booleans(),
)
def test_random_certificates_are_accepted(
    sem: str, nodes: int, degree: float, seed: int, suffix: str, acyclic: bool
) -> None:
    values = (-2, -1, 0, 1, 2.5) if sem == "minimax" else (-1, 0, 1)
    case = random_case(sem, nodes, degree, seed, values=values, acyclic=acyclic)
    with tempfile.TemporaryDirectory() as tmp:
        path = save_any(case, Path(tmp) / f"case{suffix}")
        cert = Path(tmp) / "cert.json"
        rep = api.verify(path, certificate=cert)
        assert rep.verdict is CaseVerdict.VERIFIED, rep.findings
        mine = [c for c in rep.checks if c.check == "certificate"]
        assert [c.verdict for c in mine] == [Verdict.CONFIRMED], mine
        doc = json.loads(cert.read_text())
        assert set(doc["nodes"]) == {case.graph.name(x) for x in range(case.graph.n)}
        npz = Path(tmp) / "cert.npz"
        api.verify(path, certificate=npz, self_check=True)
        assert check(str(path), str(npz)).status == "ACCEPTED"


def test_a_game_whose_case_file_codes_its_names(tmp_path: Path) -> None:
    """Connect Four's ``.npz`` holds its positions as a codec's codes: the certificate lists the
    names, which the standalone checker compares with its own decoding of the codes
    (tests/standalone/test_codecs.py), and the rest is checked as ever."""
    import numpy as np

    from verifier.games import connect4

    path = save_any(connect4.generate(3, 3), tmp_path / "c33.npz")
    cert = tmp_path / "c33.cert.npz"
    rep = api.verify(path, certificate=cert)
    assert rep.verdict is CaseVerdict.VERIFIED, rep.findings
    assert check(str(path), str(cert)).status == "ACCEPTED"
    with np.load(cert) as z:  # the names as an array of ASCII bytes beside the header
        doc, names = json.loads(bytes(z["header"].tobytes())), z["names"]
    assert names[0] == b".../.../..." and doc["line"][0] == ".../.../..." and "names" not in doc
    assert len(names) == rep.case.graph.n
    listed = tmp_path / "c33.cert.json"  # the .json encoding lists them in its header
    api.verify(path, certificate=listed)
    assert json.loads(listed.read_text())["names"][0] == ".../.../..."
    assert check(str(path), str(listed)).status == "ACCEPTED"
    doc = json.loads(listed.read_text())  # a name missing: refused, by both paths
    listed.write_text(json.dumps({**doc, "names": doc["names"][:-1]}))
    out = check(str(path), str(listed))
    assert out.status == "BAD" and "names" in out.message
    with np.load(cert) as z:
        arrays = {k: z[k] for k in z.files}
    np.savez(tmp_path / "short.cert.npz", **{**arrays, "names": arrays["names"][:-1]})
    out = check(str(path), str(tmp_path / "short.cert.npz"))
    assert out.status == "BAD" and "names" in out.message
