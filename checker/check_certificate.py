"""Standalone checker of gamegraph-verifier certificates, written from docs/certificates.md.

    python checker/check_certificate.py CASE CERT [--answers FILE]  (DIR CERT: judge.py's)

prints ACCEPTED (exit 0), or the first violation naming the position and the condition (exit 1),
or what it cannot read (exit 2). Standard library only (numpy for ``.npz`` files); it imports
nothing from the package whose output it judges, and reads the case with its own parser. The
condition names (N1..N5, R1..R4, M1..M5, I1..I4) are the document's, each with its argument."""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import os
import re
import sys
from typing import Any, NamedTuple

try:  # imported as the package ``checker``, or run as a script from its folder
    from checker import graphs, name_codecs, stages, words
    from checker.drup import BadProof, claim_fault, z3_fault
    from checker.reading import Unreadable, cell, csv_columns, has_numpy, jtext, loads, npz
    from checker.wording import said
except ImportError:  # pragma: no cover - the script's way
    import graphs  # type: ignore[import-not-found,no-redef]
    import name_codecs  # type: ignore[import-not-found,no-redef]
    import stages  # type: ignore[import-not-found,no-redef]
    import words  # type: ignore[import-not-found,no-redef]
    from drup import BadProof, claim_fault, z3_fault  # type: ignore[import-not-found,no-redef]
    from reading import Unreadable, cell, csv_columns, has_numpy, jtext, loads, npz  # type: ignore[import-not-found,no-redef]
    from wording import said  # type: ignore[import-not-found,no-redef]

FORMAT, VERSION, LINE_PLIES = "gamegraph-verifier-certificate", 1, 12
WORDS = {"won": 1, "lost": -1, "draw": 0}
LEAF_WORDS = {"win": 1.0, "draw": 0.0, "loss": -1.0}
INF = re.compile(r"inf(?:\((\d+(?:,\d+)*)?\))?")


class Outcome(NamedTuple):
    status: str  # ACCEPTED, REJECTED or BAD
    message: str
    position: str | None = None
    condition: str | None = None


class Bad(Exception):
    """A file the checker cannot read (exit 2)."""


class Reject(Exception):
    def __init__(self, position: str | None, condition: str, why: str) -> None:
        super().__init__(said(position, condition, why))
        self.condition, self.position = condition, position


def need(ok: bool, what: str) -> None:
    if not ok:
        raise Bad(what)


