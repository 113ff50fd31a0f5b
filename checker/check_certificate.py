"""Standalone checker of gamegraph-verifier certificates, written from docs/certificates.md.

    python checker/check_certificate.py CASE CERT [--answers FILE]

prints ACCEPTED (exit 0), or the first violation naming the position and the condition (exit 1),
or what it cannot read (exit 2). Standard library only (numpy for ``.npz`` files); it imports
nothing from the package whose output it judges, and reads the case with its own parser. The
condition names (N1..N5, R1..R4, M1..M5, I1..I4) are the document's, each with its argument.
"""

from __future__ import annotations

import csv
import hashlib
import json
import re
import sys
from dataclasses import dataclass
from typing import Any

FORMAT, VERSION, LINE_PLIES = "gamegraph-verifier-certificate", 1, 12
WORDS = {"won": 1, "lost": -1, "draw": 0}
LEAF_WORDS = {"win": 1.0, "draw": 0.0, "loss": -1.0}
INF = re.compile(r"inf(?:\((\d+(?:,\d+)*)?\))?")


@dataclass(frozen=True)
class Outcome:
    status: str  # ACCEPTED, REJECTED or BAD
    message: str
    position: str | None = None
    condition: str | None = None


class Bad(Exception):
    """A file the checker cannot read (exit 2)."""


class Reject(Exception):
    def __init__(self, condition: str, position: str | None, why: str) -> None:
        where = f"position {position!r}: " if position is not None else ""
        super().__init__(f"{where}{condition} {why}")
        self.condition, self.position = condition, position


def need(ok: bool, what: str) -> None:
    if not ok:
        raise Bad(what)


def is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def npz(path: str) -> dict[str, Any]:
    import numpy as np  # only for .npz files

    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def jtext(a: Any) -> Any:
    return json.loads(bytes(a.tobytes()).decode("utf-8"))


# ------------------------------------------------------------------------------ the case
class Game:
    """A case as this checker reads it: per position its successors, owner (-1 none; minimax
    max 0 / min 1), terminal value (minimax score; normal label +1/-1/0), target flag."""

    def __init__(self, path: str) -> None:
        with open(path, "rb") as f:
            raw = f.read()
        self.sha256 = hashlib.sha256(raw).hexdigest()
        if path.lower().endswith(".npz"):
            self._npz(path)
        else:
            self._json(json.loads(raw))
        self.index = {nm: i for i, nm in enumerate(self.names)}
        need(len(self.index) == self.n, "case: two positions share a name")
        self.m = sum(len(s) for s in self.succ)

    def _json(self, d: dict[str, Any]) -> None:
        self.sem = d["semantics"]
        if d.get("encoding", "readable") == "compact":
            n = d["nodes"]
            names = d.get("names") or [str(i) for i in range(n)]
            self.names, self.succ = list(names), [[] for _ in range(n)]
            for s, t in zip(d["edges"]["src"], d["edges"]["dst"], strict=True):
                self.succ[s].append(t)
            self.owner = list(d.get("owner") or [-1] * n)
            vals = d.get("value") or [None] * n
            self.leaf = [self._leaf(v, code=True) for v in vals]
            self.target = [False] * n
            for t in d.get("targets", []):
                self.target[t] = True
            self.root = d.get("root")
            self.sums = [(s["name"], list(s["positions"])) for s in d.get("sums", [])]
            return
        nodes = d["nodes"]
        self.names = list(nodes)
        ix = {nm: i for i, nm in enumerate(self.names)}
        self.succ = [[ix[t] for t in nd.get("moves", [])] for nd in nodes.values()]
        codes = {"max": 0, "min": 1}
        self.owner = [codes.get(nd.get("owner"), nd.get("owner")) for nd in nodes.values()]
        self.owner = [-1 if o is None else o for o in self.owner]
        field = "label" if self.sem == "normal" else "value"
        self.leaf = [self._leaf(nd.get(field), code=False) for nd in nodes.values()]
        self.target = [False] * len(nodes)
        for t in d.get("targets", []):
            self.target[ix[t]] = True
        self.root = None if d.get("root") is None else ix[d["root"]]
        self.sums = [(s["name"], [ix[p] for p in s["positions"]]) for s in d.get("sums", [])]

    def _leaf(self, v: Any, code: bool) -> Any:
        if self.sem == "normal":  # N1: an unlabelled terminal is lost
            if v is None or v != v:
                return -1
            return int(v) if code else {"won": 1, "lost": -1, "draw": 0, "unknown": 0}[v]
        if self.sem == "minimax" and v is not None and v == v:
            return LEAF_WORDS[v] if isinstance(v, str) else float(v)
        return None

    def _npz(self, path: str) -> None:
        z = npz(path)
        head = jtext(z["header"])
        self.sem = head["semantics"]
        ptr, idx = z["succ_ptr"].tolist(), z["succ_idx"].tolist()
        n = len(ptr) - 1
        self.succ = [idx[ptr[i] : ptr[i + 1]] for i in range(n)]
        self.names = jtext(z["names"]) if "names" in z else [str(i) for i in range(n)]
        self.owner = z["owner"].tolist() if "owner" in z else [-1] * n
        vals = z["value"].tolist() if "value" in z else [None] * n
        self.leaf = [self._leaf(v, code=True) for v in vals]
        self.target = z["target"].tolist() if "target" in z else [False] * n
        self.root = head.get("root")
        self.sums = [(s["name"], list(s["positions"])) for s in head.get("sums") or []]

    @property
    def n(self) -> int:
        return len(self.names)


