"""The checker's conditions over numpy arrays, for a ``.npz`` case with a ``.npz`` certificate
(docs/certificates.md, *Two paths*): the same conditions as ``check_certificate.py``, checked
in the same order, so the first violation reported (position and condition) is the same; one
pass of whole-array operations per condition instead of a Python loop per position.

Covers ``normal``, ``reachability`` and ``minimax`` with no uniqueness proof to replay (none,
``rests-on-z3``, ``intervals``, ``ranks``) and an ``.npz`` or CSV answer file or none; anything else
returns ``None`` and the plain path judges it. Arrays: -1 marks an absent remoteness, move or
rank; a row of the CSR may be empty (a terminal).
"""

from __future__ import annotations

import hashlib
from functools import cache
from typing import Any

import numpy as np

try:  # imported as the package ``checker``, or run as a script from its folder
    from checker import name_codecs as codecs
    from checker import stages, words
    from checker.cells import counts, named, natural, number
    from checker.drup import z3_fault
    from checker.reading import csv_columns, loads, paused_gc
    from checker.wording import said
except ImportError:  # pragma: no cover - the script's way
    import name_codecs as codecs  # type: ignore[import-not-found,no-redef]
    import stages  # type: ignore[import-not-found,no-redef]
    import words  # type: ignore[import-not-found,no-redef]
    from cells import counts, named, natural, number  # type: ignore[import-not-found,no-redef]
    from drup import z3_fault  # type: ignore[import-not-found,no-redef]
    from reading import csv_columns, loads, paused_gc  # type: ignore[import-not-found,no-redef]
    from wording import said  # type: ignore[import-not-found,no-redef]

LINE_PLIES = 12  # as check_certificate.py
WORDS = {"won": 1, "lost": -1, "draw": 0}
VALUES = {"normal": (-1, 0, 1), "reachability": (0, 1)}  # the values an .npz entry may hold

Found = tuple[int | None, str, str]  # the position (id), the condition, why


class Violation(Exception):
    def __init__(self, x: int | None, cond: str, why: str) -> None:
        super().__init__(why)
        self.found: Found = (x, cond, why)


class BadFile(Exception):
    """A file this path cannot read (exit 2)."""


class Ids:
    """The names of a case that gives none: the ids (made one at a time, when asked)."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, x: int) -> str:
        if not 0 <= x < self.n:
            raise IndexError(x)
        return str(x)

    def __iter__(self) -> Any:
        return map(str, range(self.n))


class Rows:
    """Per-position reductions over the moves of a CSR graph (``e``: an entry per move)."""

    def __init__(self, ptr: Any, idx: Any) -> None:
        self.n, self.ptr, self.idx = len(ptr) - 1, ptr, idx
        self.deg = np.diff(ptr)
        self.src = np.repeat(np.arange(self.n, dtype=idx.dtype), self.deg)
        self.busy = self.deg > 0
        self.starts = ptr[:-1][self.busy]

    def reduce(self, op: Any, e: Any, empty: Any, dtype: Any = None) -> Any:
        """Per position, ``op`` over its moves' entries of ``e``; ``empty`` without moves."""
        kind = dtype or np.result_type(e, np.asarray(empty))
        out = np.full(self.n, empty, dtype=kind)
        if len(e):
            out[self.busy] = op.reduceat(e, self.starts, dtype=kind)
        return out

    def count(self, e: Any) -> Any:
        """Per position, how many of its moves ``e`` (a boolean per move) marks."""
        total = np.zeros(len(e) + 1, np.int32 if len(e) < 2**31 - 1 else np.int64)
        np.cumsum(e, out=total[1:])
        return total[self.ptr[1:]] - total[self.ptr[:-1]]

    def extreme(self, e: Any, er: Any, rs: Any) -> Any:
        """Per position: is its remoteness 1 + the least (``e``: over the moves ``e`` marks;
        ``e`` None: 1 + the greatest, over all moves)? One move's head at ``r - 1``, none
        beyond it (``er``: each move's head's remoteness, ``rs``: its tail's)."""
        at = er == rs - 1
        beyond = er < rs - 1 if e is not None else er > rs - 1
        return (self.count(at if e is None else at & e) > 0) & (
            self.count(beyond if e is None else beyond & e) == 0
        )


