"""The words a person reads, judged: the lines ``verify`` and ``solve`` print first about a
case (the certificate's ``printed``) and the ``outcome`` column of a CSV answer, read with this
checker's own small grammar and compared, fact by fact, with the certified values (the root's
entries, the summary and line the checker has already recomputed from them).

Every function returns ``None`` when the words say what the certificate says, else why not,
naming the word; the caller rejects. Standard library only; nothing of the package.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

LINE_PLIES = 12  # as check_certificate.py
NUM = r"-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
GRUNDY = r"\d+|inf(?:\(\d+(?:,\d+)*\))?"
PLY = r"(?: in (?P<n>\d+) (?P<unit>plies|ply))?"
MOVES = r"(?: in (?P<n>\d+) (?P<unit>moves|move))?"
V = rf"Grundy value (?P<v>{GRUNDY}): "
VERDICTS: Mapping[str, tuple[tuple[str, int], ...]] = {  # the root's phrase, the outcome it says
    "minimax": (
        (r"a draw \(score 0\)", 0),
        (rf"Max wins, score (?P<v>{NUM}){PLY}", 1),
        (rf"Min wins, score (?P<v>{NUM}){PLY}", -1),
    ),
    "normal": (
        (rf"the player to move wins{PLY}", 1),
        (rf"the player to move loses{PLY}(?P<defence> \(the longest defence\))?", -1),
        (r"a draw: neither side can force a win", 0),
    ),
    "reachability": (
        (rf"player 0 reaches the target{MOVES}", 1),
        (r"player 1 keeps play away from the target", -1),
    ),
    "impartial": (
        (rf"{V}the player to move wins \(an N position\)", 1),
        (rf"{V}the player to move loses \(a P position\)", -1),
        (rf"{V}a draw, play can go on forever", 0),
    ),
}
WHO = {
    "minimax": {1: "Max wins", -1: "Min wins", 0: "a draw"},
    "normal": {1: "the player to move wins", -1: "the player to move loses", 0: "a draw"},
    "reachability": {1: "player 0 wins", -1: "player 1 wins"},
    "impartial": {1: "an N position (a win)", -1: "a P position (a loss)", 0: "a draw"},
}
COUNTS = {
    "reachability": r"player 0 reaches the target from (?P<won>\d+), player 1 keeps play away "
    r"from it from (?P<lost>\d+)(?:, longest forced reach (?P<n>\d+) (?P<unit>moves|move))?",
    "impartial": r"N positions (?P<won>\d+), P positions (?P<lost>\d+)"
    r"(?:, drawn \(infinite\) (?P<drawn>\d+))?(?:, longest win (?P<n>\d+) (?P<unit>plies|ply))?",
}
WON_LOST = r"won (?P<won>\d+), lost (?P<lost>\d+), drawn (?P<drawn>\d+)"
COUNTS |= dict.fromkeys(
    ("minimax", "normal"), WON_LOST + r"(?:, longest win (?P<n>\d+) (?P<unit>plies|ply))?"
)
SYMMETRY = (
    r"up to symmetry: (?P<classes>\d+) classes stand for (?P<positions>\d+) positions: "
    r"won (?P<won>\d+), lost (?P<lost>\d+), drawn (?P<drawn>\d+)"
)
CHESS = (
    r"longest win, (?P<side>White|Black) to move: mate in (?P<mate>\d+) \((?P<plies>\d+) "
    r"plies\), (?P<count>\d+) position\(s\), e\.g\. (?P<fen>.+)"
)
OUTCOME_WORDS = {1: "win", -1: "loss", 0: "draw"}
BAD = object()  # a value text that is no value of the semantics


def side(sem: str, v: Any) -> int:
    """+1 won, -1 lost, 0 drawn for the side the words count (Max, the mover, player 0)."""
    if sem == "impartial":
        return (1 if v > 0 else -1) if isinstance(v, int) else (1 if 0 in v[1] else 0)
    return (1 if v == 0 else -1) if sem == "reachability" else int(v > 0) - int(v < 0)


def value_text(sem: str, t: str) -> Any:
    """A value as printed, in the checker's terms (``BAD`` if it is none)."""
    if sem == "normal":
        return {"won": 1, "lost": -1, "draw": 0}.get(t, BAD)
    if sem == "reachability":
        return int(t) if t in ("0", "1") else BAD
    if sem == "minimax":
        return float(t) if re.fullmatch(NUM, t) else BAD
    if not re.fullmatch(GRUNDY, t):
        return BAD
    return int(t) if t.isdigit() else ("inf", frozenset(map(int, re.findall(r"\d+", t))))