# ------------------------------------------------------------------------ the certificate
class Cert:
    """Per position id: value (normal +1/-1/0, reachability winner, minimax float, impartial
    int or ('inf', K)), remoteness, move (id), lfp, gfp, ranks, counter (None = absent)."""

    FIELDS = ("value", "remoteness", "move", "lfp", "gfp", "lfp_rank", "gfp_rank", "counter")

    def __init__(self, path: str, game: Game) -> None:
        self.g = game
        n = game.n
        self.col: dict[str, list[Any]] = {f: [None] * n for f in self.FIELDS}
        if path.lower().endswith(".npz"):
            z = npz(path)
            self.head = jtext(z["header"])
            loopy = {int(k): v for k, v in (self.head.get("loopy") or {}).items()}
            for f in self.FIELDS:
                if f in z:
                    need(len(z[f]) == n, f"certificate: {f} has {len(z[f])} entries, not {n}")
                    self.col[f] = [
                        self._npz_entry(f, v, i, loopy) for i, v in enumerate(z[f].tolist())
                    ]
        else:
            with open(path, "rb") as fh:
                self.head = json.loads(fh.read())
            nodes = self.head.get("nodes")
            need(isinstance(nodes, dict), "certificate: $.nodes must be an object")
            need(
                set(nodes) == set(game.names),
                "certificate: $.nodes must name every position of the case, and no other",
            )
            for name, e in nodes.items():
                x = game.index[name]
                e = e if isinstance(e, dict) else {"value": e}
                need(set(e) <= set(self.FIELDS), f"certificate: $.nodes[{name!r}]: unknown field")
                for f, v in e.items():
                    self.col[f][x] = self.parse(f, v, f"$.nodes[{name!r}].{f}")
        h = self.head
        need(
            h.get("format") == FORMAT and h.get("version") == VERSION,
            "certificate: not a gamegraph-verifier certificate, version 1",
        )
        need(
            h.get("semantics") == game.sem,
            f"certificate: for {h.get('semantics')} answers, the case is {game.sem}",
        )
        c = h.get("case") or {}
        need(
            c.get("sha256") == game.sha256,
            "certificate: for another case file (case.sha256 differs)",
        )
        need(
            (c.get("positions"), c.get("moves")) == (game.n, game.m),
            "certificate: case counts differ",
        )

    def parse(self, f: str, v: Any, where: str) -> Any:
        sem = self.g.sem
        if f == "move":
            need(v in self.g.index, f"certificate: {where}: no position named {v!r}")
            return self.g.index[v]
        if f in ("remoteness", "lfp_rank", "gfp_rank", "counter"):
            need(is_int(v) and v >= 0, f"certificate: {where}: not a whole number >= 0")
            return v
        if f in ("lfp", "gfp") or sem == "minimax":
            need(is_num(v), f"certificate: {where}: not a number")
            return float(v)
        return self.value(v, where)

    def value(self, v: Any, where: str) -> Any:
        sem = self.g.sem
        if sem == "normal":
            need(v in WORDS, f"certificate: {where}: not won, lost or draw")
            return WORDS[v]
        if sem == "reachability":
            need(is_int(v) and v in (0, 1), f"certificate: {where}: not a winner 0 or 1")
            return v
        if is_int(v) and v >= 0:
            return v
        m = INF.fullmatch(v) if isinstance(v, str) else None
        need(m is not None, f"certificate: {where}: not a Grundy value")
        return ("inf", frozenset(int(k) for k in (m.group(1) or "").split(",") if k))  # type: ignore[union-attr]

    def _npz_entry(self, f: str, v: Any, i: int, loopy: dict[int, list[int]]) -> Any:
        if f in ("lfp", "gfp"):
            return float(v)
        if f == "value":
            sem = self.g.sem
            if sem == "minimax":
                return float(v)
            if sem == "impartial" and v < 0:
                return ("inf", frozenset(loopy.get(i, [])))
            return int(v)
        return None if v < 0 else int(v)