# ------------------------------------------------------------------------------ the case
class Game:
    """A case as this checker reads it: per position its successors, owner (-1 none; minimax
    max 0 / min 1), terminal value (minimax score; normal label +1/-1/0), target flag."""

    def __init__(self, path: str) -> None:
        with open(path, "rb") as f:
            raw = f.read()
        self.sha256 = hashlib.sha256(raw).hexdigest()
        if path.lower().endswith(graphs.SUFFIXES):  # read by checker/graphs.py, given on as JSON
            raw = json.dumps(graphs.read(raw, path, Bad)).encode()
        d = self._npz(path) if path.lower().endswith(".npz") else loads(raw)
        if "name_codec" in d and type(d["nodes"]) is int:  # a game's codes: named here
            d["names"] = name_codecs.Names(d["name_codec"], d.get("name_codes"), d["nodes"], Bad)
        self.sem, n, code = d["semantics"], d["nodes"], True
        if isinstance(n, dict):  # readable: names, moves, owner words, values or labels
            nodes, code = n, False
            self.names = list(nodes)
            ix = {nm: i for i, nm in enumerate(self.names)}
            self.succ = [[ix[t] for t in nd.get("moves", [])] for nd in nodes.values()]
            words = {"max": 0, "min": 1}
            own = [words.get(nd.get("owner"), nd.get("owner")) for nd in nodes.values()]
            vals = [nd.get("label" if self.sem == "normal" else "value") for nd in nodes.values()]
            pos = ix.__getitem__
        else:  # compact (and .npz): ids, parallel arrays
            self.names = d.get("names") or [str(i) for i in range(n)]
            self.succ = [[] for _ in range(n)]
            for s, t in zip(d["edges"]["src"], d["edges"]["dst"], strict=True):
                self.succ[s].append(t)
            own, vals, pos = d.get("owner") or [-1] * n, d.get("value") or [None] * n, int
        self.owner = [-1 if o is None else o for o in own]
        self.leaf = [self._leaf(v, code) for v in vals]
        self.target = [False] * len(self.names)
        for t in d.get("targets") or []:
            self.target[pos(t)] = True
        self.root = None if d.get("root") is None else pos(d["root"])
        self.sums = [(s["name"], [pos(p) for p in s["positions"]]) for s in d.get("sums") or []]
        self.coded = "name_codec" in d  # names coded by a game's codec: a listed copy must agree
        self.decoded = self.names  # name_codecs.Names where coded: what the codec knows
        self.named(list(self.names))

    def named(self, names: list[str]) -> None:
        self.names, self.index, self.n = names, {nm: i for i, nm in enumerate(names)}, len(names)
        need(len(self.index) == self.n, "two positions share a name")
        self.m = sum(len(s) for s in self.succ)

    def _leaf(self, v: Any, code: bool) -> Any:
        if self.sem == "normal":  # N1: an unlabelled terminal is lost
            if v is None or v != v:
                return -1
            return int(v) if code else {"won": 1, "lost": -1, "draw": 0, "unknown": 0}[v]
        if self.sem == "minimax" and v is not None and v == v:
            return LEAF_WORDS[v] if isinstance(v, str) else float(v)
        return None

    @staticmethod
    def _npz(path: str) -> dict[str, Any]:
        """A ``.npz`` case as the compact encoding's fields."""
        z = npz(path)
        d: dict[str, Any] = jtext(z["header"])
        ptr, idx = z["succ_ptr"].tolist(), z["succ_idx"].tolist()
        src = [x for x in range(len(ptr) - 1) for _ in range(ptr[x + 1] - ptr[x])]
        d |= {"nodes": len(ptr) - 1, "edges": {"src": src, "dst": idx}}
        d["names"] = jtext(z["names"]) if "names" in z else None
        d["name_codes"] = z.get("name_codes")
        d["targets"] = [i for i, t in enumerate(z["target"].tolist()) if t] if "target" in z else []
        for k in ("owner", "value"):
            d[k] = z[k].tolist() if k in z else None
        return d