def first(checks: list[tuple[str, str, Any]]) -> None:
    """Raise the violation the plain path meets first: the least position, then the order."""
    hits = [(int(np.argmax(m)), k) for k, (_, _, m) in enumerate(checks) if m.any()]
    if hits:
        x, k = min(hits)
        raise Violation(x, checks[k][0], checks[k][1])


def present(col: Any, want: Any, field: str, cond: str) -> None:
    """``col`` given (>= 0) exactly where ``want`` is True (False: absent; None: either)."""
    bad = (col >= 0) != want
    first(
        [(cond, f"{field} {'missing' if w else 'given'} here", bad & (want == w)) for w in (1, 0)]
    )


def normal(r: Rows, g: dict[str, Any], c: dict[str, Any]) -> None:
    val, rem, mv, term = c["value"], c["remoteness"], c["move"], ~r.busy
    given(c, "N1", "value")
    present(rem, val != 0, "remoteness", "N2")
    present(mv, r.busy, "move", "N5")
    ev, er, rs = val[r.idx], rem[r.idx], np.repeat(rem, r.deg)
    lost = r.count(ev == -1)
    y = np.where(mv >= 0, mv, 0)
    first([
        ("N1", "a terminal: its label, remoteness 0", term & ((val != g["leaf"]) | (rem > 0))),
        ("N2", "won: a lost successor, remoteness 1 + their least",
         r.busy & (val == 1) & ((lost == 0) | ~r.extreme(ev == -1, er, rs))),
        ("N3", "lost: every successor won, remoteness 1 + their greatest",
         r.busy & (val == -1) & ((r.count(ev != 1) > 0) | ~r.extreme(None, er, rs))),
        ("N4", "draw: no successor lost, some successor a draw",
         r.busy & (val == 0) & ((lost > 0) | (r.count(ev == 0) == 0))),
        ("N5", "the move is not optimal", r.busy & np.where(
            val == 0, val[y] != 0, (val[y] != -val) | (rem[y] != rem - 1))),
    ])  # fmt: skip


def reachability(r: Rows, g: dict[str, Any], c: dict[str, Any]) -> None:
    val, rem, mv, tgt, p1 = c["value"], c["remoteness"], c["move"], g["target"], g["owner"] == 1
    given(c, "R1", "value")
    present(rem, val == 0, "remoteness", "R2")
    must = r.busy & ~tgt & (val == p1)  # the winner's own positions off the targets
    first([("R4", "move missing here", must & (mv < 0))])
    inside_e = val[r.idx] == 0
    inside = r.count(inside_e)
    er, rs = rem[r.idx], np.repeat(rem, r.deg)
    layer = (val == 0) & ~tgt
    y = np.where(mv >= 0, mv, 0)
    first([
        ("R1", "a target: winner 0, remoteness 0", tgt & ((val != 0) | (rem != 0))),
        ("R3", "outside W: 0 cannot enter W, 1 can stay out", (val == 1) & np.where(
            p1, r.busy & (inside == r.deg), inside > 0)),
        ("R2", "player 1 in W: all moves in W, layer 1 + their greatest", layer & p1 & (
            (inside < r.deg) | ~r.busy | ~r.extreme(None, er, rs))),
        ("R2", "player 0 in W: a move into W, layer 1 + their least", layer & ~p1 & (
            (inside == 0) | ~r.extreme(inside_e, er, rs))),
        ("R4", "the move leaves the winner's side (or W's next layer)", must & (
            (val[y] != val) | ((val == 0) & (rem[y] != rem - 1)))),
    ])  # fmt: skip