# ---------------------------------------------------------------------------- conditions
def normal(g: Game, c: Cert) -> None:
    val, rem, mv = c.col["value"], c.col["remoteness"], c.col["move"]
    for x in range(g.n):
        nm, ys, v, r = g.names[x], g.succ[x], val[x], rem[x]
        fail = lambda cond, why: Reject(cond, nm, why)  # noqa: E731
        if v is None:
            raise fail("N1", "has no value")
        if (r is not None) != (v != 0):
            raise fail("N2", "remoteness must be given exactly at won and lost positions")
        if not ys:
            if v != g.leaf[x] or (r is not None and r != 0):
                raise fail("N1", "terminal: its label and remoteness 0 are what the case says")
            continue
        lost = [y for y in ys if val[y] == -1]
        if v == 1 and (not lost or r != 1 + min(rem[y] for y in lost)):
            raise fail("N2", "won: needs a lost successor, remoteness 1 + the least of theirs")
        if v == -1 and (any(val[y] != 1 for y in ys) or r != 1 + max(rem[y] for y in ys)):
            raise fail("N3", "lost: every successor won, remoteness 1 + the greatest of theirs")
        if v == 0 and (lost or not any(val[y] == 0 for y in ys)):
            raise fail("N4", "draw: no successor lost and some successor a draw")
        y = mv[x]
        if y is None:
            raise fail("N5", "names no move")
        ok = val[y] == 0 if v == 0 else (val[y] == -v and rem[y] == r - 1)
        if not ok:
            raise fail(
                "N5", "move is not optimal (won: to lost r-1; lost: to r-1; draw: to a draw)"
            )