def unit_fits(m: re.Match[str]) -> bool:
    """``1 ply``, ``2 plies``: the noun agrees with its number."""
    n, unit = m.groupdict().get("n"), m.groupdict().get("unit")
    return n is None or (unit in ("ply", "move")) == (int(n) == 1)


# ----------------------------------------------------------------------- the printed lines
def printed(
    sem: str, head: Mapping[str, Any], root: Mapping[str, Any] | None,
    table: Callable[[], tuple[Sequence[str], Sequence[int], Sequence[Any]]] | None = None,
) -> str | None:  # fmt: skip
    """The certificate's ``printed`` lines against its certified values. ``root``: the root's
    ``name``, ``value``, ``remoteness``, ``move`` (a name), ``lfp``, ``gfp`` (``None``: no
    root); ``table``: per position the name, outcome and remoteness (a game's own facts)."""
    lines = head.get("printed")
    if lines is None:
        return None  # nothing was printed to judge (a certificate written without the words)
    if not isinstance(lines, list) or not all(isinstance(x, str) for x in lines):
        return "is not a list of lines"
    s, rest = head.get("summary") or {}, list(lines)
    if root is not None:
        found = answer(sem, rest.pop(0) if rest else "", root, list(head.get("line") or []))
        if found is None and rest and rest[0].startswith("why: "):
            found = why(rest.pop(0), root, list(head.get("line") or []))
        if found is not None:
            return found
    found = counts(sem, rest.pop(0) if rest else "", s)
    if found is None and rest and rest[0].startswith("up to symmetry: "):
        found = symmetry(rest.pop(0), s)
    elif found is None and isinstance(s.get("symmetry"), dict):
        found = "the counts up to symmetry are missing (the summary has them)"
    while found is None and rest:
        found = chess(rest.pop(0), table)
    return found


def answer(sem: str, text: str, root: Mapping[str, Any], line: list[str]) -> str | None:
    """``from s: Max wins, score 4 in 3 plies; best move s -> v; line s -> v -> w -> l3``."""
    name, v, r, mv = root["name"], root["value"], root["remoteness"], root["move"]
    said = repr(text)
    if not text.startswith(f"from {name}: "):
        return f"{said} does not start 'from {name}: ' (the root)"
    phrase, _, tail = text[len(f"from {name}: ") :].partition("; ")
    found = verdict(sem, phrase, v, r)
    if found is not None:
        return f"{found} in {said}"
    rest = "; " + tail if tail else ""
    if mv is not None:
        want = f"; best move {name} -> {mv}"
        seen = rest.split("; line ")[0] if rest.startswith("; best move ") else "none"
        if not (rest == want or rest.startswith(want + "; line ")):
            return f"the best move {seen.lstrip('; ')!r}, the certificate's {want[2:]!r}"
        rest = rest[len(want) :]
    if len(line) > 2:  # the line of play, cut like the certificate's
        cut = " ..." if len(line) > LINE_PLIES and line[-1] not in line[:-1] else ""
        want = f"; line {' -> '.join(line)}{cut}"
        if rest != want:
            return f"the line {rest[2:] or 'none'!r}, the moves give {want[2:]!r}"
        rest = ""
    return None if rest == "" else f"{rest[2:]!r} after the answer, which says no more"


def verdict(sem: str, phrase: str, v: Any, r: int | None) -> str | None:
    """Who wins from the root, the score (or Grundy value) and in how many plies."""
    o = side(sem, v)
    for pattern, says in VERDICTS.get(sem, ()):
        m = re.fullmatch(pattern, phrase)
        if m is None:
            continue
        got = m.groupdict()
        if says != o:
            return f"the winner {phrase!r}: the certified value gives {WHO[sem][o]!r}"
        if got.get("v") is not None and value_text(sem, got["v"]) != v:
            return f"the value {got['v']!r}: the certified value is {v!r}"
        if "n" in got and (None if got["n"] is None else int(got["n"])) != r:
            return f"the plies {got['n']!r}: the certified remoteness is {r!r}"
        if not unit_fits(m) or ("defence" in got and (got["defence"] is not None) != bool(r)):
            return f"the words {phrase!r}: not as {sem} says them"
        return None
    return f"the winner {phrase!r}: no answer of {sem} reads so"


