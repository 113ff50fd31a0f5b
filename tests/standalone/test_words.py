"""The checker's grammar of the printed words (checker/words.py) on forged lines: certificates
made fresh by ``verify`` from the corpus, their ``printed`` lines changed one word at a time,
each REJECTED under the condition ``printed`` naming the word; the lines as written, and a
certificate without them, ACCEPTED. The CSV's ``outcome`` column likewise, and the numpy path.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import checker.fast as fast
from checker.check_certificate import check
from verifier import api
from verifier.model.report import CaseVerdict

CASES = Path(__file__).resolve().parents[2] / "cases"

FORGED: dict[str, list[tuple[str, str]]] = {  # case: (a word as printed, the forgery)
    "dag-decimal-values": [
        ("Max wins", "Min wins"),
        ("score 1.75", "score 1.5"),
        ("in 2 plies", "in 3 plies"),
        ("in 2 plies", "in 2 ply"),
        (" in 2 plies;", ";"),
        ("best move r -> b;", "best move r -> a;"),
        ("; best move r -> b", ""),
        ("line r -> b -> b2", "line r -> b -> b1"),
        ("line r -> b -> b2", "line r -> b -> b2 ..."),
        ("from r:", "from a:"),
        ("won 5", "won 4"),
        ("lost 2", "lost 3"),
        ("drawn 0", "drawn 1"),
        ("longest win 2 plies", "longest win 1 ply"),
        ("root r = 1.75", "root r = 1.5"),
        ("root r = 1.75", "root a = 1.75"),
        (", root r = 1.75", ""),
    ],
    "kars-figure1-b-lt-d": [
        ("a draw (score 0)", "Max wins, score 0"),
        ("[-1, 2]", "[-1, 3]"),
        ("cycle a -> c -> a", "cycle a -> b -> a"),
    ],
    "knuth-cycle-with-exit": [
        ("loses in 2 plies", "wins in 2 plies"),
        (" (the longest defence)", ""),
    ],
    "game-tictactoe": [("a draw: neither side can force a win", "the player to move wins")],
    "ico-reachability": [
        ("reaches the target from 4", "reaches the target from 5"),
        ("longest forced reach 3 moves", "longest forced reach 2 moves"),
        ("longest forced reach 3 moves", "longest forced reach 3 move"),
    ],
    "ico-reachability-infinite-play": [
        ("player 1 keeps play away from the target", "player 0 reaches the target"),
        ("root v = 1", "root v = 0"),
        ("away from it from 2", "away from it from 1"),
    ],
    "impartial-subtraction-1-2-3": [("N positions 7", "N positions 8")],
    "impartial-nim-position-1-2": [
        ("Grundy value 3", "Grundy value 2"),
        ("wins (an N position)", "loses (a P position)"),
        ("best move 1,2 -> 1,1", "best move 1,2 -> 0,2"),
        ("P positions 2", "P positions 1"),
        ("root 1,2 = 3", "root 1,2 = 2"),
    ],
    "impartial-draw-move": [
        ("Grundy value inf:", "Grundy value inf(0):"),
        ("a draw, play can go on forever", "the player to move wins (an N position)"),
        ("drawn (infinite) 2", "drawn (infinite) 1"),
        (", drawn (infinite) 2", ""),
    ],
    "game-tictactoe-symmetric": [
        ("765 classes", "764 classes"),
        ("drawn 1068", "drawn 1069"),
    ],
}


@pytest.fixture(scope="module")
def certificates(
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, tuple[Path, dict[str, Any]]]:
    root = tmp_path_factory.mktemp("words")
    out = {}
    for name in FORGED:
        case, cert = CASES / f"{name}.json", root / f"{name}.cert.json"
        assert api.verify(case, certificate=cert).verdict is CaseVerdict.VERIFIED, name
        out[name] = (cert, json.loads(cert.read_text()))
    return out


def _judge(name: str, doc: dict[str, Any], tmp: Path) -> tuple[str, str | None, str]:
    path = tmp / "forged.cert.json"
    path.write_text(json.dumps(doc))
    out = check(str(CASES / f"{name}.json"), str(path))
    return out.status, out.condition, out.message


@pytest.mark.parametrize(
    ("name", "word", "forged"), [(n, w, f) for n, fs in FORGED.items() for w, f in fs]
)
def test_a_forged_word_is_rejected_naming_it(
    certificates: dict[str, tuple[Path, dict[str, Any]]],
    name: str,
    word: str,
    forged: str,
    tmp_path: Path,
) -> None:
    _, doc = certificates[name]
    lines = doc["printed"]
    hit = [i for i, line in enumerate(lines) if word in line]
    assert hit, (word, lines)
    changed = list(lines)
    changed[hit[0]] = changed[hit[0]].replace(word, forged, 1)
    status, condition, message = _judge(name, {**doc, "printed": changed}, tmp_path)
    assert (status, condition) == ("REJECTED", "printed"), message
    assert "printed" in message


@pytest.mark.parametrize("name", sorted(FORGED))
def test_the_words_as_printed_are_accepted(
    certificates: dict[str, tuple[Path, dict[str, Any]]], name: str, tmp_path: Path
) -> None:
    cert, doc = certificates[name]
    assert check(str(CASES / f"{name}.json"), str(cert)).status == "ACCEPTED"
    lines = doc["printed"]
    counts = ("won ", "player 0 reaches", "N positions")
    no_counts = [line for line in lines if not line.startswith(counts)]
    for forged in (no_counts, [*lines, "won 1, lost 0, drawn 0"], [], "lines"):
        status, condition, _ = _judge(name, {**doc, "printed": forged}, tmp_path)
        assert (status, condition) == ("REJECTED", "printed"), forged
    without = {k: v for k, v in doc.items() if k != "printed"}
    assert _judge(name, without, tmp_path)[0] == "ACCEPTED"  # nothing printed, nothing judged


def test_the_csv_outcome_column(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from verifier.cli import app

    case, cert = CASES / "dag-decimal-values.json", tmp_path / "c.json"
    res = CliRunner().invoke(
        app, ["verify", str(case), "--format", "csv", "--certificate", str(cert)]
    )
    assert res.exit_code == 0, res.output
    rows = tmp_path / "printed.csv"
    rows.write_text(res.output)
    assert check(str(case), str(cert), str(rows)).status == "ACCEPTED"
    for old, new in (("r,1.75,win", "r,1.75,loss"), ("a,-1.25,loss", "a,-1.25,draw")):
        assert old in res.output
        rows.write_text(res.output.replace(old, new))
        out = check(str(case), str(cert), str(rows))
        assert (out.status, out.condition, out.position) == ("REJECTED", "answers", new[0])
        assert "outcome" in out.message


def test_the_numpy_path_reads_the_words_too(tmp_path: Path) -> None:
    from verifier.io import load_any
    from verifier.io.binary import save_npz

    case = save_npz(load_any(CASES / "dag-decimal-values.json"), tmp_path / "d.npz")
    cert = tmp_path / "d.cert.npz"
    assert api.verify(case, certificate=cert).verdict is CaseVerdict.VERIFIED
    with np.load(cert) as z:
        arrays = {k: z[k] for k in z.files}
    head = json.loads(arrays["header"].tobytes())
    assert head["printed"][0].startswith("from r: Max wins, score 1.75")
    head["printed"][0] = head["printed"][0].replace("Max wins", "Min wins")
    forged = tmp_path / "forged.cert.npz"
    text = np.frombuffer(json.dumps(head).encode(), dtype=np.uint8)
    np.savez(forged, **{**arrays, "header": text})
    assert fast.judge(str(case), str(forged), None, lambda *a: None) is not None
    out = check(str(case), str(forged))
    assert (out.status, out.condition) == ("REJECTED", "printed"), out


def test_the_counts_up_to_symmetry_against_the_summary(tmp_path: Path) -> None:
    """A coded ``.npz`` case reduced by symmetry: the certificate's summary has the counts over
    all positions, and the printed ones must be those (the numpy path judges)."""
    from typer.testing import CliRunner

    from verifier.cli import app

    case, cert = tmp_path / "c4.npz", tmp_path / "c4.cert.npz"
    made = CliRunner().invoke(
        app,
        ["generate", "connect4", "--width", "4", "--height", "3", "--symmetry", "-o", str(case)],
    )
    assert made.exit_code == 0, made.output
    assert api.verify(case, certificate=cert).verdict is CaseVerdict.VERIFIED
    with np.load(cert) as z:
        arrays = {k: z[k] for k in z.files}
    head = json.loads(arrays["header"].tobytes())
    assert head["summary"]["symmetry"]["won"] == 716
    for old, new in (("won 716, lost 412", "won 412, lost 716"), ("drawn 10903", "drawn 10904")):
        forged_head = json.loads(json.dumps(head))
        forged_head["printed"] = [line.replace(old, new) for line in head["printed"]]
        assert forged_head["printed"] != head["printed"]
        forged = tmp_path / "forged.cert.npz"
        text = np.frombuffer(json.dumps(forged_head).encode(), dtype=np.uint8)
        np.savez(forged, **{**arrays, "header": text})
        out = check(str(case), str(forged))
        assert (out.status, out.condition) == ("REJECTED", "printed"), out
        assert "up to symmetry" in out.message


def test_names_that_look_like_the_grammar(tmp_path: Path) -> None:
    """Names holding the grammar's own separators (``; line``, `` -> ``, ``, root``, ``...``):
    the checker compares the certified names, it does not split on them."""
    case = tmp_path / "hostile.json"
    root, v, leaf, w, l3 = "s; line t -> u", "v, root x = 3", "from q: Min wins", "w", "l3 ..."
    nodes = {
        root: {"owner": "max", "moves": [v, w]},
        v: {"owner": "min", "moves": [leaf, w]},
        leaf: {"value": 4},
        w: {"owner": "max", "moves": [l3, w]},
        l3: {"value": 1},
    }
    case.write_text(json.dumps({"semantics": "minimax", "root": root, "nodes": nodes}))
    cert = tmp_path / "hostile.cert.json"
    assert api.verify(case, certificate=cert).verdict is CaseVerdict.VERIFIED
    doc = json.loads(cert.read_text())
    assert doc["printed"][0] == (
        f"from {root}: Max wins, score 1 in 2 plies; best move {root} -> {w}; "
        f"line {root} -> {w} -> {l3}"
    )
    forged = {
        **doc,
        "printed": [doc["printed"][0].replace(f"-> {w};", f"-> {v};"), *doc["printed"][1:]],
    }
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(forged))
    out = check(str(case), str(path))
    assert (out.status, out.condition) == ("REJECTED", "printed"), out
    assert "best move" in out.message


def test_a_chess_line_is_recomputed_over_the_won_positions() -> None:
    """``longest win, White to move: mate in N (P plies), K position(s), e.g. FEN`` against a
    table of FEN names, outcomes and remoteness (the checker's own reading of the FEN's side)."""
    from checker import words

    names = ["8/8/8/8/8/8/1Q6/K6k w - - 0 1", "8/8/8/8/8/8/1Q6/K5k1 w - - 0 1", "x b", "y w"]
    table = (names, [1, 1, 1, -1], [3, 3, 9, 12])

    def judge(text: str) -> str | None:
        return words.chess(text, lambda: table)

    good = f"longest win, White to move: mate in 2 (3 plies), 2 position(s), e.g. {names[1]}"
    assert judge(good) is None
    for old, new in (
        ("mate in 2", "mate in 1"),
        ("(3 plies)", "(4 plies)"),
        ("2 position", "1 position"),
        ("White", "Black"),
        (names[1], "y w"),
    ):
        assert judge(good.replace(old, new)) is not None, new
    assert judge("longest loss, White to move") is not None  # a line it cannot read