def reachability(g: Game, c: Cert) -> None:
    val, rem, mv = c.col["value"], c.col["remoteness"], c.col["move"]
    for x in range(g.n):
        nm, ys, r, p1 = g.names[x], g.succ[x], rem[x], g.owner[x] == 1
        fail = lambda cond, why: Reject(cond, nm, why)  # noqa: E731
        if val[x] is None:
            raise fail("R1", "has no value")
        inside = [y for y in ys if val[y] == 0]
        if (r is not None) != (val[x] == 0):
            raise fail("R2", "remoteness must be given exactly where player 0 wins")
        if g.target[x]:
            if val[x] != 0 or r != 0:
                raise fail("R1", "a target: winner 0, remoteness 0")
        elif val[x] == 0:
            if p1 and (not ys or len(inside) < len(ys) or r != 1 + max(rem[y] for y in ys)):
                raise fail("R2", "player 1 in W: every successor in W, layer 1 + the greatest")
            if not p1 and (not inside or r != 1 + min(rem[y] for y in inside)):
                raise fail("R2", "player 0 in W: a successor in W, layer 1 + the least")
        elif (not p1 and inside) or (p1 and ys and len(inside) == len(ys)):
            raise fail("R3", "outside W: player 0 cannot enter W, player 1 can stay out")
        y = mv[x]
        must0 = val[x] == 0 and not g.target[x] and not p1
        must1 = val[x] == 1 and p1 and ys
        if (must0 or must1) and y is None:
            raise fail("R4", "names no move")
        if must0 and (val[y] != 0 or rem[y] != r - 1):
            raise fail("R4", "player 0's move does not go one layer down in W")
        if must1 and val[y] != 1:
            raise fail("R4", "player 1's move enters W")


def minimax(g: Game, c: Cert) -> None:
    val, rem, mv = c.col["value"], c.col["remoteness"], c.col["move"]
    lo, hi, lr, hr = (c.col[k] for k in ("lfp", "gfp", "lfp_rank", "gfp_rank"))
    chain = {v for v in g.leaf if v is not None} | {0.0}
    bottom, top = min(chain), max(chain)
    for x in range(g.n):
        nm, ys, v, r, mx = g.names[x], g.succ[x], val[x], rem[x], g.owner[x] == 0
        fail = lambda cond, why: Reject(cond, nm, why)  # noqa: E731
        if v is None or lo[x] is None or hi[x] is None:
            raise fail("M1", "needs value, lfp and gfp")
        if lo[x] not in chain or hi[x] not in chain:
            raise fail("M1", "lfp and gfp must be values of the chain (leaves and 0)")
        pick = max if mx else min
        if not ys:
            if not lo[x] == hi[x] == g.leaf[x]:
                raise fail("M1", "a leaf's lfp and gfp are its value")
        elif lo[x] != pick(lo[y] for y in ys) or hi[x] != pick(hi[y] for y in ys):
            raise fail("M1", "lfp and gfp must keep the (T+MM) equation")
        for b, rk, end, climb, name in ((lo, lr, bottom, mx, "lfp"), (hi, hr, top, not mx, "gfp")):
            if b[x] == end or not ys:
                if not ys and b[x] != end and rk[x] is None:
                    raise fail("M2", f"a leaf above the chain's end needs its {name}_rank")
                continue
            same = [y for y in ys if b[y] == b[x]]
            if rk[x] is None or any(rk[y] is None for y in same):
                raise fail("M2", f"{name}_rank missing")
            below = [rk[y] < rk[x] for y in same]
            if not (any(below) if climb else all(below)):
                raise fail("M2", f"the {name} is not derived by smaller ranks")
        if v != max(lo[x], min(hi[x], 0.0)):
            raise fail("M3", "the score is not max(lfp, min(gfp, 0)) (Kars' score)")
        if (r is not None) != (v != 0):
            raise fail("M4", "remoteness must be given exactly where the score is not 0")
        if not ys:
            if r not in (None, 0) or mv[x] is not None:
                raise fail("M4", "a leaf: remoteness 0, no move")
            continue
        if v != 0:
            keep = [rem[y] for y in ys if val[y] == v]
            ahead = mx == (v > 0)
            if not keep or r != 1 + (min(keep) if ahead else max(keep)):
                raise fail("M4", "remoteness is not 1 + the least (ahead) / greatest (behind) kept")
        y = mv[x]
        if y is None or val[y] != v or (v != 0 and rem[y] != r - 1):
            raise fail("M5", "the move does not keep the score (and go to remoteness r-1)")