# ------------------------------------------------------------------------ the certificate
class Cert:
    """Per position id: value (normal +1/-1/0, reachability winner, minimax float, impartial
    int or ('inf', K)), remoteness, move (id), lfp, gfp, ranks, counter (None = absent)."""

    FIELDS = ("value", "remoteness", "move", "lfp", "gfp", "lfp_rank", "gfp_rank", "counter")

    def __init__(self, path: str, game: Game) -> None:
        self.g, n, z = game, game.n, npz(path) if path.lower().endswith(".npz") else None
        with open(path, "rb") as fh:
            self.head = jtext(z["header"]) if z is not None else loads(fh.read())
        agree(h := self.head, game.sem, game.sha256, game.n, game.m)
        listed = h.get("names") if z is None else [x.decode() for x in z.get("names", [])]
        if game.coded and listed:  # the names listed must be those the case's codes give
            need(isinstance(listed, list) and len(listed) == n, "names: one per position")
            x = next((x for x in range(n) if listed[x] != game.names[x]), None)
            if x is not None:
                raise Reject(game.names[x], "names", f"differ: the certificate says {listed[x]!r}")
        self.col: dict[str, list[Any]] = {f: [None] * n for f in self.FIELDS}
        if z is not None:  # arrays by id
            loopy = {int(k): v for k, v in (self.head.get("loopy") or {}).items()}
            for f in (f for f in self.FIELDS if f in z):
                need(len(z[f]) == n, f"{f} has {len(z[f])} entries, not {n}")
                self.col[f] = [self.npz_entry(f, v, i, loopy) for i, v in enumerate(z[f].tolist())]
            return
        nodes = self.head.get("nodes")
        need(isinstance(nodes, dict) and set(nodes) == set(game.names), "$.nodes: not the case's")
        for name, e in nodes.items():
            e = e if isinstance(e, dict) else {"value": e}
            need(set(e) <= set(self.FIELDS), f"$.nodes[{name!r}]: unknown field")
            for f, v in e.items():
                self.col[f][game.index[name]] = self.parse(f, v, f"$.nodes[{name!r}].{f}")

    def parse(self, f: str, v: Any, where: str) -> Any:
        """An entry as written (JSON) in this checker's terms; ``BAD`` if it is none."""
        sem, bad = self.g.sem, f"{where}: not a {f} of {self.g.sem}"
        if f == "move":
            need(v in self.g.index, f"{where}: no position named {v!r}")
            return self.g.index[v]
        if f in ("remoteness", "lfp_rank", "gfp_rank", "counter") or sem == "reachability":
            need(type(v) is int and v >= 0 and (f != "value" or v < 2), bad)
            return v
        if f in ("lfp", "gfp") or sem == "minimax":
            need(isinstance(v, (int, float)) and not isinstance(v, bool), bad)
            return float(v)
        if sem == "normal":
            need(v in WORDS, bad)
            return WORDS[v]
        m = INF.fullmatch(v) if isinstance(v, str) else None
        need((type(v) is int and v >= 0) or m is not None, bad)
        return v if m is None else ("inf", frozenset(int(k) for k in (m[1] or "").split(",") if k))

    def npz_entry(self, f: str, v: Any, i: int, loopy: dict[int, list[int]]) -> Any:
        """An ``.npz`` entry (-1 = none; an infinite Grundy value's K in the header)."""
        if f in ("lfp", "gfp") or (f == "value" and self.g.sem == "minimax"):
            return float(v)
        if f == "value" and self.g.sem == "impartial" and v < 0:
            return ("inf", frozenset(loopy.get(i, [])))
        ok = {"normal": (-1, 0, 1), "reachability": (0, 1)}.get(self.g.sem)
        need(type(v) is int or float(v).is_integer(), f"{f}[{i}]: {v!r} is not an integer")
        need(f != "value" or ok is None or v in ok, f"{f}[{i}]: not a value of {self.g.sem}")
        return int(v) if f == "value" or v >= 0 else None


def agree(h: dict[str, Any], sem: str, sha256: str, n: int, m: int) -> None:
    """The certificate is of this case file (BAD if not)."""
    c = h.get("case") or {}
    need(h.get("format") == FORMAT and h.get("version") == VERSION, "not a certificate v1")
    need(h.get("semantics") == sem, f"for {h.get('semantics')}, the case is {sem}")
    need(c.get("sha256") == sha256, "for another case file (case.sha256 differs)")
    need((c.get("positions"), c.get("moves")) == (n, m), "case counts differ")


# ---------------------------------------------------------------------------- conditions
def present(g: Game, c: Cert, field: str, cond: str, want: Any) -> None:
    """Field ``field`` is given exactly where ``want(x)`` (a sure answer: True/False) says."""
    for x, v in enumerate(c.col[field]):
        w = want(x)
        if w is not None and (v is not None) != w:
            raise Reject(g.names[x], cond, f"{field} {'missing' if w else 'given'} here")


def normal(g: Game, c: Cert) -> None:
    val, rem, mv = c.col["value"], c.col["remoteness"], c.col["move"]
    present(g, c, "value", "N1", lambda x: True)
    present(g, c, "remoteness", "N2", lambda x: val[x] != 0)
    present(g, c, "move", "N5", lambda x: bool(g.succ[x]))
    for x in range(g.n):
        nm, ys, v, r = g.names[x], g.succ[x], val[x], rem[x]
        lost = [y for y in ys if val[y] == -1]
        if not ys and (v != g.leaf[x] or r not in (None, 0)):
            raise Reject(nm, "N1", "a terminal: its label, remoteness 0")
        if ys and v == 1 and (not lost or r != 1 + min(rem[y] for y in lost)):
            raise Reject(nm, "N2", "won: a lost successor, remoteness 1 + their least")
        if ys and v == -1 and (any(val[y] != 1 for y in ys) or r != 1 + max(rem[y] for y in ys)):
            raise Reject(nm, "N3", "lost: every successor won, remoteness 1 + their greatest")
        if ys and v == 0 and (lost or all(val[y] != 0 for y in ys)):
            raise Reject(nm, "N4", "draw: no successor lost, some successor a draw")
        y = mv[x]
        if ys and (val[y] != 0 if v == 0 else (val[y] != -v or rem[y] != r - 1)):
            raise Reject(nm, "N5", "the move is not optimal")