def why(text: str, root: Mapping[str, Any], line: list[str]) -> str | None:
    """A minimax draw's why: the cycle play stays on, the interval of the solutions."""
    name, lo, hi = root["name"], root.get("lfp"), root.get("gfp")
    rest = text[len("why: ") :]
    if root["value"] != 0 or lo is None:
        return f"{text!r}: a why is printed for a minimax draw only"
    if len(line) > 1 and line[-1] in line[:-1]:
        want = f"from {name} both sides can keep play on the cycle "
        want += " -> ".join(line[line.index(line[-1]) :])
        if not rest.startswith(want):
            return f"the cycle in {text!r}, the moves give {want!r}"
        rest = rest[len(want) :].removeprefix("; ")
    if rest:
        m = re.fullmatch(
            rf"a solution of the rules can put (?P<name>.+) anywhere in \[(?P<lo>{NUM}), "
            rf"(?P<hi>{NUM})\], Kars' rule takes the draw 0",
            rest,
        )
        if m is None or m["name"] != name or (float(m["lo"]), float(m["hi"])) != (lo, hi):
            return f"the interval in {text!r}, the certificate's is [{lo}, {hi}]"
        if lo == hi:
            return f"{text!r}: the solutions leave {name} one value"
    return None


def counts(sem: str, text: str, s: Mapping[str, Any]) -> str | None:
    """``won 8, lost 0, drawn 0, longest win 3 plies, root s = 4`` against the summary."""
    m = re.match(COUNTS.get(sem, "(?!)"), text)
    if m is None:
        return f"the counts {text!r}: not as {sem} says them"
    for k in ("won", "lost", "drawn"):
        shown = m.groupdict().get(k)
        want = s.get(k)
        if shown is None and (k == "drawn" and want == 0):
            continue  # impartial and reachability leave out no draw
        if shown is None or int(shown) != want:
            return f"{k} {shown} in {text!r}, the certified values give {want!r}"
    n = None if m["n"] is None else int(m["n"])
    if n != s.get("longest_win") or not unit_fits(m):
        return f"the longest win {m['n']} in {text!r}, certified {s.get('longest_win')!r}"
    rest, root = text[m.end() :], s.get("root")
    if root is None:
        return None if rest == "" else f"{rest!r} after the counts, no root"
    head = f", root {root} = "
    if not rest.startswith(head):
        return f"the root in {text!r}, certified {root!r}"
    v = value_text(sem, rest[len(head) :])
    want = value_text(sem, str(s.get("root_value"))) if sem != "minimax" else s["root_value"]
    if v is BAD or v != want:
        return f"the root value {rest[len(head) :]!r}, certified {s.get('root_value')!r}"
    return None


def symmetry(text: str, s: Mapping[str, Any]) -> str | None:
    """``up to symmetry: 765 classes stand for 5478 positions: won 2836, ...``."""
    m = re.fullmatch(SYMMETRY, text)
    if m is None:
        return f"{text!r}: not as the counts up to symmetry read"
    got = {k: int(v) for k, v in m.groupdict().items()}
    classes = sum(s.get(k) or 0 for k in ("won", "lost", "drawn"))
    if got["classes"] != classes:
        return f"{got['classes']} classes, the certificate has {classes} positions"
    if got["won"] + got["lost"] + got["drawn"] != got["positions"]:
        return f"{text!r}: won, lost and drawn do not add up to the positions"
    for k in ("won", "lost", "drawn", "positions"):  # every class stands for one or more
        if got[k] < (classes if k == "positions" else s.get(k) or 0):
            return f"{k} {got[k]} up to symmetry, fewer than the classes {k}"
    sym = s.get("symmetry")
    # the summary's counts over all positions: recomputed by summary() from the checker's own
    # class sizes where a symmetric codec codes the names (checker/name_codecs.py); a readable
    # case reduced by symmetry (tictactoe-symmetric.json) has no sizes: only the sums above
    if isinstance(sym, dict):
        for k in ("positions", "won", "lost", "drawn"):
            if got[k] != sym.get(k):
                return f"{k} {got[k]} up to symmetry, the certificate says {sym.get(k)}"
    return None