def mex(s: set[int]) -> int:
    k = 0
    while k in s:
        k += 1
    return k


def impartial(g: Game, c: Cert) -> None:
    val, cnt, mv = c.col["value"], c.col["counter"], c.col["move"]
    fin = [isinstance(v, int) for v in val]
    for x in range(g.n):
        nm, ys, v = g.names[x], g.succ[x], val[x]
        fail = lambda cond, why: Reject(cond, nm, why)  # noqa: E731
        if v is None:
            raise fail("I1", "has no value")
        opts = {val[y] for y in ys if fin[y]}
        if fin[x]:
            if cnt[x] is None or v in opts or any(h not in opts for h in range(v)):
                raise fail("I1", "a finite value is the mex of the options' (with a counter)")
            for y in ys:
                if not fin[y] or val[y] > v:
                    if not any(
                        val[z] == v and cnt[z] is not None and cnt[z] < cnt[x] for z in g.succ[y]
                    ):
                        raise fail(
                            "I1",
                            f"option {g.names[y]!r} has no reverting option of value {v} and smaller counter",
                        )
        else:
            if cnt[x] is not None or v[1] != opts:
                raise fail("I2", "inf(K): K is the set of finite option values, no counter")
            m = mex(opts)
            if not any(not fin[y] and all(val[z] != m for z in g.succ[y]) for y in ys):
                raise fail("I2", f"no infinite option without an option of value {m} (condition B)")
    cls = [(1 if v > 0 else -1) if fin[x] else (1 if 0 in v[1] else 0) for x, v in enumerate(val)]
    keep: list[list[int]] = []
    for x in range(g.n):
        y = mv[x]
        if cls[x] == 1 and (y is None or cls[y] != -1):
            raise Reject("I3", g.names[x], "an N position's move must go to a P position")
        if cls[x] == 0 and (y is None or cls[y] != 0):
            raise Reject("I3", g.names[x], "a D position's move must go to a D position")
        keep.append([y] if cls[x] == 1 else g.succ[x])
    lab = retrograde(keep)
    for x in range(g.n):
        if cls[x] != 0 and lab[x] != cls[x]:
            raise Reject("I3", g.names[x], "following the moves the N player does not win")


def retrograde(succ: list[list[int]]) -> list[int]:
    """Won (+1) / lost (-1) / unknown (0) for the mover, a position without moves lost."""
    pred: list[list[int]] = [[] for _ in succ]
    for x, ys in enumerate(succ):
        for y in ys:
            pred[y].append(x)
    count = [len(ys) for ys in succ]
    lab = [0] * len(succ)
    queue = [x for x in range(len(succ)) if not count[x]]
    for x in queue:
        lab[x] = -1
    for y in queue:  # the list grows while it is read
        for x in pred[y]:
            if lab[x]:
                continue
            count[x] -= 1
            if lab[y] == -1 or count[x] == 0:
                lab[x] = 1 if lab[y] == -1 else -1
                queue.append(x)
    return lab


def moves_legal(g: Game, c: Cert) -> None:
    for x, y in enumerate(c.col["move"]):
        if y is not None and y not in g.succ[x]:
            raise Reject("move", g.names[x], f"names {g.names[y]!r}, which is not one of its moves")


# ------------------------------------------------------------------- summary, line, sums
def outcome(sem: str, v: Any) -> int:
    if sem == "reachability":
        return 1 if v == 0 else -1
    if sem == "impartial":
        return (1 if v > 0 else -1) if isinstance(v, int) else (1 if 0 in v[1] else 0)
    return (v > 0) - (v < 0)


def show(sem: str, v: Any) -> Any:
    if sem == "normal":
        return {1: "won", -1: "lost", 0: "draw"}[v]
    if sem == "impartial" and not isinstance(v, int):
        return "inf(" + ",".join(map(str, sorted(v[1]))) + ")" if v[1] else "inf"
    return v