def minimax(r: Rows, g: dict[str, Any], c: dict[str, Any]) -> None:
    val, rem, mv, leaf, mx = c["value"], c["remoteness"], c["move"], g["value"], g["owner"] == 0
    lo, hi, lr, hr = c["lfp"], c["gfp"], c["lfp_rank"], c["gfp_rank"]
    chain = np.union1d(leaf[~np.isnan(leaf)], [0.0])
    bottom, top = chain.min(), chain.max()
    given(c, "M1", "value", "lfp", "gfp")
    present(rem, val != 0, "remoteness", "M4")
    present(mv, r.busy, "move", "M5")
    first([("M2", "lfp_rank missing here", (lo != bottom) & (lr < 0))])
    first([("M2", "gfp_rank missing here", (hi != top) & (hr < 0))])
    term = ~r.busy

    def pick(b: Any) -> Any:
        e = b[r.idx]
        return np.where(mx, r.reduce(np.maximum, e, -np.inf), r.reduce(np.minimum, e, np.inf))

    def derived(b: Any, rk: Any, end: float, climb: Any) -> Any:
        keep = b[r.idx] == b[r.src]
        below = r.count(keep & (rk[r.idx] < rk[r.src]))
        ok = np.where(climb, below > 0, below == r.count(keep))
        return r.busy & (b != end) & ~ok

    v0 = np.where(val != 0, val, 0.0)
    kept = val[r.idx] == val[r.src]
    big = np.iinfo(rem.dtype).max
    least = r.reduce(np.minimum, np.where(kept, rem[r.idx], big), big)
    most = r.reduce(np.maximum, np.where(kept, rem[r.idx], -1), -1)
    hurry = mx == (val > 0)
    want = np.where(hurry, least, most)
    want = np.where(r.busy, np.where((want == big) | (want == -1), -3, 1 + want), 0)
    y = np.where(mv >= 0, mv, 0)
    first([
        ("M1", "lfp and gfp must be values of the chain (leaves and 0)",
         ~np.isin(lo, chain) | ~np.isin(hi, chain)),
        ("M1", "a leaf's lfp and gfp are its value", term & ((lo != leaf) | (hi != leaf))),
        ("M1", "lfp and gfp must keep the (T+MM) equation",
         r.busy & ((lo != pick(lo)) | (hi != pick(hi)))),
        ("M2", "the lfp is not derived by smaller ranks", derived(lo, lr, bottom, mx)),
        ("M2", "the gfp is not derived by smaller ranks", derived(hi, hr, top, ~mx)),
        ("M3", "the score is not max(lfp, min(gfp, 0)) (Kars' score)",
         val != np.maximum(lo, np.minimum(hi, 0.0))),
        ("M4", "remoteness: 1 + least (ahead) / greatest (behind) kept",
         (v0 != 0) & (rem != want)),
        ("M5", "the move does not keep the score (remoteness r-1)", r.busy & (
            (val[y] != val) | ((val != 0) & (rem[y] != rem - 1)))),
    ])  # fmt: skip


SEMANTICS = {"normal": normal, "reachability": reachability, "minimax": minimax}
EASY_PROOFS = (None, "rests-on-z3", "intervals", "ranks")  # None with a claim: BAD


def load(path: str) -> dict[str, Any]:
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def text(a: Any) -> Any:
    return loads(bytes(a.tobytes()).decode("utf-8"))


