"""The checker names a coded case's positions itself (checker/name_codecs.py): its names and
class sizes are the package's, position by position, and a certificate whose names or counts
over all positions are not the case's is refused, on both paths and with ``--answers``.
Forgeries are made here from fresh certificates (the case's digest recomputed where the case
is changed), so a change of format cannot make them pass by accident."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import checker.fast as fast
from checker import name_codecs
from checker.check_certificate import Outcome, check
from verifier import api
from verifier.games import chess, connect4
from verifier.games._board import LazyNames
from verifier.io.binary import save_npz
from verifier.model.report import CaseVerdict


def _decoded(codec: str, codes: Any) -> tuple[list[bytes], Any]:
    names = name_codecs.Names(codec, codes, len(codes))
    return [x for _, b in names.blocks() for x in b.tolist()], names.sizes


# ------------------------------------------------------------------- the package's names
@pytest.mark.parametrize(("width", "height"), [(4, 4), (4, 3)])
@pytest.mark.parametrize("symmetry", [False, True])
def test_connect4_names_and_class_sizes_are_the_packages(
    width: int, height: int, symmetry: bool
) -> None:
    names = connect4.generate(width, height, symmetry=symmetry).graph.names
    assert isinstance(names, LazyNames)
    mine, sizes = _decoded(str(names.codec), names.codes)
    assert [x.decode() for x in mine] == list(names)  # every position
    if symmetry:
        assert names.codec == f"connect4:{width}x{height}:symmetric"
        assert sizes is not None and sizes.tolist() == connect4.orbit_sizes(names).tolist()
    else:
        assert sizes is None


def test_connect4_5x4_sample_names_and_sizes() -> None:
    """20,000 random boards of 5x4 (each column's stones below its marker bit), and their
    classes under the mirror."""
    rng = np.random.default_rng(5)
    board = connect4.Board(5, 4)
    heights, stones = rng.integers(0, 5, (20_000, 5)), rng.integers(0, 16, (20_000, 5))
    cols = (stones & ((1 << heights) - 1)) | (1 << heights)
    codes = np.unique((cols << (5 * np.arange(5))).sum(axis=1).astype(np.uint64))
    mine, _ = _decoded("connect4:5x4", codes)
    assert mine == board.names(codes).tolist()
    least = np.unique(np.minimum(codes, board.mirror(codes)))
    lazy = LazyNames(least, board.name, board.names, codec="connect4:5x4:symmetric")
    mine, sizes = _decoded("connect4:5x4:symmetric", least)
    assert mine == board.names(least).tolist()
    assert sizes.tolist() == connect4.orbit_sizes(lazy).tolist()
    with pytest.raises(ValueError, match="is no connect4:5x4:symmetric position"):
        name_codecs.Names("connect4:5x4:symmetric", np.sort(codes), len(codes))  # a mirror's
    tall = connect4.Board(2, 17)  # columns above 16 bits: decoded without a table
    heights, stones = rng.integers(0, 18, (2000, 2)), rng.integers(0, 1 << 17, (2000, 2))
    cols = (stones & ((1 << heights) - 1)) | (1 << heights)
    codes = np.unique((cols << (18 * np.arange(2))).sum(axis=1).astype(np.uint64))
    assert _decoded("connect4:2x17", codes)[0] == tall.names(codes).tolist()


@pytest.mark.parametrize(("material", "symmetry"), [("KQK", False), ("KQK", True), ("KPK", True)])
def test_chess_names_and_class_sizes_are_the_packages(material: str, symmetry: bool) -> None:
    """Every position of the case: 375,676 (KQK), 47,061 classes (KQK), 368,792 (KPK)."""
    case = chess.generate(material, symmetry=symmetry)
    names = case.graph.names
    assert isinstance(names, LazyNames)
    mine, sizes = _decoded(str(names.codec), names.codes)
    theirs = names.encoded(0, len(names))
    assert theirs is not None and mine == theirs.tolist()
    if symmetry:
        want = chess.orbit_sizes(case)
        assert sizes is not None and want is not None and sizes.tolist() == want.tolist()
        assert len(set(sizes.tolist())) > 1 and set(sizes.tolist()) <= {1, 2, 4, 8}


@pytest.mark.parametrize("symmetric", [False, True])
def test_chess_legality_and_en_passant_are_the_packages(symmetric: bool) -> None:
    """KPKP codes around en passant (every file, either side to move, the capturing pawn on
    its fifth rank): the codes the package's kernels call positions (legal, the least of their
    class) are exactly those the checker accepts, and their FENs agree."""
    from verifier.games import _chess_kernels as ck

    t = chess.tiers("KPKP", symmetric)
    men, k, group = t.men[0], int(t.k[0]), int(t.group[0])
    codec = "chess:KPKP" + (":symmetric" if symmetric else "")
    game = name_codecs.Names(codec, np.zeros(0, np.uint64), 0).game
    legal = 0
    for side in (0, 1):
        for ep in range(9):
            pawn = (4 if side == 0 else 3) * 8  # White's pawn (second man) on that rank
            lo = ((ep * 2 + side) * 64 + 4) * 64**3 + pawn * 64**2
            keep = ck.tier_positions_range(k, men, group, lo, lo + 8 * 64**2)
            codes = np.arange(lo, lo + 8 * 64**2, dtype=np.uint64)
            bad, _ = game.check(codes)
            assert (~bad).tolist() == keep.tolist(), (side, ep)
            good = codes[keep].astype(np.int64)
            fens = ck.fens(good, t.base, t.k, t.men).view(f"S{ck.FEN_BYTES}").ravel()
            assert game.names(codes[keep]).tolist() == fens.tolist()
            legal += len(good) if ep else 0
    assert legal > 500  # en-passant positions were among them


@pytest.mark.parametrize(
    ("codec", "codes", "why"),
    [
        ("connect4:4x3", [1, 1, 1, 1], "is no connect4:4x3 position"),  # no marker bit
        ("connect4:1x1", [1, 2, 2], "two positions share a code"),
        ("chess:KQK", [5], "is no chess:KQK position"),  # White's king and queen on a1
        ("chess:KQK", [2 * 64**3 + 2 * 64**2], "is no chess:KQK position"),  # beyond the tiers
        ("checkers:8x8", [1], "is unknown"),
        ("chess:KQKQQ", [1], "is unknown"),
    ],
)
def test_codes_that_are_no_position(codec: str, codes: list[int], why: str) -> None:
    with pytest.raises(ValueError, match=why):
        name_codecs.Names(codec, np.array(codes, np.uint64), len(codes))


# ------------------------------------------------------------------------- forgeries
def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _arrays(path: Path) -> dict[str, Any]:
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def _header(arrays: dict[str, Any]) -> Any:
    return json.loads(bytes(arrays["header"].tobytes()))


def _with_header(arrays: dict[str, Any], head: Any) -> dict[str, Any]:
    return {**arrays, "header": np.frombuffer(json.dumps(head).encode(), np.uint8)}


def _swapped(doc: Any, a: str, b: str) -> Any:
    """Every string ``a`` of a JSON document made ``b`` and back (keys too)."""
    if isinstance(doc, dict):
        return {_swapped(k, a, b): _swapped(v, a, b) for k, v in doc.items()}
    if isinstance(doc, list):
        return [_swapped(v, a, b) for v in doc]
    return {a: b, b: a}.get(doc, doc) if isinstance(doc, str) else doc


def _both(case: Path, cert: Path, answers: Path | None = None) -> tuple[Outcome, Outcome]:
    """The numpy path's outcome (where it applies: ``.npz`` files) and the plain path's."""
    got = check(str(case), str(cert), None if answers is None else str(answers))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(fast, "judge", lambda *a: None)
        plain = check(str(case), str(cert), None if answers is None else str(answers))
    return got, plain


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Connect Four 4x3 with symmetry, stored with its codes, and fresh certificates and
    answer files of it (``solve -o ... --certificate ...``)."""
    from typer.testing import CliRunner

    from verifier.cli import app

    tmp = tmp_path_factory.mktemp("coded")
    case = save_npz(connect4.generate(4, 3, symmetry=True), tmp / "c43.npz")
    out = {"case": case}
    for ext in ("npz", "json"):
        cert, ans = tmp / f"c43.cert.{ext}", tmp / f"c43.ans.{ext}"
        res = CliRunner().invoke(
            app, ["solve", str(case), "-o", str(ans), "--certificate", str(cert)]
        )
        assert res.exit_code == 0, res.output
        out[f"cert.{ext}"], out[f"ans.{ext}"] = cert, ans
    return out