def summary(g: Game, c: Cert) -> None:
    s = c.head.get("summary")
    need(isinstance(s, dict), "certificate: $.summary must be an object")
    val, rem = c.col["value"], c.col["remoteness"]
    out = [outcome(g.sem, v) for v in val]
    wins = [rem[x] for x in range(g.n) if out[x] == 1 and rem[x] is not None]
    want = {"won": out.count(1), "lost": out.count(-1), "drawn": out.count(0),
            "longest_win": max(wins) if wins else None,
            "root": None if g.root is None else g.names[g.root],
            "root_value": None if g.root is None else show(g.sem, val[g.root])}  # fmt: skip
    for k, w in want.items():
        if s.get(k) != w:
            raise Reject("summary", None, f"{k} is {s.get(k)!r}, the entries give {w!r}")
    if g.root is None:
        return
    line, x, seen = [g.names[g.root]], g.root, {g.root}
    while c.col["move"][x] is not None and len(line) <= LINE_PLIES:
        x = c.col["move"][x]
        line.append(g.names[x])
        if x in seen:
            break
        seen.add(x)
    if c.head.get("line") != line:
        raise Reject(
            "line", None, f"the line of play is {c.head.get('line')!r}, the moves give {line!r}"
        )


def sums(g: Game, c: Cert) -> None:
    given = c.head.get("sums") or {}
    for name, parts in g.sums:
        acc, infs = 0, []
        for x in parts:
            v = c.col["value"][x]
            if isinstance(v, int):
                acc ^= v
            else:
                infs.append(v[1])
        want: Any = (
            acc
            if not infs
            else ("inf", frozenset(k ^ acc for k in infs[0]))
            if len(infs) == 1
            else ("inf", frozenset())
        )
        if name not in given or c.value(given[name], f"$.sums[{name!r}]") != want:
            raise Reject(
                "I4",
                None,
                f"sum {name!r} is {given.get(name)!r}, its components give {show('impartial', want)!r}",
            )


def uniqueness(g: Game, c: Cert) -> int:
    u = c.head.get("uniqueness")
    if u is None:
        return 0
    claim, proof = u.get("claim"), u.get("proof")
    need(claim in ("unique", "not unique"), "certificate: $.uniqueness.claim")
    if proof == "rests-on-z3":
        need(isinstance(u.get("reason"), str), "certificate: $.uniqueness.reason")
        return 1
    if proof == "intervals" and g.sem == "minimax":
        if (claim == "unique") != all(a == b for a, b in zip(c.col["lfp"], c.col["gfp"])):
            raise Reject(
                "uniqueness", None, f"{claim}, but lfp = gfp everywhere is {claim != 'unique'}"
            )
        return 0
    need(
        proof == "witness" and claim == "not unique" and g.sem in ("normal", "impartial"),
        "certificate: $.uniqueness.proof",
    )
    w = dict(enumerate(c.col["value"]))
    for name, v in (u.get("witness") or {}).items():
        need(name in g.index, f"certificate: $.uniqueness.witness: no position {name!r}")
        w[g.index[name]] = c.value(v, f"$.uniqueness.witness[{name!r}]")
    if all(w[x] == c.col["value"][x] for x in w):
        raise Reject("uniqueness", None, "the witness is the certified solution itself")
    for x in range(g.n):
        ys = [w[y] for y in g.succ[x]]
        if g.sem == "normal":
            ok = w[x] == (
                g.leaf[x] if not ys else 1 if -1 in ys else -1 if all(v == 1 for v in ys) else 0
            )
        else:
            ok = (
                isinstance(w[x], int)
                and all(isinstance(v, int) for v in ys)
                and w[x] == mex(set(ys))
            )
        if not ok:
            raise Reject("uniqueness", g.names[x], "the second solution breaks the rule here")
    return 0