def judge(case: str, cert: str, answers: str | None, agree: Any) -> Any:
    """``(status, message, position name, condition)`` as ``check_certificate.check`` says it,
    or ``None`` where the plain path must judge. ``agree``: its check that the certificate is
    of this case file."""
    at: str | None = case  # the file being read, named by a BAD outcome
    try:
        with open(case, "rb") as f:
            sha = hashlib.sha256(f.read()).hexdigest()
        zc = stages.step("reading the case's arrays", 0, load, case)
        g = text(zc["header"])
        at = cert
        zk = stages.step("reading the certificate's arrays", len(zc["succ_ptr"]) - 1, load, cert)
        head = text(zk["header"])
        u = head.get("uniqueness")  # None: no claim
        if (
            g.get("semantics") not in SEMANTICS
            or not isinstance(u, dict | None)
            or (u is not None and u.get("proof") not in EASY_PROOFS)
        ):
            return None
        if answers is not None and not answers.lower().endswith((".npz", ".csv")):
            return None
        n = len(zc["succ_ptr"]) - 1
        ids = np.int32 if n < 2**31 - 1 else np.int64  # half the memory traffic below 2^31
        ptr = zc["succ_ptr"].astype(np.int64, copy=False)
        idx = zc["succ_idx"].astype(ids, copy=False)
        r, sem = Rows(ptr, idx), g["semantics"]
        agree(head, sem, sha, n, len(idx))
        names: Any = Ids(n)
        if "name_codec" in g:  # a game's codes: named by this checker (name_codecs.py)
            names = codecs.Names(g["name_codec"], zc.get("name_codes"), n, BadFile)
            if "names" in zk and len(zk["names"]) != n:
                raise BadFile("names: one per position")
            x = names.first_difference(zk["names"]) if "names" in zk else None
            if x is not None:
                theirs = zk["names"][x].decode()
                raise Violation(x, "names", f"differ: the certificate says {theirs!r}")
        elif "names" in zc:
            names = text(zc["names"])
            if len(set(names)) != n:
                raise BadFile("two positions share a name (or their count is not the positions')")
        if len(idx) and (idx.min() < 0 or idx.max() >= n):
            raise BadFile("a move leads to no position")
        gd, cd = case_arrays(zc, n) | {"root": g.get("root")}, cert_arrays(zk, n, sem)
        stages.step(f"the conditions of {sem} on arrays", n, checks, r, sem, gd, cd, head, names, u)
        if answers is not None:
            at = answers
            judge_answers(answers, cd, names, sem)
    except Violation as v:
        x, cond, why = v.found
        at = None if x is None else names[x]
        return ("REJECTED", said(at, cond, why), at, cond)
    except Exception as e:  # anything unreadable: a bad file, never a traceback
        why = (
            str(e)
            if type(e).__name__ in ("Bad", "BadFile", "BadProof", "Unreadable")
            else f"cannot read: {type(e).__name__}: {e}"
        )
        return ("BAD", f"{at}: {why}", None, "file")
    trusted = u is not None and u.get("proof") == "rests-on-z3"
    return ("ACCEPTED", "ACCEPTED" + (" (uniqueness rests on Z3)" if trusted else ""), None, None)


def case_arrays(z: dict[str, Any], n: int) -> dict[str, Any]:
    value = z["value"].astype(np.float64, copy=False) if "value" in z else np.full(n, np.nan)
    return {
        "owner": cast(z["owner"], np.int8, "owner") if "owner" in z else np.full(n, -1),
        "target": z["target"].astype(bool) if "target" in z else np.zeros(n, bool),
        "value": value,  # normal: an unlabelled terminal is lost (N1)
        "leaf": np.where(np.isnan(value), -1, np.nan_to_num(value)).astype(np.int64),
    }


