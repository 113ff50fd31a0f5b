"""The standalone checker (checker/check_certificate.py) on certificates written by hand for
small games whose answers are worked out here, one per semantics; each field corrupted is
rejected with the position and the condition; the command line's exit codes; and the checker
stays standalone (standard library and numpy only) and small (at most 500 lines)."""

from __future__ import annotations

import ast
import copy
import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cert_edits import DROP, edited

from checker.check_certificate import check
from tests.terminal import on_a_terminal

CHECKER = Path(__file__).resolve().parents[2] / "checker" / "check_certificate.py"


def _write(tmp: Path, case: dict[str, Any], cert: dict[str, Any]) -> tuple[str, str]:
    c = tmp / "case.json"
    c.write_text(json.dumps(case))
    digest = hashlib.sha256(c.read_bytes()).hexdigest()
    moves = sum(len(n.get("moves", [])) for n in case["nodes"].values())
    head = {"sha256": digest, "positions": len(case["nodes"]), "moves": moves}
    doc = {"format": "gamegraph-verifier-certificate", "version": 1}
    doc |= {"semantics": case["semantics"], "case": head, **cert}
    p = tmp / "cert.json"
    p.write_text(json.dumps(doc))
    return str(c), str(p)


# Knuth's rules by hand: a -> b -> c (c terminal, lost); d <-> e a cycle with an exit from d
# to b. c lost 0; b won 1 (moves to c); a lost 2 (its only move is to b, won); d won 2?
# d moves to e or b: b is won, e ... e -> d only. No lost successor of d (b won, e unknown),
# not all won: d draw; e's only successor is d (draw): e draw.
NORMAL = {
    "semantics": "normal",
    "root": "a",
    "nodes": {
        "a": {"moves": ["b"]},
        "b": {"moves": ["c"]},
        "c": {},
        "d": {"moves": ["e", "b"]},
        "e": {"moves": ["d"]},
    },
}
NORMAL_CERT = {
    "nodes": {
        "a": {"value": "lost", "remoteness": 2, "move": "b"},
        "b": {"value": "won", "remoteness": 1, "move": "c"},
        "c": {"value": "lost", "remoteness": 0},
        "d": {"value": "draw", "move": "e"},
        "e": {"value": "draw", "move": "d"},
    },
    "summary": {"won": 1, "lost": 2, "drawn": 2, "longest_win": 1, "root": "a"}
    | {"root_value": "lost"},
    "line": ["a", "b", "c"],
    "uniqueness": {"claim": "not unique", "proof": "witness", "witness": {"d": "won", "e": "lost"}},
}

# ICO notes: t target; c (player 1) -> t: layer 1; a (player 0) -> {b, c}: layer 2 via c;
# b (player 1) -> {t, a}: 1 + max(0, 2) = 3; d (player 1) -> d: a loop, player 1 wins; f a dead end.
REACH = {
    "semantics": "reachability",
    "targets": ["t"],
    "nodes": {
        "t": {},
        "c": {"owner": 1, "moves": ["t"]},
        "a": {"owner": 0, "moves": ["b", "c"]},
        "b": {"owner": 1, "moves": ["t", "a"]},
        "d": {"owner": 1, "moves": ["d", "a"]},
        "f": {},
    },
}
REACH_CERT = {
    "nodes": {
        "t": {"value": 0, "remoteness": 0},
        "c": {"value": 0, "remoteness": 1},
        "a": {"value": 0, "remoteness": 2, "move": "c"},
        "b": {"value": 0, "remoteness": 3},
        "d": {"value": 1, "move": "d"},
        "f": {"value": 1},
    },
    "summary": {"won": 4, "lost": 2, "drawn": 0, "longest_win": 3, "root": None}
    | {"root_value": None},
}