# ---------------------------------------------------------------------------- answers file
def answers(g: Game, c: Cert, path: str) -> None:
    rows: dict[str, dict[str, Any]] = {}
    if path.lower().endswith(".npz"):
        z = npz(path)
        loopy = {int(k): v for k, v in (jtext(z["header"]).get("loopy") or {}).items()}
        for k, x in enumerate(z["ids"].tolist()):
            row = {
                f: c._npz_entry(f, z[f][k].item(), x, loopy)
                for f in ("value", "remoteness", "move")
                if f in z
            }
            rows[g.names[x]] = row
    elif path.lower().endswith(".csv"):
        with open(path, newline="", encoding="utf-8") as f:
            for r in csv.DictReader(f):
                name = r.get("node", r.get("position"))
                row = {k: r.get(k) or None for k in ("value", "remoteness", "move")}
                rows[str(name)] = {k: cell(g.sem, k, v) for k, v in row.items() if v is not None}
    else:
        with open(path, "rb") as f:
            nodes = json.loads(f.read())["nodes"]
        for name, e in nodes.items():
            e = e if isinstance(e, dict) else {"value": e}
            rows[name] = {k: v for k, v in e.items() if k in ("value", "remoteness", "move")}
    for name, row in rows.items():
        need(name in g.index, f"answers: no position named {name!r}")
        x = g.index[name]
        for f in ("value", "remoteness", "move"):
            v = row.get(f)
            if v is not None and not path.lower().endswith(".npz"):
                v = c.parse(f, v, f"answers {name!r}.{f}")
            if v != c.col[f][x]:
                raise Reject(
                    "answers",
                    name,
                    f"the answer file says {f} {v!r}, the certificate {c.col[f][x]!r}",
                )


def cell(sem: str, key: str, v: str) -> Any:
    """A CSV cell as the JSON encoding would hold it."""
    if key == "move":
        return v
    if key == "remoteness" or sem in ("reachability",) or (sem == "impartial" and v.isdigit()):
        return int(v) if re.fullmatch(r"-?\d+", v) else v
    if sem == "minimax":
        return json.loads(v) if re.fullmatch(r"-?\d+(\.\d*)?([eE][-+]?\d+)?", v) else v
    return v


# ------------------------------------------------------------------------------- driver
SEMANTICS = {
    "normal": normal,
    "reachability": reachability,
    "minimax": minimax,
    "impartial": impartial,
}


def check(case_path: str, cert_path: str, answers_path: str | None = None) -> Outcome:
    try:
        g = Game(case_path)
        need(g.sem in SEMANTICS, f"case: unknown semantics {g.sem!r}")
        c = Cert(cert_path, g)
        moves_legal(g, c)
        SEMANTICS[g.sem](g, c)
        summary(g, c)
        if g.sem == "impartial":
            sums(g, c)
        trusted = uniqueness(g, c)
        if answers_path is not None:
            answers(g, c, answers_path)
    except Reject as r:
        return Outcome("REJECTED", str(r), r.position, r.condition)
    except Bad as e:
        return Outcome("BAD", str(e), None, "file")
    except Exception as e:  # anything unreadable: a bad file, never a traceback
        return Outcome("BAD", f"cannot read: {type(e).__name__}: {e}", None, "file")
    note = " (uniqueness rests on Z3)" if trusted else ""
    return Outcome("ACCEPTED", f"ACCEPTED{note}")


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    answers_path = None
    if "--answers" in args:
        k = args.index("--answers")
        answers_path = args[k + 1] if k + 1 < len(args) else None
        del args[k : k + 2]
    if len(args) != 2 or ("--answers" in (argv or sys.argv) and answers_path is None):
        print("usage: check_certificate.py CASE CERT [--answers FILE]", file=sys.stderr)
        return 2
    out = check(args[0], args[1], answers_path)
    if out.status == "BAD":
        print(f"error: {out.message}", file=sys.stderr)
        return 2
    print(out.message if out.status == "ACCEPTED" else f"REJECTED: {out.message}")
    return 0 if out.status == "ACCEPTED" else 1


if __name__ == "__main__":
    sys.exit(main())