def reachability(g: Game, c: Cert) -> None:
    val, rem, mv, own = c.col["value"], c.col["remoteness"], c.col["move"], g.owner
    present(g, c, "value", "R1", lambda x: True)
    present(g, c, "remoteness", "R2", lambda x: val[x] == 0)
    must = [bool(g.succ[x]) and not g.target[x] and val[x] == (own[x] == 1) for x in range(g.n)]
    present(g, c, "move", "R4", lambda x: True if must[x] else None)  # the winner's, off targets
    for x in range(g.n):
        nm, ys, r, p1 = g.names[x], g.succ[x], rem[x], own[x] == 1
        inside = [y for y in ys if val[y] == 0]
        if g.target[x] and (val[x] != 0 or r != 0):
            raise Reject(nm, "R1", "a target: winner 0, remoteness 0")
        if val[x] == 1 and ((not p1 and inside) or (p1 and ys and len(inside) == len(ys))):
            raise Reject(nm, "R3", "outside W: 0 cannot enter W, 1 can stay out")
        layer = val[x] == 0 and not g.target[x]  # in W off the targets: R2's layers
        if layer and p1 and (len(inside) < len(ys) or not ys or r != 1 + max(rem[y] for y in ys)):
            raise Reject(nm, "R2", "player 1 in W: all moves in W, layer 1 + their greatest")
        if layer and not p1 and (not inside or r != 1 + min(rem[y] for y in inside)):
            raise Reject(nm, "R2", "player 0 in W: a move into W, layer 1 + their least")
        y = mv[x]
        if must[x] and (val[y] != val[x] or (val[x] == 0 and rem[y] != r - 1)):
            raise Reject(nm, "R4", "the move leaves the winner's side (or W's next layer)")


def minimax(g: Game, c: Cert) -> None:
    val, rem, mv = c.col["value"], c.col["remoteness"], c.col["move"]
    lo, hi, lr, hr = (c.col[k] for k in ("lfp", "gfp", "lfp_rank", "gfp_rank"))
    chain = {v for v in g.leaf if v is not None} | {0.0}
    bottom, top = min(chain), max(chain)
    for f in ("value", "lfp", "gfp"):
        present(g, c, f, "M1", lambda x: True)
    present(g, c, "remoteness", "M4", lambda x: val[x] != 0)
    present(g, c, "move", "M5", lambda x: bool(g.succ[x]))
    present(g, c, "lfp_rank", "M2", lambda x: True if lo[x] != bottom else None)
    present(g, c, "gfp_rank", "M2", lambda x: True if hi[x] != top else None)
    for x in range(g.n):
        nm, ys, v, r, mx = g.names[x], g.succ[x], val[x], rem[x], g.owner[x] == 0
        pick = max if mx else min
        if lo[x] not in chain or hi[x] not in chain:
            raise Reject(nm, "M1", "lfp and gfp must be values of the chain (leaves and 0)")
        if not ys and not lo[x] == hi[x] == g.leaf[x]:
            raise Reject(nm, "M1", "a leaf's lfp and gfp are its value")
        if ys and (lo[x] != pick(lo[y] for y in ys) or hi[x] != pick(hi[y] for y in ys)):
            raise Reject(nm, "M1", "lfp and gfp must keep the (T+MM) equation")
        for b, rk, end, climb, what in ((lo, lr, bottom, mx, "lfp"), (hi, hr, top, not mx, "gfp")):
            if not ys or b[x] == end:
                continue
            below = [rk[y] < rk[x] for y in ys if b[y] == b[x]]
            if not (any(below) if climb else all(below)):
                raise Reject(nm, "M2", f"the {what} is not derived by smaller ranks")
        if v != max(lo[x], min(hi[x], 0.0)):
            raise Reject(nm, "M3", "the score is not max(lfp, min(gfp, 0)) (Kars' score)")
        keep = [rem[y] for y in ys if val[y] == v] or [-2]  # none: no remoteness fits
        if v != 0 and r != (1 + (min(keep) if mx == (v > 0) else max(keep)) if ys else 0):
            raise Reject(nm, "M4", "remoteness: 1 + least (ahead) / greatest (behind) kept")
        y = mv[x]
        if ys and (val[y] != v or (v != 0 and rem[y] != r - 1)):
            raise Reject(nm, "M5", "the move does not keep the score (remoteness r-1)")