def cert_arrays(z: dict[str, Any], n: int, sem: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    more = ("lfp", "gfp", "lfp_rank", "gfp_rank") if sem == "minimax" else ()
    for f in ("value", "remoteness", "move", *more):
        a = z.get(f)
        if a is not None and len(a) != n:
            raise BadFile(f"{f} has {len(a)} entries, not {n}")
        real = f in ("lfp", "gfp") or (f == "value" and sem == "minimax")
        small = f == "value" and sem != "minimax"  # a label or a winner
        kind = np.float64 if real else np.int8 if small else np.int32 if n < 2**31 - 1 else np.int64
        out[f] = np.full(n, -1, kind) if a is None else cast(a, kind, f)
        out[f"has_{f}"] = a is not None
    ok = VALUES.get(sem)
    if ok is not None and out["has_value"] and not np.isin(out["value"], ok).all():
        raise BadFile(f"value: not a value of {sem}")
    return out


def cast(a: Any, kind: Any, f: str) -> Any:
    """``a`` as ``kind``, refusing entries the cast would change (a wrapped remoteness)."""
    if np.dtype(kind).kind != "f" and len(a):
        if a.dtype.kind == "f" and not np.isfinite(a).all():
            raise BadFile(f"{f}: an entry is not a number")
        if a.dtype.kind == "f" and (a != np.round(a)).any():
            raise BadFile(f"{f}: {a[a != np.round(a)][0].item()!r} is not an integer")
        if a.min() < np.iinfo(kind).min or a.max() > np.iinfo(kind).max:
            raise BadFile(f"{f}: an entry is out of range")
    return a.astype(kind, copy=False)


def given(c: dict[str, Any], cond: str, *fields: str) -> None:
    """Columns every position gives (the plain path: missing at the first position)."""
    for f in fields:
        if not c[f"has_{f}"] and len(c[f]):
            raise Violation(0, cond, f"{f} missing here")


def checks(
    r: Rows, sem: str, g: dict[str, Any], c: dict[str, Any], head: dict[str, Any],
    names: Any, u: dict[str, Any] | None,
) -> None:  # fmt: skip
    """The plain path's ``check`` in its order: moves named, the semantics, summary, line,
    uniqueness."""
    mv, val = c["move"], c["value"]
    if mv.max(initial=-1) >= r.n:
        raise BadFile("a move names no position")
    named = r.count(mv[r.src] == r.idx) > 0
    if ((mv >= 0) & ~named).any():
        x = int(np.argmax((mv >= 0) & ~named))
        raise Violation(x, "move", f"names {names[int(mv[x])]!r}, not one of its moves")
    SEMANTICS[sem](r, g, c)
    out = np.sign(val) if sem != "reachability" else np.where(val == 0, 1, -1)
    s = head.get("summary")
    if not isinstance(s, dict):
        raise BadFile("$.summary must be an object")
    wins = c["remoteness"][(out == 1) & (c["remoteness"] >= 0)]
    root = None if g.get("root") is None else int(g["root"])
    want = {"won": int((out == 1).sum()), "lost": int((out == -1).sum()),
            "drawn": int((out == 0).sum()), "longest_win": int(wins.max()) if len(wins) else None,
            "root": None if root is None else names[root],
            "root_value": None if root is None else val[root].item(),
            **codecs.facts(names, out, c["remoteness"])}  # fmt: skip
    if root is not None:
        s = s | {"root_value": parse(sem, s.get("root_value"), "$.summary.root_value")}
    for k, w in want.items():
        if s.get(k) != w:
            raise Violation(None, "summary", f"{k} is {s.get(k)!r}, the entries give {w!r}")
    line, at, seen = [] if root is None else [names[root]], root, {root}
    while at is not None and mv[at] >= 0 and len(line) <= LINE_PLIES:
        y = int(mv[at])
        line.append(names[y])
        at = None if y in seen else y
        seen.add(at)
    if head.get("line", []) != line:
        raise Violation(None, "line", f"is {head.get('line')!r}, the moves give {line!r}")
    if (wrong := words.arrays(sem, head, root, names, c)) is not None:  # the words printed
        raise Violation(None, "printed", wrong)
    stages.step("the uniqueness claim on arrays", r.n, uniqueness, sem, r, c, u)


def parse(sem: str, v: Any, where: str) -> Any:
    """A value as written in JSON (the plain path's ``Cert.parse`` for values)."""
    if sem == "normal" and v in WORDS:
        return WORDS[v]
    if sem == "reachability" and type(v) is int and v in (0, 1):
        return v
    if sem == "minimax" and isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)
    raise BadFile(f"{where}: not a value of {sem}")


def uniqueness(sem: str, r: Rows, c: dict[str, Any], u: dict[str, Any] | None) -> None:
    """The plain path's ``uniqueness``: a claim with a proof, or resting on Z3 above the limit."""
    if u is None:
        return  # no claim
    claim, proof = u.get("claim"), u.get("proof")
    if claim not in ("unique", "not unique"):
        raise BadFile("$.uniqueness.claim")
    if proof == "rests-on-z3":
        if not isinstance(u.get("reason"), str):
            raise BadFile("$.uniqueness.reason")
        deg = r.deg.astype(np.int64)  # normal play's U1 is over the drawn positions
        deg = deg[c["value"] == 0] if sem == "normal" else deg
        z3_fault(sem, len(deg), int(deg.sum()), int((deg * deg).sum()))
        return
    if proof == "intervals" and sem == "minimax":
        same = bool((c["lfp"] == c["gfp"]).all())
        if (claim == "unique") != same:
            raise Violation(None, "uniqueness", f"{claim}, but lfp = gfp is {same}")
        return
    if sem != "normal" or claim != "unique" or proof != "ranks":
        raise BadFile("$.uniqueness.proof")
    if (c["value"] == 0).any():
        raise Violation(None, "uniqueness", "by ranks, but some position is drawn")