# Kars 1990, Figure 1 with b = -1, d = 2: a (Max) -> {b, c}, c (Min) -> {d, a}. The chain is
# {-1, 0, 2}. lfp: a = max(-1, c), c = min(2, a): least a = c = -1; gfp: a = c = 2. Kars' score
# max(lfp, min(gfp, 0)) = 0 at a and c. Ranks: d's lfp 2 (above the bottom -1): rank 0; b's gfp
# -1 below the top 2: rank 0; a and c sit at the chain's ends of their bounds: no ranks.
KARS = {
    "semantics": "minimax",
    "root": "a",
    "nodes": {
        "a": {"owner": "max", "moves": ["b", "c"]},
        "b": {"value": -1},
        "c": {"owner": "min", "moves": ["d", "a"]},
        "d": {"value": 2},
    },
}
KARS_CERT = {
    "nodes": {
        "a": {"value": 0, "move": "c", "lfp": -1, "gfp": 2},
        "b": {"value": -1, "remoteness": 0, "lfp": -1, "gfp": -1, "gfp_rank": 0},
        "c": {"value": 0, "move": "a", "lfp": -1, "gfp": 2},
        "d": {"value": 2, "remoteness": 0, "lfp": 2, "gfp": 2, "lfp_rank": 0},
    },
    "summary": {"won": 1, "lost": 1, "drawn": 2, "longest_win": 0, "root": "a", "root_value": 0},
    "line": ["a", "c", "a"],
    "uniqueness": {"claim": "not unique", "proof": "intervals"},
}

# Smith's loopy values by hand: t terminal (0); s -> t (1); u -> {s, v}, v -> u: the 2-cycle
# u <-> v. u's finite options: s = 1, so mex 0; would u be 0? its option v (unlabelled) must
# revert to a 0 option: v's only option is u itself: no. So u, v infinite: u = inf(1) (K = the
# finite option values {1}), v = inf (no finite options). Condition B at u: m = mex {1} = 0; the
# infinite option v has no option of value 0. At v: m = 0; u is infinite with no 0 option. u is a
# draw (0 not in K), v too; w -> {u, t}: t = 0 so w's mex is 1 (no option 1; u is infinite and
# must revert to a 1: u -> s = 1 with counter 1 < w's): w = 1, N, moves to t.
LOOPY = {
    "semantics": "impartial",
    "nodes": {
        "t": {},
        "s": {"moves": ["t"]},
        "u": {"moves": ["s", "v"]},
        "v": {"moves": ["u"]},
        "w": {"moves": ["u", "t"]},
    },
    "sums": [{"name": "s+w", "positions": ["s", "w"]}, {"name": "s+u", "positions": ["s", "u"]}],
}
LOOPY_CERT = {
    "nodes": {
        "t": {"value": 0, "counter": 0},
        "s": {"value": 1, "counter": 1, "move": "t"},
        "u": {"value": "inf(1)", "move": "v"},
        "v": {"value": "inf", "move": "u"},
        "w": {"value": 1, "counter": 2, "move": "t"},
    },
    "summary": {"won": 2, "lost": 1, "drawn": 2, "longest_win": None, "root": None}
    | {"root_value": None},
    "sums": {"s+w": 0, "s+u": "inf(0)"},
}

GAMES = {
    "normal": (NORMAL, NORMAL_CERT),
    "reachability": (REACH, REACH_CERT),
    "minimax": (KARS, KARS_CERT),
    "impartial": (LOOPY, LOOPY_CERT),
}


@pytest.mark.parametrize("sem", sorted(GAMES))
def test_hand_made_certificate_is_accepted(tmp_path: Path, sem: str) -> None:
    case, cert = GAMES[sem]
    out = check(*_write(tmp_path, case, cert))
    assert out.status == "ACCEPTED", out.message