def impartial(g: Game, c: Cert) -> None:
    val, cnt, mv = c.col["value"], c.col["counter"], c.col["move"]
    present(g, c, "value", "I1", lambda x: True)
    fin = [isinstance(v, int) for v in val]
    cls = [(1 if v > 0 else -1) if fin[x] else (1 if 0 in v[1] else 0) for x, v in enumerate(val)]
    present(g, c, "counter", "I1", lambda x: fin[x])
    present(g, c, "move", "I3", lambda x: cls[x] >= 0)
    for x in range(g.n):
        nm, ys, v = g.names[x], g.succ[x], val[x]
        opts = {val[y] for y in ys if fin[y]}
        if fin[x] and (v in opts or any(h not in opts for h in range(v))):
            raise Reject(nm, "I1", "a finite value is the mex of the options' values")
        for y in ys if fin[x] else ():
            fine = any(val[z] == v and fin[z] and cnt[z] < cnt[x] for z in g.succ[y])
            if (not fin[y] or val[y] > v) and not fine:
                raise Reject(nm, "I1", f"option {g.names[y]!r}: no revert to {v}, smaller counter")
        if not fin[x] and v[1] != opts:
            raise Reject(nm, "I2", "inf(K): K must be the options' finite values")
        m = min(set(range(len(opts) + 1)) - opts)  # the mex
        if not fin[x] and not any(not fin[y] and all(val[z] != m for z in g.succ[y]) for y in ys):
            raise Reject(nm, "I2", f"no infinite option lacks an option {m} (condition B)")
        y = mv[x]
        if cls[x] >= 0 and cls[y] != (-1 if cls[x] else 0):
            raise Reject(nm, "I3", "N must move to P, D to D")
    lab = retrograde([[mv[x]] if cls[x] == 1 else g.succ[x] for x in range(g.n)])
    for x in range(g.n):
        if cls[x] != 0 and lab[x] != cls[x]:
            raise Reject(g.names[x], "I3", "following the moves the N player does not win")


def retrograde(succ: list[list[int]]) -> list[int]:
    """Won (+1) / lost (-1) / unknown (0) for the mover; a position without moves is lost."""
    pred: list[list[int]] = [[] for _ in succ]
    for x, ys in enumerate(succ):
        for y in ys:
            pred[y].append(x)
    count = [len(ys) for ys in succ]
    queue = [x for x in range(len(succ)) if not count[x]]
    lab = [-1 if not c else 0 for c in count]
    for y in queue:  # the list grows while it is read
        for x in pred[y]:
            count[x] -= 1
            if not lab[x] and (lab[y] == -1 or count[x] == 0):
                lab[x] = -lab[y]
                queue.append(x)
    return lab


# ------------------------------------------------------------------- summary, line, sums
def outcome(sem: str, v: Any) -> int:  # +1 won, -1 lost, 0 drawn, for the counted side
    if sem == "impartial":
        return (1 if v > 0 else -1) if isinstance(v, int) else (1 if 0 in v[1] else 0)
    return (1 if v == 0 else -1) if sem == "reachability" else int(v > 0) - int(v < 0)