def _won_and_lost(made: dict[str, Path]) -> tuple[int, int]:
    value = _arrays(made["cert.npz"])["value"]
    return int(np.flatnonzero(value == 1)[3]), int(np.flatnonzero(value == -1)[3])


def test_fresh_certificates_are_accepted_with_their_counts(made: dict[str, Path]) -> None:
    for ext in ("npz", "json"):
        for out in _both(made["case"], made[f"cert.{ext}"], made[f"ans.{ext}"]):
            assert out.status == "ACCEPTED", (ext, out)
    counts = _header(_arrays(made["cert.npz"]))["summary"]["symmetry"]
    assert counts["classes"] == 6027 and counts["positions"] == 12031
    assert counts["won"] + counts["lost"] + counts["drawn"] == 12031


def test_names_swapped_in_an_npz_certificate(made: dict[str, Path], tmp_path: Path) -> None:
    """A won and a lost position trade names (the answer file by ids as written)."""
    x, y = _won_and_lost(made)
    arrays = _arrays(made["cert.npz"])
    names = arrays["names"].copy()
    names[[x, y]] = names[[y, x]]
    bad = tmp_path / "swapped.cert.npz"
    np.savez(bad, **{**arrays, "names": names})
    first = connect4.position_name(4, 3, int(_arrays(made["case"])["name_codes"][min(x, y)]))
    for answers in (None, made["ans.npz"]):
        for out in _both(made["case"], bad, answers):
            assert (out.status, out.condition, out.position) == ("REJECTED", "names", first)