CORRUPTIONS = [
    ("normal", ("nodes", "a", "value"), "won", "a", "N2"),
    ("normal", ("nodes", "b", "remoteness"), 2, "a", "N3"),
    ("normal", ("nodes", "e", "value"), "lost", "e", "N2"),
    ("normal", ("nodes", "d", "move"), "b", "d", "N5"),
    ("normal", ("nodes", "a", "move"), "c", "a", "move"),
    ("normal", ("summary", "drawn"), 1, None, "summary"),
    ("normal", ("line",), ["a", "b"], None, "line"),
    ("normal", ("uniqueness", "witness"), {"d": "won"}, "d", "uniqueness"),
    ("reachability", ("nodes", "b", "remoteness"), 2, "b", "R2"),
    ("reachability", ("nodes", "d", "value"), 0, "d", "R2"),
    ("reachability", ("nodes", "a", "move"), "b", "a", "R4"),
    ("reachability", ("nodes", "f", "value"), 0, "f", "R2"),
    ("minimax", ("nodes", "a", "value"), 2, "a", "M4"),
    ("minimax", ("nodes", "a", "value"), 0.5, "a", "M4"),
    ("minimax", ("nodes", "a", "lfp"), 0, "a", "M2"),
    ("minimax", ("nodes", "b", "gfp"), 2, "b", "M1"),
    ("minimax", ("nodes", "d", "lfp_rank"), None, "d", "M2"),
    ("minimax", ("nodes", "c", "move"), "d", "c", "M5"),
    ("minimax", ("uniqueness", "claim"), "unique", None, "uniqueness"),
    ("impartial", ("nodes", "w", "counter"), 0, "w", "I1"),
    ("impartial", ("nodes", "u", "value"), "inf(0,1)", "u", "I2"),
    ("impartial", ("nodes", "v", "value"), 0, "v", "I1"),
    ("impartial", ("nodes", "s", "move"), "s", "s", "move"),
    ("impartial", ("nodes", "v", "move"), "u", None, None),
    ("impartial", ("sums", "s+u"), "inf(1)", None, "I4"),
]


@pytest.mark.parametrize(("sem", "where", "value", "position", "condition"), CORRUPTIONS)
def test_a_corrupted_field_is_rejected(
    tmp_path: Path,
    sem: str,
    where: tuple[str, ...],
    value: Any,
    position: str | None,
    condition: str | None,
) -> None:
    case, cert = GAMES[sem]
    bad = edited(cert, where, DROP if value is None else value)
    out = check(*_write(tmp_path, case, bad))
    if condition is None:  # the same value again: still accepted
        assert out.status == "ACCEPTED", out.message
        return
    assert out.status == "REJECTED", out.message
    assert out.position == position, out.message
    assert out.condition == condition, out.message


def test_a_certificate_for_another_case_file_is_bad(tmp_path: Path) -> None:
    case_path, cert_path = _write(tmp_path, KARS, KARS_CERT)
    Path(case_path).write_text(json.dumps(KARS, indent=2))  # the same game, other bytes
    out = check(case_path, cert_path)
    assert out.status == "BAD" and "for another case file" in out.message


def test_command_line_exit_codes(tmp_path: Path) -> None:
    case_path, cert_path = _write(tmp_path, NORMAL, NORMAL_CERT)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, str(CHECKER), *args], capture_output=True, text=True, check=False
        )

    ok = run(case_path, cert_path)
    assert (ok.returncode, ok.stdout.strip()) == (0, "ACCEPTED")
    bad = copy.deepcopy(NORMAL_CERT)
    bad["nodes"]["a"]["remoteness"] = 5
    _, wrong = _write(tmp_path, NORMAL, bad)
    no = run(case_path, wrong)
    claim = "REJECTED: the certificate claims 'a' is lost, but N3"
    assert no.returncode == 1 and no.stdout.startswith(claim)
    Path(wrong).write_text("{not json")
    broken = run(case_path, wrong)
    assert broken.returncode == 2 and broken.stderr.startswith(f"error: {wrong}: ")
    assert "Traceback" not in broken.stderr
    assert run(case_path).returncode == 2  # usage


def test_progress_on_a_terminal_only(tmp_path: Path) -> None:
    """A line per stage on standard error, with the count and the rate, when standard error is
    a terminal (a pseudo-terminal here) or CHECKER_PROGRESS=1; nothing when piped."""
    import os

    case_path, cert_path = _write(tmp_path, NORMAL, NORMAL_CERT)
    argv = [sys.executable, str(CHECKER), case_path, cert_path]
    piped = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert (piped.returncode, piped.stdout, piped.stderr) == (0, "ACCEPTED\n", "")
    forced = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "CHECKER_PROGRESS": "1"},
    )
    lines = forced.stderr.splitlines()
    assert forced.stdout == "ACCEPTED\n" and [x.split(":")[1] for x in lines] == [
        " reading the case after 0.0 s", " reading the certificate", " the conditions of normal",
        " the uniqueness claim", " done",
    ], lines  # fmt: skip
    assert lines[2].startswith("checker: the conditions of normal: 5 positions after ")
    assert lines[-1].startswith("checker: done: 5 positions after ")
    assert lines[-1].endswith(" a second)")
    _, out, seen = on_a_terminal(argv)
    assert out == "ACCEPTED\n" and b"checker: the uniqueness claim: 5 positions after" in seen