def summary(g: Game, c: Cert) -> None:
    s, val, rem = c.head.get("summary"), c.col["value"], c.col["remoteness"]
    need(isinstance(s, dict), "$.summary must be an object")
    out = [outcome(g.sem, v) for v in val]
    wins = [rem[x] for x in range(g.n) if out[x] == 1 and rem[x] is not None]
    root = g.root
    want = {"won": out.count(1), "lost": out.count(-1), "drawn": out.count(0),
            "longest_win": max(wins) if wins else None,
            "root": None if root is None else g.names[root],
            "root_value": None if root is None else val[root],
            **name_codecs.facts(g.decoded, out, rem)}  # fmt: skip
    if root is not None:  # a value as written: parsed as the entries are
        s = s | {"root_value": c.parse("value", s.get("root_value"), "$.summary.root_value")}
    for k, w in want.items():
        if s.get(k) != w:
            raise Reject(None, "summary", f"{k} is {s.get(k)!r}, the entries give {w!r}")
    line, x, seen = [] if root is None else [g.names[root]], root, {root}
    while x is not None and c.col["move"][x] is not None and len(line) <= LINE_PLIES:
        x = c.col["move"][x]
        line.append(g.names[x])
        x = None if x in seen else x
        seen.add(x)
    if c.head.get("line", []) != line:
        raise Reject(None, "line", f"is {c.head.get('line')!r}, the moves give {line!r}")


def sums(g: Game, c: Cert) -> None:  # I4
    given = c.head.get("sums") or {}
    for name, parts in g.sums:
        vals = [c.col["value"][x] for x in parts]
        acc, infs = 0, [v[1] for v in vals if not isinstance(v, int)]
        for v in vals:
            acc ^= v if isinstance(v, int) else 0
        ks = frozenset(k ^ acc for k in infs[0]) if len(infs) == 1 else frozenset()
        want = ("inf", ks) if infs else acc
        if name not in given or c.parse("value", given[name], f"$.sums[{name!r}]") != want:
            raise Reject(None, "I4", f"sum {name!r}: the components give {want!r}")


def uniqueness(g: Game, c: Cert) -> int:
    """0 when the uniqueness claim (if any) is checked, 1 when it rests on Z3 (allowed only
    above the size where a proof is written: the checker counts the CNF's clauses itself)."""
    if c.head.get("uniqueness") is None:
        return 0  # no claim
    u, lo, hi = c.head["uniqueness"], c.col["lfp"], c.col["gfp"]
    need(isinstance(u, dict) and u.get("claim") in ("unique", "not unique"), "$.uniqueness.claim")
    claim, proof = u["claim"], u.get("proof")
    if proof == "rests-on-z3":
        need(isinstance(u.get("reason"), str), "$.uniqueness.reason")
        ys = [ys for x, ys in enumerate(g.succ) if g.sem != "normal" or c.col["value"][x] == 0]
        return z3_fault(g.sem, len(ys), sum(map(len, ys)), sum(len(y) ** 2 for y in ys))
    if proof == "intervals" and g.sem == "minimax":
        if (claim == "unique") != (lo == hi):
            raise Reject(None, "uniqueness", f"{claim}, but lfp = gfp is {lo == hi}")
        return 0
    second = list(c.col["value"])  # normal play's witness: the certified labelling, changed
    for name, v in (u.get("witness") or {}).items() if proof == "witness" else ():
        second[g.index[name]] = c.parse("value", v, f"$.uniqueness.witness[{name!r}]")
    found = claim_fault(g.sem, g.succ, g.leaf, c.col["value"], u, second, g.index)
    if found is not None:
        raise Reject(None if found[0] is None else g.names[found[0]], "uniqueness", found[1])
    return 0