def judge_answers(path: str, c: dict[str, Any], names: Any, sem: str) -> None:
    """The ``.npz`` or CSV answer file says what the certificate says, row by row (a CSV's
    ``outcome`` column too)."""
    with paused_gc():  # a CSV's names and cells: millions of strings
        z = csv_answers(path, names, sem) if path.lower().endswith(".csv") else load(path)
    ids = z["ids"].astype(np.int64)
    if len(ids) and (ids.min() < 0 or ids.max() >= len(names)):
        raise BadFile("an answer names no position")
    by_id = np.sort(ids)
    twice = by_id[1:][by_id[1:] == by_id[:-1]]
    if len(twice):  # a position answered twice: BAD, as verify --answers says
        raise BadFile(f"duplicate entry for position {names[int(twice[0])]!r}")
    for f in ("remoteness", "move") + (("value",) if sem != "minimax" else ()):
        if f in z and z[f].dtype.kind == "f":
            cast(z[f], np.int64, f)  # exact integers only
    found: list[tuple[int, int, str, Any, Any]] = []
    ok = VALUES.get(sem)
    if ok is not None and "value" in z and not np.isin(z["value"], ok).all():
        raise BadFile(f"value: not a value of {sem}")
    for f in ("value", "remoteness", "move"):
        mine = c[f][ids]
        theirs = z[f] if f in z else np.full(len(ids), -1 if f != "value" else np.nan)
        absent = (theirs < 0) if f != "value" else np.isnan(theirs)
        bad = (theirs != mine) & ~(absent & (mine < 0) if f != "value" else False)
        if bad.any():  # the plain path reads row by row, the fields in this order
            k = int(np.argmax(bad))
            v, w = (None if absent[k] else theirs[k].item()), mine[k].item()
            v = int(v) if sem != "minimax" and isinstance(v, float) else v  # a CSV's value
            found.append((k, len(found), f, v, None if f != "value" and w < 0 else w))
    if found:
        k, _, f, v, w = min(found)
        raise Violation(int(ids[k]), "answers", f"the file says {f} {v!r}, the certificate {w!r}")
    if "outcome" in z:  # a CSV's outcome words (win / loss / draw for Max, the mover, player 0)
        v = c["value"][ids]
        side = np.where(v == 0, 1, -1) if sem == "reachability" else np.sign(v).astype(np.int64)
        want = np.array(["loss", "draw", "win"], dtype=object)[side + 1]
        bad = np.flatnonzero(z["outcome"] != want)
        if len(bad):
            k = int(bad[0])
            why = f"the outcome column says {z['outcome'][k]!r}, the certified value {want[k]!r}"
            raise Violation(int(ids[k]), "answers", why)


def csv_answers(path: str, names: Any, sem: str) -> dict[str, Any]:
    """A CSV answer (docs/answers.md) as an ``.npz`` one's arrays: ids, then -1 (NaN for a
    value) where a cell is empty; BAD for a name of no position or a cell of no value."""
    cols, n = csv_columns(path), len(names)
    index = cache(lambda: dict(zip(map(str, names), range(n), strict=True)))
    value = {"normal": {**WORDS, "": np.nan}.__getitem__, "minimax": number}.get(sem, natural)
    parse = {"value": value, "remoteness": natural, "move": None}
    try:  # a column at a time: by numpy where it can (checker/cells.py), else mapped
        at = cols.get("position", cols.get("node", []))
        out = {"ids": named(at, isinstance(names, Ids), n, index)}
        for f, p in ((f, p) for f, p in parse.items() if f in cols):
            blank = np.nan if f == "value" else -1
            out[f] = counts(cols[f], blank) if p is natural else None
            out[f] = [number(v) if v else blank for v in cols[f]] if p is number else out[f]
            out[f] = named(cols[f], isinstance(names, Ids), n, index, -1) if p is None else out[f]
            out[f] = list(map(p, cols[f])) if out[f] is None else out[f]  # type: ignore[arg-type]
    except (KeyError, ValueError) as e:
        raise BadFile(f"{path}: not an answer of this case ({type(e).__name__}: {e})") from None
    arrays = {f: np.asarray(v, np.float64 if f == "value" else np.int64) for f, v in out.items()}
    return arrays | ({"outcome": np.array(cols["outcome"], object)} if "outcome" in cols else {})