def test_the_answer_file_must_say_what_the_certificate_says(tmp_path: Path) -> None:
    case_path, cert_path = _write(tmp_path, NORMAL, NORMAL_CERT)
    answers = tmp_path / "answers.csv"
    rows = ["node,value,remoteness,move", "a,lost,2,b", "b,won,1,c", "c,lost,0,", "d,draw,,e"]
    answers.write_text("\n".join([*rows, "e,draw,,d"]) + "\n")
    assert check(case_path, cert_path, str(answers)).status == "ACCEPTED"
    answers.write_text("\n".join([*rows, "e,won,,d"]) + "\n")
    out = check(case_path, cert_path, str(answers))
    assert (out.status, out.position, out.condition) == ("REJECTED", "e", "answers")


def test_the_checker_is_standalone_and_small() -> None:
    """The conditions in at most 500 lines; beside them the uniqueness proofs (the CNFs and the
    DRUP replay) in at most 200, the numpy path in at most 490, the grammar of the printed
    words in at most 350, the shared reading (strict JSON, CSV columns, numpy on demand) in at
    most 120, the CSV cells as numbers in at most 70, the GraphML / GML reader in at most 260,
    the games' name codecs in at most 400 and the progress lines in at most 50 (and four more
    lines: a dataset's directory handed to judge.py); a dataset's conditions in at most 260,
    its reading in at most 290 (the cache of shards, shared by both kinds of dataset, and its
    share of the memory), Connect
    Four's moves in at most 100, a stored graph's reading and shard-by-shard judgement in at
    most 400 (with the hooks a game stored with its moves adds) and its semantics' conditions
    in at most 120, the worker processes (``--jobs``, ending with a killed checker) in at most
    60, chess endgames' own conditions through python-chess, shard by shard, in at most 570; all
    import the standard library, numpy and each other only (and pyarrow, to read a dataset's
    Parquet files)."""
    sizes = {
        "drup": 200, "fast": 490, "words": 350, "reading": 120, "graphs": 260, "name_codecs": 400,
        "stages": 50, "cells": 70, "judge": 260, "dataset": 290, "connect4": 100,
        "stored": 400, "stored_rules": 120, "workers": 60, "chess": 570,
    }  # fmt: skip
    assert len(CHECKER.read_text().splitlines()) <= 504
    every = CHECKER.read_text()
    for name, most in sizes.items():
        text = CHECKER.with_name(f"{name}.py").read_text()
        assert len(text.splitlines()) <= most, name
        every += text
    imported = set()
    for node in ast.walk(ast.parse(every)):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    allowed = {"numpy", "checker", "drup", "fast", "graphs", "reading", "words", "name_codecs"}
    allowed |= {"wording", "stages", "cells"}  # the REJECTED line, as both paths word it; progress
    allowed |= {"judge", "dataset", "connect4", "pyarrow"}  # a tiered dataset (pyarrow: Parquet)
    allowed |= {"stored", "stored_rules", "workers"}  # a stored graph's dataset; --jobs
    allowed |= {"chess"}  # checker/chess.py (python-chess: importlib, a chess dataset's extra)
    assert imported <= set(sys.stdlib_module_names) | allowed, imported
    assert "verifier" not in imported