# ---------------------------------------------------------------------------- answers file
def answers(g: Game, c: Cert, path: str) -> None:
    """The answer file written beside the certificate says what it says, position by position."""
    fields, rows = ("value", "remoteness", "move"), list[tuple[str, dict[str, Any]]]()
    if path.lower().endswith(".npz"):
        z = npz(path)
        loopy = {int(k): v for k, v in (jtext(z["header"]).get("loopy") or {}).items()}
        cols = [(f, z[f].tolist()) for f in fields if f in z]  # lists: no numpy per entry
        for k, x in enumerate(z["ids"].tolist()):
            rows.append((g.names[x], {f: c.npz_entry(f, col[k], x, loopy) for f, col in cols}))
    elif path.lower().endswith(".csv"):  # by columns, as the numpy path reads it
        table = csv_columns(path)  # every row has the header's cells
        for r in (dict(zip(table, cells, strict=True)) for cells in zip(*table.values())):  # noqa: B905
            row = {k: cell(g.sem, k, r[k]) for k in fields if r.get(k)}
            rows.append((str(r.get("node", r.get("position"))), row))
    else:
        with open(path, "rb") as fh:
            for name, e in loads(fh.read())["nodes"].items():
                rows.append((name, e if isinstance(e, dict) else {"value": e}))
    seen: set[str] = set()
    for name, _ in rows:  # a position answered twice: BAD, as verify --answers says
        need(name not in seen, f"duplicate entry for position {name!r}")
        seen.add(name)
    for name, row in rows:
        need(name in g.index, f"no position named {name!r}")
        for f in fields:
            v, want = row.get(f), c.col[f][g.index[name]]
            if v is not None and not path.lower().endswith(".npz"):
                v = c.parse(f, v, f"answers {name!r}.{f}")
            if v != want:
                raise Reject(name, "answers", f"the file says {f} {v!r}, the certificate {want!r}")


# ------------------------------------------------------------------------------- driver
SEMANTICS = dict(normal=normal, reachability=reachability, minimax=minimax, impartial=impartial)


def check(case_path: str, cert_path: str, answers_path: str | None = None) -> Outcome:
    """Judge ``cert_path`` (and ``answers_path``) for the case file ``case_path``."""
    if all(p.lower().endswith(".npz") for p in (case_path, cert_path)) and has_numpy():
        fast = importlib.import_module(f"{__package__}.fast" if __package__ else "fast")
        found = fast.judge(case_path, cert_path, answers_path, agree)  # None: not its kind
        if found is not None:
            return Outcome(*found)
    at = case_path  # the file being read, named by a BAD outcome
    try:
        g = stages.step("reading the case", 0, Game, case_path)
        need(g.sem in SEMANTICS, f"unknown semantics {g.sem!r}")
        at = cert_path
        c = stages.step("reading the certificate", g.n, Cert, cert_path, g)
        for x, y in enumerate(c.col["move"]):  # every move named is a move of its position
            if y is not None and y not in g.succ[x]:
                raise Reject(g.names[x], "move", f"names {g.names[y]!r}, not one of its moves")
        stages.step(f"the conditions of {g.sem}", g.n, SEMANTICS[g.sem], g, c)
        summary(g, c)
        sums(g, c)
        trusted = stages.step("the uniqueness claim", g.n, uniqueness, g, c)
        if answers_path is not None:
            at = answers_path
            answers(g, c, answers_path)
        if (wrong := words.plain(g, c, answers_path)) is not None:  # the words printed
            raise Reject(*wrong)
    except Reject as r:
        return Outcome("REJECTED", str(r), r.position, r.condition)
    except Exception as e:  # anything unreadable: a bad file, never a traceback
        mine = isinstance(e, Bad | BadProof | Unreadable)  # else: in Python's words
        why = str(e) if mine else f"cannot read: {type(e).__name__}: {e}"
        return Outcome("BAD", f"{at}: {why}", None, "file")
    return Outcome("ACCEPTED", "ACCEPTED" + (" (uniqueness rests on Z3)" if trusted else ""))


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and os.path.isdir(args[0]):  # a tiered dataset: judge.py, shard by shard
        return int(importlib.import_module(f"{__package__ or ''}.judge".strip(".")).main(args))
    ap = argparse.ArgumentParser(description="Check a gamegraph-verifier certificate.")
    ap.add_argument("case")
    ap.add_argument("certificate")
    ap.add_argument("--answers", help="an answer file that must say what the certificate says")
    a = ap.parse_args(args)  # a usage error exits 2
    out = stages.watched(check, a.case, a.certificate, a.answers)
    code = {"ACCEPTED": 0, "REJECTED": 1, "BAD": 2}[out.status]
    line = [out.message, f"REJECTED: {out.message}", f"error: {out.message}"][code]
    print(line, file=sys.stderr if code == 2 else sys.stdout)
    return code


if __name__ == "__main__":
    sys.exit(main())