def test_names_swapped_in_a_json_certificate_and_answers(
    made: dict[str, Path], tmp_path: Path
) -> None:
    """The names of a won and a lost position swapped everywhere in the certificate (its list,
    its entries, the moves naming them) and in the JSON answer file."""
    x, y = _won_and_lost(made)
    doc = json.loads(made["cert.json"].read_text())
    a, b = doc["names"][x], doc["names"][y]
    bad, ans = tmp_path / "swapped.cert.json", tmp_path / "swapped.ans.json"
    bad.write_text(json.dumps(_swapped(doc, a, b)))
    ans.write_text(json.dumps(_swapped(json.loads(made["ans.json"].read_text()), a, b)))
    for answers in (None, ans):
        out = check(str(made["case"]), str(bad), None if answers is None else str(answers))
        assert (out.status, out.condition) == ("REJECTED", "names"), out
        assert out.position == (a if x < y else b)


def _recoded(made: dict[str, Path], tmp: Path, codes: Any = None, codec: str | None = None) -> Path:
    """The case with other codes or another codec, and its certificates' digest made the new
    file's: ``case.npz``, ``cert.npz``, ``cert.json``."""
    arrays = _arrays(made["case"])
    head = _header(arrays) | ({} if codec is None else {"name_codec": codec})
    case = tmp / "case.npz"
    np.savez(case, **_with_header(arrays, head) | ({} if codes is None else {"name_codes": codes}))
    cert = _arrays(made["cert.npz"])
    h = _header(cert)
    h["case"]["sha256"] = _sha(case)
    np.savez(tmp / "cert.npz", **_with_header(cert, h))
    doc = json.loads(made["cert.json"].read_text())
    doc["case"]["sha256"] = _sha(case)
    (tmp / "cert.json").write_text(json.dumps(doc))
    return case


@pytest.mark.parametrize("what", ["no position", "a repeat", "a mirror's", "unknown codec"])
def test_a_case_whose_codes_are_no_positions_is_bad(
    made: dict[str, Path], tmp_path: Path, what: str
) -> None:
    codes = _arrays(made["case"])["name_codes"].copy()
    codec = None
    if what == "no position":
        codes[40] = np.uint64(1 << 20)  # no marker bit in the first columns
    elif what == "a repeat":
        codes[40] = codes[39]
    elif what == "a mirror's":
        board = connect4.Board(4, 3)
        at = int(np.flatnonzero(board.mirror(codes) != codes)[0])
        codes[at] = board.mirror(codes[at : at + 1])[0]
    else:
        codec = "checkers:8x8"
    case = _recoded(made, tmp_path, codes, codec)
    for cert in (tmp_path / "cert.npz", tmp_path / "cert.json"):
        for out in _both(case, cert):
            assert (out.status, out.condition) == ("BAD", "file"), (what, cert.name, out)
            assert "name_codec" in out.message or "name_codes" in out.message, out.message
            assert "\n" not in out.message