# Normal play on a cycle by hand. W(x) = 2x+1, L(x) = 2x+2 (docs/certificates.md, U1). On the
# 3-cycle p -> q -> r -> p each position is won iff its successor is lost and lost iff it is
# won: W(p) = L(q) = W(r) = L(p), so W(p) = L(p) = false: all drawn is the only labelling. The
# lemma "-1 0" (p is not won) is RUP: W(p) propagates L(q), W(r), L(p), against "not both";
# with it, every variable propagates to false and the clause "differs somewhere" is false.
# On the 2-cycle p <-> q, p won and q lost is a second labelling: no proof can refute it.
CYCLE3 = {"semantics": "normal", "nodes": {"p": {"moves": ["q"]}, "q": {"moves": ["r"]}}}
CYCLE3["nodes"]["r"] = {"moves": ["p"]}
CYCLE2 = {"semantics": "normal", "nodes": {"p": {"moves": ["q"]}, "q": {"moves": ["p"]}}}


def _drawn(case: dict[str, Any], uniqueness: dict[str, Any]) -> dict[str, Any]:
    nodes = {x: {"value": "draw", "move": n["moves"][0]} for x, n in case["nodes"].items()}
    summary = {"won": 0, "lost": 0, "drawn": len(nodes), "longest_win": None, "root": None}
    return {"nodes": nodes, "summary": summary | {"root_value": None}, "uniqueness": uniqueness}


@pytest.mark.parametrize(
    ("case", "uniqueness", "status"),
    [
        (CYCLE3, {"claim": "unique", "proof": "drup", "drup": ["-1 0"]}, "ACCEPTED"),
        (
            CYCLE3,
            {"claim": "unique", "proof": "drup", "drup": ["d 1 2 3 4 5 6 0", "-1 0"]},
            "ACCEPTED",
        ),
        (CYCLE3, {"claim": "unique", "proof": "drup", "drup": []}, "REJECTED"),
        (CYCLE3, {"claim": "unique", "proof": "drup", "drup": ["0"]}, "REJECTED"),
        (CYCLE3, {"claim": "unique", "proof": "ranks"}, "REJECTED"),  # drawn positions
        (CYCLE3, {"claim": "not unique", "proof": "witness", "witness": {"p": "won"}}, "REJECTED"),
        (CYCLE3, {"claim": "unique", "proof": "drup", "drup": ["-1"]}, "BAD"),
        (CYCLE3, {"claim": "unique", "proof": "drup", "drup": ["x 0"]}, "BAD"),
        (CYCLE3, {"claim": "unique", "proof": "drup", "drup": "-1 0"}, "BAD"),
        (CYCLE3, {"claim": "unique", "proof": "witness", "witness": {}}, "BAD"),
        (CYCLE2, {"claim": "unique", "proof": "drup", "drup": ["-1 0", "0"]}, "REJECTED"),
        (CYCLE2, {"claim": "unique", "proof": "drup", "drup": ["1 0", "-1 0", "0"]}, "REJECTED"),
        (
            CYCLE2,
            {"claim": "not unique", "proof": "witness", "witness": {"p": "won", "q": "lost"}},
            "ACCEPTED",
        ),
        (CYCLE2, {"claim": "not unique", "proof": "witness", "witness": {"p": "won"}}, "REJECTED"),
    ],
)
def test_uniqueness_in_normal_play_by_drup_and_witness(
    tmp_path: Path, case: dict[str, Any], uniqueness: dict[str, Any], status: str
) -> None:
    out = check(*_write(tmp_path, case, _drawn(case, uniqueness)))
    assert out.status == status, out.message
    if status == "REJECTED":
        assert out.condition == "uniqueness"
    assert "rests on Z3" not in out.message


def test_unique_by_ranks_when_nothing_is_drawn(tmp_path: Path) -> None:
    cert = copy.deepcopy(NORMAL_CERT)
    case = copy.deepcopy(NORMAL)
    del case["nodes"]["d"], case["nodes"]["e"], cert["nodes"]["d"], cert["nodes"]["e"]
    cert["summary"]["drawn"] = 0
    cert["uniqueness"] = {"claim": "unique", "proof": "ranks"}
    assert check(*_write(tmp_path, case, cert)).status == "ACCEPTED"
    cert["uniqueness"] = {"claim": "not unique", "proof": "ranks"}
    assert check(*_write(tmp_path, case, cert)).status == "BAD"