def chess(
    text: str, table: Callable[[], tuple[Sequence[str], Sequence[int], Sequence[Any]]] | None
) -> str | None:
    """``longest win, White to move: mate in 28 (55 plies), 2 position(s), e.g. FEN``: over
    the won positions whose FEN (the name) has that side to move."""
    m = re.fullmatch(CHESS, text)
    if m is None or table is None:
        return f"{text!r}: a line the checker cannot read"
    names, out, rem = table()
    mover = m["side"][0].lower()
    best, where = -1, list[str]()
    for x, name in enumerate(names):
        if out[x] != 1 or rem[x] is None or rem[x] < 0 or name.split(" ")[1:2] != [mover]:
            continue
        if rem[x] > best:
            best, where = int(rem[x]), []
        if rem[x] == best:
            where.append(name)
    plies, mate, count = int(m["plies"]), int(m["mate"]), int(m["count"])
    if (plies, mate, count) != (best, (best + 1) // 2, len(where)) or m["fen"] not in where:
        return (
            f"{text!r}: the certified values give mate in {(best + 1) // 2} "
            f"({best} plies), {len(where)} position(s)"
        )
    return None


# ------------------------------------------------------------------- the CSV outcome column
def outcomes(sem: str, value_of: Callable[[str], Any], path: str) -> tuple[str, str] | None:
    """A CSV answer's ``outcome`` column (win / loss / draw for Max, the mover, player 0)
    against each row's certified value: ``(position, why)`` at the first that differs."""
    with open(path, newline="", encoding="utf-8") as text:
        for r in csv.DictReader(text):
            word, name = r.get("outcome"), str(r.get("node", r.get("position")))
            if word is None:
                return None  # no outcome column: nothing said
            want = OUTCOME_WORDS[side(sem, value_of(name))]
            if word != want:
                return name, f"the outcome column says {word!r}, the certified value {want!r}"
    return None


# ----------------------------------------------------------------- the checker's two paths
def plain(g: Any, c: Any, answers: str | None = None) -> tuple[str | None, str, str] | None:
    """``check_certificate``'s case and certificate (``Game``, ``Cert``): the printed lines and
    a CSV answer's outcome column, as ``(position, condition, why)`` at the first mismatch."""
    col, x = c.col, g.root
    root = None
    if x is not None:
        y = col["move"][x]
        root = {"name": g.names[x], "move": None if y is None else g.names[y]}
        root |= {f: col[f][x] for f in ("value", "remoteness", "lfp", "gfp")}
    said = printed(
        g.sem, c.head, root, lambda: (g.names, outs(g.sem, col["value"]), col["remoteness"])
    )
    if said is not None:
        return None, "printed", said
    found = None
    if answers is not None and answers.lower().endswith(".csv"):
        found = outcomes(g.sem, lambda name: col["value"][g.index[name]], answers)
    return None if found is None else (found[0], "answers", found[1])


def arrays(sem: str, head: Mapping[str, Any], x: int | None, names: Any, c: Any) -> str | None:
    """``fast.py``'s certificate arrays (-1: none) for the printed lines."""

    def at(f: str, y: int) -> Any:
        v = c[f][y].item() if f in c else None
        return None if v is None or (f in ("remoteness", "move") and v < 0) else v

    root = None
    if x is not None:
        move = at("move", x)
        root = {"name": names[x], "move": None if move is None else names[move]}
        root |= {f: at(f, x) for f in ("value", "remoteness", "lfp", "gfp")}

    def table() -> tuple[Sequence[str], Sequence[int], Sequence[Any]]:
        return names, outs(sem, c["value"].tolist()), c["remoteness"].tolist()

    return printed(sem, head, root, table)


def outs(sem: str, values: Sequence[Any]) -> list[int]:
    return [side(sem, v) for v in values]