def test_counts_over_all_positions_altered(made: dict[str, Path], tmp_path: Path) -> None:
    """The summary's counts of positions (each class by its size) changed, dropped, or given
    for a case whose codec has no classes: REJECTED on both paths and both encodings."""
    arrays = _arrays(made["cert.npz"])
    doc = json.loads(made["cert.json"].read_text())
    sym = _header(arrays)["summary"]["symmetry"]
    changes = [{**sym, "won": sym["lost"], "lost": sym["won"]}, {**sym, "positions": 12030}, None]
    for change in changes:
        h = _header(arrays)
        h["summary"]["symmetry"] = change
        bad = tmp_path / "counts.cert.npz"
        np.savez(bad, **_with_header(arrays, h))
        for out in _both(made["case"], bad, made["ans.npz"]):
            assert (out.status, out.condition) == ("REJECTED", "summary"), out
            assert "symmetry" in out.message
        d = json.loads(json.dumps(doc))
        d["summary"]["symmetry"] = change
        bad_json = tmp_path / "counts.cert.json"
        bad_json.write_text(json.dumps(d))
        out = check(str(made["case"]), str(bad_json))
        assert (out.status, out.condition) == ("REJECTED", "summary"), out
    case = _recoded(made, tmp_path, codec="connect4:4x3")  # the same codes, no classes
    for out in _both(case, tmp_path / "cert.npz"):
        assert (out.status, out.condition) == ("REJECTED", "summary"), out


def test_chess_with_symmetry_counts_its_classes(tmp_path: Path) -> None:
    """KQK with symmetry (8 symmetries of the board): a fresh certificate is accepted, with the
    counts over all positions and chess's block (the longest wins per side to move, the counts
    per material); each altered, rejected."""
    from typer.testing import CliRunner

    from verifier.cli import app

    case = save_npz(chess.generate("KQK", symmetry=True), tmp_path / "kqk.npz")
    cert, ans = tmp_path / "kqk.cert.npz", tmp_path / "kqk.ans.npz"
    res = CliRunner().invoke(app, ["solve", str(case), "-o", str(ans), "--certificate", str(cert)])
    assert res.exit_code == 0, res.output
    rep = api.solve_report(case)
    assert rep.case.graph.n == 47_061 and rep.summary is not None
    assert all(out.status == "ACCEPTED" for out in _both(case, cert, ans))
    arrays = _arrays(cert)
    head = _header(arrays)
    sym, block = head["summary"]["symmetry"], head["summary"]["chess"]
    assert sym == {"classes": rep.case.graph.n} | {
        k: v for k, v in rep.summary["symmetry"].items() if k != "classes"
    }
    assert block == rep.summary["chess"] and block["white"]["mate_in"] == 10
    changes = {
        "symmetry": {**sym, "drawn": sym["drawn"] - 8, "lost": sym["lost"] + 8},
        "chess": {**block, "white": {**block["white"], "examples": block["white"]["examples"][1:]}},
    }
    kqk = block["materials"]["KQK"]
    changes["materials"] = {**block, "materials": {**block["materials"], "KQK": {
        "white": kqk["black"], "black": kqk["white"]}}}  # fmt: skip
    for key, change in changes.items():
        h = _header(arrays)
        h["summary"][key if key != "materials" else "chess"] = change
        np.savez(tmp_path / "bad.cert.npz", **_with_header(arrays, h))
        for out in _both(case, tmp_path / "bad.cert.npz"):
            assert (out.status, out.condition) == ("REJECTED", "summary"), (key, out)


def test_the_package_swapping_the_counts_over_all_positions_is_refuted(
    made: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 43's mutant: the summary's counts over all positions with won and lost swapped.
    ``verify`` then says VERIFIED without its self-check, REFUTED with it: the checker's own
    class sizes give other counts than those the report prints."""
    import verifier.games.summary as summary
    from verifier.model.results import Verdict

    real = summary._counts

    def counts(lab: Any, weight: Any) -> dict[str, int]:
        out = real(lab, weight)
        return out if weight is None else {**out, "won": out["lost"], "lost": out["won"]}

    monkeypatch.setattr(summary, "_counts", counts)
    assert api.verify(made["case"], self_check=False).verdict is CaseVerdict.VERIFIED
    rep = api.verify(made["case"])
    assert rep.verdict is CaseVerdict.REFUTED
    found = [c for c in rep.checks if c.name == "certificate"]
    assert found and found[0].verdict is Verdict.REFUTED, found
    assert "our own output" in found[0].detail and "symmetry" in found[0].detail
