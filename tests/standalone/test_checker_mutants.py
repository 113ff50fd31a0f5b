"""The checker's own mutation harness (issue 43, item 8): every condition of both paths is
weakened, one at a time, in a fresh copy of the checker, and some forgery must be ACCEPTED by
the weakened checker while the real one rejects it (the mutant is killed).

The forgeries are made here from certificates the package writes afresh: certificates of
*nearby games* (one move taken out or added, a terminal's label or a leaf's score changed, an
owner flipped, a target toggled) presented for the original case, which are consistent
everywhere but at the position where the games differ; single entries changed (moves, ranks,
counters, remoteness, values, the summary, the line, the sums, the uniqueness block); answer
files saying something else or a position twice; fractional ``.npz`` entries; a repeated JSON
key. A weakening is a replacement of one piece of the source, which must occur exactly once.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import io
import json
import random
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import checker.fast as fast_module
from checker.check_certificate import check
from verifier import api
from verifier.certify.content import certificate_of
from verifier.certify.files import save_certificate
from verifier.games.random_graphs import random_case
from verifier.io import load_any
from verifier.io.answers import save_answers
from verifier.io.binary import save_npz
from verifier.io.case_json import case_to_dict
from verifier.model.report import CaseVerdict
from verifier.writers.csv import solution_records, write_records

ROOT = Path(__file__).resolve().parents[2]
CHECKER, CASES = ROOT / "checker", ROOT / "cases"
CC, FAST, DRUP, READ = "check_certificate.py", "fast.py", "drup.py", "reading.py"

# (name, file, piece of source, its weakening): the plain path, the numpy path, shared code
MUTANTS: list[tuple[str, str, str, str]] = [
    # ---------------------------------------------------------------- plain: normal play
    ("N1 label", CC, "(v != g.leaf[x] or r not in (None, 0))", "(r not in (None, 0))"),
    ("N2 least", CC, "(not lost or r != 1 + min(rem[y] for y in lost))", "(not lost)"),
    (
        "N3 every won",
        CC,
        "(any(val[y] != 1 for y in ys) or r",
        "(all(val[y] != 1 for y in ys) or r",
    ),
    (
        "N3 greatest",
        CC,
        'r != 1 + max(rem[y] for y in ys)):\n            raise Reject(nm, "N3"',
        'r > 1 + max(rem[y] for y in ys)):\n            raise Reject(nm, "N3"',
    ),
    (
        "N4 none lost",
        CC,
        "(lost or all(val[y] != 0 for y in ys))",
        "(all(val[y] != 0 for y in ys))",
    ),
    ("N5 remoteness", CC, "(val[y] != -v or rem[y] != r - 1)", "(val[y] != -v)"),
    ("present given", CC, "if w is not None and (v is not None) != w:", "if w and v is None:"),
    ("moves named", CC, "if y is not None and y not in g.succ[x]:", "if y is None and y:"),
    # ---------------------------------------------------------------- plain: reachability
    (
        "R1 target",
        CC,
        "if g.target[x] and (val[x] != 0 or r != 0):",
        "if g.target[x] and (r not in (None, 0)):",
    ),
    (
        "R2 player 1",
        CC,
        "(len(inside) < len(ys) or not ys or r != 1 + max(rem[y] for y in ys))",
        "(not inside or r != 1 + max(rem[y] for y in inside))",
    ),
    ("R2 player 0", CC, "(not inside or r != 1 + min(rem[y] for y in inside))", "(not inside)"),
    ("R3 player 0", CC, "((not p1 and inside) or", "((False) or"),
    (
        "R4 layer",
        CC,
        "(val[y] != val[x] or (val[x] == 0 and rem[y] != r - 1))",
        "(val[y] != val[x])",
    ),
    (
        "R4 side",
        CC,
        "(val[y] != val[x] or (val[x] == 0 and rem[y] != r - 1))",
        "(val[x] == 0 and (val[y] != 0 or rem[y] != r - 1))",
    ),
    # ---------------------------------------------------------------- plain: minimax
    ("M1 leaf", CC, "if not ys and not lo[x] == hi[x] == g.leaf[x]:", "if not ys and False:"),
    ("M1 equation", CC, "(lo[x] != pick(lo[y] for y in ys) or hi[x]", "(hi[x]"),
    ("M2 Min side", CC, "(any(below) if climb else all(below))", "(any(below) if climb else True)"),
    ("M2 Max side", CC, "(any(below) if climb else all(below))", "(True if climb else all(below))"),
    (
        "M3 score",
        CC,
        "if v != max(lo[x], min(hi[x], 0.0)):",
        "if v != max(lo[x], min(hi[x], 0.0)) and v != 0:",
    ),
    (
        "M4 behind",
        CC,
        "else max(keep)) if ys else 0):",  # the side behind may hurry too
        "else max(keep)) if ys else 0) and r != (1 + min(keep) if ys else 0):",
    ),
    ("M5 remoteness", CC, "(val[y] != v or (v != 0 and rem[y] != r - 1))", "(val[y] != v)"),
    # ---------------------------------------------------------------- plain: impartial
    ("I1 mex", CC, "(v in opts or any(h not in opts for h in range(v)))", "(v in opts)"),
    (
        "I1 not an option",
        CC,
        "(v in opts or any(h not in opts for h in range(v)))",
        "(any(h not in opts for h in range(v)))",
    ),
    ("I1 condition A", CC, "if (not fin[y] or val[y] > v) and not fine:", "if False:"),
    ("I1 counter", CC, " and cnt[z] < cnt[x] for z", " for z"),
    ("I2 K", CC, "if not fin[x] and v[1] != opts:", "if not fin[x] and not v[1] <= opts:"),
    (
        "I2 condition B",
        CC,
        "if not fin[x] and not any(not fin[y] and",
        "if False and not any(not fin[y] and",
    ),
    ("I3 D moves", CC, "cls[y] != (-1 if cls[x] else 0)", "cls[y] != (-1 if cls[x] else cls[y])"),
    ("I4 sums", CC, "if name not in given or c.parse(", "if name not in given or 0 and c.parse("),
    # ---------------------------------------------------------------- plain: the rest
    (
        "summary drawn",
        CC,
        "        if s.get(k) != w:\n            raise Reject(",
        '        if k != "drawn" and s.get(k) != w:\n            raise Reject(',
    ),
    (
        "line",
        CC,
        'if c.head.get("line", []) != line:',
        'if len(c.head.get("line", [])) != len(line):',
    ),
    (
        "uniqueness proof null",
        CC,
        'if c.head.get("uniqueness") is None:',
        'if not (c.head.get("uniqueness") or {}).get("proof"):',
    ),
    ("uniqueness intervals", CC, 'if (claim == "unique") != (lo == hi):', "if False:"),
    (
        "answers compare",
        CC,
        "            if v != want:",
        '            if v != want and f != "remoteness":',
    ),
    (
        "answers twice",
        CC,
        'need(name not in seen, f"duplicate entry',
        'need(True, f"duplicate entry',
    ),
    ("npz integers", CC, "need(type(v) is int or float(v).is_integer(),", "need(True,"),
    # ---------------------------------------------------------------- shared: drup, reading
    ("uniqueness Z3 limit", DRUP, "if k is None or k <= Z3_LIMIT:", "if k is None:"),
    ("uniqueness forced labels", DRUP, "        if moved is not None:", "        if False:"),
    (
        "uniqueness witness",
        DRUP,
        "return None if k is None else (at,",
        "return None if True else (at,",
    ),
    (
        "uniqueness ranks",
        DRUP,
        'return None if 0 not in val else (None, "by ranks',
        'return None if True else (None, "by ranks',
    ),
    ("duplicate keys", READ, "if len(out) != len(pairs):", "if False:"),
    # ---------------------------------------------------------------- the numpy path
    ("fast N1", FAST, 'term & ((val != g["leaf"]) | (rem > 0))', "term & (rem > 0)"),
    ("fast N2", FAST, "((lost == 0) | ~r.extreme(ev == -1, er, rs))", "(lost == 0)"),
    (
        "fast N3",
        FAST,
        "((r.count(ev != 1) > 0) | ~r.extreme(None, er, rs))",
        "(~r.extreme(None, er, rs))",
    ),
    ("fast N4", FAST, "((lost > 0) | (r.count(ev == 0) == 0))", "(r.count(ev == 0) == 0)"),
    ("fast N5", FAST, "(val[y] != -val) | (rem[y] != rem - 1)", "(val[y] != -val)"),
    ("fast present", FAST, "bad = (col >= 0) != want", "bad = (col < 0) & want"),
    ("fast moves named", FAST, "if ((mv >= 0) & ~named).any():", "if False:"),
    ("fast R1", FAST, "tgt & ((val != 0) | (rem != 0))", "tgt & (rem > 0)"),
    (
        "fast R2 player 1",
        FAST,
        "(inside < r.deg) | ~r.busy | ~r.extreme(None, er, rs)",
        "~r.busy | ~r.extreme(None, er, rs)",
    ),
    ("fast R2 player 0", FAST, "(inside == 0) | ~r.extreme(inside_e, er, rs)", "(inside == 0)"),
    (
        "fast R3",
        FAST,
        "r.busy & (inside == r.deg), inside > 0)",
        "r.busy & (inside == r.deg), False)",
    ),
    ("fast R4", FAST, "(val[y] != val) | ((val == 0) & (rem[y] != rem - 1))", "(val[y] != val)"),
    ("fast M1 leaf", FAST, "term & ((lo != leaf) | (hi != leaf))", "term & (lo != lo)"),
    (
        "fast M1 equation",
        FAST,
        "r.busy & ((lo != pick(lo)) | (hi != pick(hi)))",
        "r.busy & (hi != pick(hi))",
    ),
    ("fast M2 Min side", FAST, "below == r.count(keep))", "True)"),
    ("fast M2 Max side", FAST, "np.where(climb, below > 0,", "np.where(climb, True,"),
    (
        "fast M3",
        FAST,
        "val != np.maximum(lo, np.minimum(hi, 0.0))),",
        "(val != np.maximum(lo, np.minimum(hi, 0.0))) & (val != 0)),",
    ),
    (
        "fast M4",
        FAST,
        "(v0 != 0) & (rem != want)),",
        "(v0 != 0) & (rem != want) & (rem != 1 + least)),",
    ),
    ("fast M5", FAST, "(val[y] != val) | ((val != 0) & (rem[y] != rem - 1))", "(val[y] != val)"),
    (
        "fast summary",
        FAST,
        "        if s.get(k) != w:\n            raise Violation(",
        '        if k != "drawn" and s.get(k) != w:\n            raise Violation(',
    ),
    (
        "fast line",
        FAST,
        'if head.get("line", []) != line:',
        'if len(head.get("line", [])) != len(line):',
    ),
    (
        "fast CSV outcome",
        FAST,
        'bad = np.flatnonzero(z["outcome"] != want)',
        'bad = np.flatnonzero(z["outcome"] != z["outcome"])',
    ),
    ("fast uniqueness intervals", FAST, 'if (claim == "unique") != same:', "if False:"),
    (
        "fast uniqueness proof null",
        FAST,
        'or claim != "unique" or proof != "ranks":',
        'or claim != "unique":',
    ),
    ("fast uniqueness ranks", FAST, 'if (c["value"] == 0).any():', "if False:"),
    ("fast uniqueness Z3 limit", FAST, "z3_fault(sem, len(deg), int(deg.sum()),", "(sem, 0, 0,"),
    (
        "fast answers compare",
        FAST,
        'for f in ("value", "remoteness", "move"):\n        mine',
        'for f in ("value", "move"):\n        mine',
    ),
    ("fast answers twice", FAST, "    if len(twice):", "    if False:"),
    ("fast integers", FAST, 'if a.dtype.kind == "f" and (a != np.round(a)).any():', "if False:"),
]


# ============================================================================ the forgeries
Forgery = tuple[str, Path, Path, Path | None]  # what, the case, the certificate, answers


class Maker:
    """Writes cases, fresh certificates and their forgeries into one folder."""

    def __init__(self, tmp: Path) -> None:
        self.tmp, self.k, self.out = tmp, 0, list[Forgery]()
        self.rng = random.Random(43)

    def path(self, suffix: str) -> Path:
        self.k += 1
        return self.tmp / f"f{self.k}{suffix}"

    def case(self, d: dict[str, Any], npz: bool) -> Path:
        p = self.path(".json")
        p.write_text(json.dumps(d))
        return save_npz(load_any(p), self.path(".npz")) if npz else p

    def certify(self, case: Path, suffix: str, z3: bool = False) -> tuple[Path, Any]:
        cert = self.path(suffix)
        if z3:
            rep = api.verify(case, certificate=cert)
            assert rep.verdict is CaseVerdict.VERIFIED
        else:
            rep = api.solve_report(case)
            save_certificate(certificate_of(rep), cert)
        return cert, rep

    def add(self, what: str, case: Path, cert: Path, answers: Path | None = None) -> None:
        self.out.append((what, case, cert, answers))

    # --------------------------------------------------------------- nearby games
    def nearby(self, d: dict[str, Any], npz: bool, count: int = 999) -> None:
        """Certificates of games one change away from ``d``, presented for ``d``."""
        case = self.case(d, npz)
        raw = case.read_bytes()
        m = sum(len(nd.get("moves", [])) for nd in d["nodes"].values())
        variants = _variants(d, self.rng)
        for what, other in self.rng.sample(variants, k=min(count, len(variants))):
            try:
                cert, _ = self.certify(self.case(other, npz), ".npz" if npz else ".json")
            except Exception:  # a variant the package refuses (a leaf value with moves)
                continue
            where = {"sha256": hashlib.sha256(raw).hexdigest(), "positions": len(d["nodes"])}
            _header_edit(cert, lambda h, where=where: h.update(case=where | {"moves": m}))
            self.add(f"nearby {what}", case, cert)

    # --------------------------------------------------------------- single entries
    def entries(self, d: dict[str, Any], z3: bool = False) -> None:
        """Single entries of a fresh JSON certificate changed (the summary and line follow)."""
        case = self.case(d, False)
        cert, rep = self.certify(case, ".json", z3)
        doc = json.loads(cert.read_text())
        sem, nodes, succ = (
            d["semantics"],
            doc["nodes"],
            {x: nd.get("moves", []) for x, nd in d["nodes"].items()},
        )
        edits: list[tuple[str, Callable[[dict[str, Any]], None]]] = []
        for x, e in nodes.items():
            ys = succ[x]
            for y in ys:
                if e.get("move") not in (None, y):
                    edits.append((f"{x}.move -> {y}", _set(x, "move", y)))
                    if "remoteness" in e and "remoteness" in nodes[y]:  # and its remoteness
                        r = nodes[y]["remoteness"] + 1
                        edits.append((f"{x}.move -> {y}, r {r}", _set(x, "move", y, remoteness=r)))
            others = [y for y in nodes if y not in ys]
            if e.get("move") is not None and others:
                same = [y for y in others if nodes[y].get("value") == nodes[e["move"]].get("value")]
                edits.append((f"{x}.move -> not a move", _set(x, "move", (same or others)[0])))
            if "remoteness" in e:
                edits.append((f"{x}.remoteness +1", _set(x, "remoteness", e["remoteness"] + 1)))
            elif sem != "impartial":
                edits.append((f"{x}.remoteness given", _set(x, "remoteness", 1)))
            for k in ("lfp_rank", "gfp_rank"):
                if e.get(k):
                    edits.append((f"{x}.{k} -> 0", _set(x, k, 0)))
            if sem == "minimax" and e["value"] != 0:
                edits.append((f"{x}.value -> 0", _set(x, "value", 0, remoteness=None)))
            if sem == "impartial" and isinstance(e["value"], int):
                ks = sorted({nodes[y]["value"] for y in ys if isinstance(nodes[y]["value"], int)})
                inf = "inf(" + ",".join(map(str, ks)) + ")" if ks else "inf"
                edits.append((f"{x}.value -> {inf}", _set(x, "value", inf, counter=None)))
                edits.append((f"{x}.value +1", _set(x, "value", e["value"] + 1)))
            if sem == "impartial" and str(e["value"]).startswith("inf(") and "," in e["value"]:
                fewer = e["value"][: e["value"].rindex(",")] + ")"
                edits.append((f"{x}.K less", _set(x, "value", fewer)))
        if sem == "impartial":
            edits.append(
                (
                    "counters 0",
                    lambda doc: [
                        e.update(counter=0) for e in doc["nodes"].values() if "counter" in e
                    ],
                )
            )
        for name in doc.get("sums") or {}:
            edits.append((f"sums {name}", lambda doc, name=name: doc["sums"].update({name: 99})))
        for what, edit in edits:
            self.add(what, case, _edited(cert, doc, edit, self.path(".json"), sem))
        for k in ("won", "lost", "drawn", "longest_win"):  # the summary alone
            wrong = json.loads(json.dumps(doc))
            wrong["summary"][k] = (wrong["summary"][k] or 0) + 1
            self.add(f"summary.{k}", case, _written(wrong, self.path(".json")))
        if len(doc.get("line") or []) > 1:
            wrong = json.loads(json.dumps(doc))
            wrong["line"][-1] = next(y for y in nodes if y != wrong["line"][-1])
            self.add("line", case, _written(wrong, self.path(".json")))
        self.uniqueness(case, doc)
        self.answer_files(case, cert, rep, ".csv")
        # a repeated key: a wrong entry first, the right one last
        x = next(iter(nodes))
        other = {k: v for k, v in nodes[x].items()} | {"value": "x"}
        text = json.dumps({**doc, "nodes": {"@": 0}}).replace(
            '{"@": 0}', "{" + f'"{x}": {json.dumps(other)}, ' + json.dumps(nodes)[1:]
        )
        self.add("repeated key", case, _text(text, self.path(".json")))

    def uniqueness(self, case: Path, doc: dict[str, Any]) -> None:
        u = doc.get("uniqueness")
        if u is None:
            return
        flip = "not unique" if u["claim"] == "unique" else "unique"
        for what, v in (
            ("claim flipped", {**u, "claim": flip}),
            ("proof null", {"claim": u["claim"], "proof": None}),
            ("proof null, flipped", {"claim": flip, "proof": None}),
            ("rests on Z3, small", {"claim": u["claim"], "proof": "rests-on-z3", "reason": "?"}),
            ("ranks", {"claim": "unique", "proof": "ranks"}),
        ):
            self.add(
                f"uniqueness {what}", case, _written({**doc, "uniqueness": v}, self.path(".json"))
            )
        for y, w in (u.get("witness") or {}).items():
            other = {"won": "lost", "lost": "draw", "draw": "won"}[w]
            bad = {**u, "witness": {**u["witness"], y: other}}
            self.add(
                "uniqueness witness", case, _written({**doc, "uniqueness": bad}, self.path(".json"))
            )
        nodes = doc.get("nodes")
        label = {  # each position's label as certified
            x: e.get("value") if isinstance(e, dict) else e
            for x, e in (nodes.items() if u.get("witness") and isinstance(nodes, dict) else ())
        }
        forced = [x for x, v in label.items() if v in ("won", "lost")]  # the ranks force these
        if forced:  # moved by the witness as well
            x = forced[0]
            moved = {"won": "lost", "lost": "won"}[label[x]]
            bad = {**u, "witness": {**u["witness"], x: moved}}
            self.add(
                "uniqueness forced", case, _written({**doc, "uniqueness": bad}, self.path(".json"))
            )

    def answer_files(self, case: Path, cert: Path, rep: Any, suffix: str) -> None:
        """The answer file written beside the certificate, with a remoteness changed, and
        with a position twice (the same row again)."""
        ans = save_answers(rep.solution, rep.case, self.path(suffix))
        if suffix == ".csv":
            head, *rows = ans.read_text().splitlines()
            k = head.split(",").index("remoteness") if "remoteness" in head.split(",") else -1
            i = next((i for i, r in enumerate(rows) if k >= 0 and r.split(",")[k]), None)
            if i is None:  # no remoteness (impartial, all drawn): judged on other games
                return
            cells = rows[i].split(",")
            cells[k] = str(int(cells[k]) + 1)
            for what, lines in (
                ("remoteness", [*rows[:i], ",".join(cells), *rows[i + 1 :]]),
                ("twice", [rows[i], *rows]),
            ):
                p = self.path(suffix)
                p.write_text("\n".join([head, *lines]) + "\n")
                self.add(f"answers {what}", case, cert, p)
            return
        with np.load(ans) as z:
            a = {k: z[k] for k in z.files}
        i = int(np.argmax(a["remoteness"]))
        r = a["remoteness"].copy()
        r[i] += 1
        twice = {k: v if k == "header" else np.concatenate([v[i : i + 1], v]) for k, v in a.items()}
        twice = {
            k: v if k == "header" else v[np.argsort(twice["ids"], kind="stable")]
            for k, v in twice.items()
        }
        for what, arrays in (("remoteness", {**a, "remoteness": r}), ("twice", twice)):
            p = self.path(suffix)
            np.savez(p, **arrays)
            self.add(f"answers {what}", case, cert, p)

    def npz_entries(self, d: dict[str, Any], z3: bool = False) -> None:
        """Single entries of a fresh ``.npz`` certificate changed (the numpy path's forgeries)."""
        case = self.case(d, True)
        cert, rep = self.certify(case, ".npz", z3)
        with np.load(cert) as z:
            a = {k: z[k] for k in z.files}
        sem, head = d["semantics"], json.loads(a["header"].tobytes())
        names = list(d["nodes"])
        succ = [[names.index(y) for y in nd.get("moves", [])] for nd in d["nodes"].values()]
        edits: list[tuple[str, dict[str, np.ndarray]]] = []
        val, rem, mv = a["value"], a["remoteness"], a["move"]
        for x, ys in enumerate(succ):
            for y in ys:
                if mv[x] not in (-1, y):
                    edits.append((f"{x}.move -> {y}", {"move": _at(mv, x, y)}))
                    if rem[x] >= 0 and rem[y] >= 0:  # and its remoteness
                        r = {"move": _at(mv, x, y), "remoteness": _at(rem, x, rem[y] + 1)}
                        edits.append((f"{x}.move -> {y}, r {rem[y] + 1}", r))
            if sem == "minimax" and val[x] != 0:
                zero = {"value": _at(val, x, 0.0), "remoteness": _at(rem, x, -1)}
                edits.append((f"{x}.value -> 0", zero))
            others = [y for y in range(len(succ)) if y not in ys and val[y] == val[max(mv[x], 0)]]
            if mv[x] >= 0 and others:
                edits.append((f"{x}.move -> not a move", {"move": _at(mv, x, others[0])}))
            edits.append(
                (
                    f"{x}.remoteness +1" if rem[x] >= 0 else f"{x}.remoteness given",
                    {"remoteness": _at(rem, x, rem[x] + 1 if rem[x] >= 0 else 1)},
                )
            )
            for k in ("lfp_rank", "gfp_rank"):
                if k in a and a[k][x] > 0:
                    edits.append((f"{x}.{k} -> 0", {k: _at(a[k], x, 0)}))
        frac = rem.astype(np.float64)
        frac[int(np.argmax(rem))] += 0.7
        edits.append(("remoteness fractional", {"remoteness": frac}))
        for what, changed in edits:
            fixed = _npz_summary({**a, **changed}, sem, head, names)
            p = self.path(".npz")
            np.savez(p, **fixed)
            self.add(f"npz {what}", case, p)
        for what, h in _header_forgeries(head):
            p = self.path(".npz")
            np.savez(p, **{**a, "header": np.frombuffer(json.dumps(h).encode(), np.uint8)})
            self.add(f"npz {what}", case, p)
        self.answer_files(case, cert, rep, ".npz")
        self.answer_files(case, cert, rep, ".csv")  # a CSV answer on the numpy path
        self.printed_csv(case, cert, rep)

    def printed_csv(self, case: Path, cert: Path, rep: Any) -> None:
        """The CSV ``verify --format csv`` prints, its first row's outcome word changed."""
        out = io.StringIO()
        write_records(solution_records(rep.solution), out)
        head, first, *rows = out.getvalue().splitlines()
        k, cells = head.split(",").index("outcome"), first.split(",")
        cells[k] = {"win": "loss", "loss": "draw", "draw": "win"}[cells[k]]
        p = self.path(".csv")
        p.write_text("\n".join([head, ",".join(cells), *rows]) + "\n")
        self.add("printed outcome", case, cert, p)


def _header_forgeries(head: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    for k in ("won", "lost", "drawn", "longest_win"):
        yield (
            f"summary.{k}",
            {**head, "summary": {**head["summary"], k: (head["summary"][k] or 0) + 1}},
        )
    if len(head.get("line") or []) > 1:
        yield "line", {**head, "line": [*head["line"][:-1], head["line"][0]]}
        quiet = {k: v for k, v in head.items() if k != "printed"}  # the words would say it too
        yield "line, no words", {**quiet, "line": [*head["line"][:-1], head["line"][0]]}
    u = head.get("uniqueness")
    if u is not None:
        flip = "not unique" if u["claim"] == "unique" else "unique"
        yield "claim flipped", {**head, "uniqueness": {**u, "claim": flip}}
        yield "proof null", {**head, "uniqueness": {"claim": "unique", "proof": None}}
        yield (
            "rests on Z3, small",
            {**head, "uniqueness": {**u, "proof": "rests-on-z3", "reason": "?"}},
        )
        yield "ranks", {**head, "uniqueness": {"claim": "unique", "proof": "ranks"}}


def _npz_summary(
    a: dict[str, np.ndarray], sem: str, head: dict[str, Any], names: list[str]
) -> dict[str, np.ndarray]:
    """``a`` with its header's summary and line recomputed from its arrays."""
    val, rem, mv = a["value"], np.asarray(a["remoteness"]), a["move"]
    out = np.where(val == 0, 1, -1) if sem == "reachability" else np.sign(val)
    wins = rem[(out == 1) & (rem >= 0)]
    s = dict(head["summary"])
    s.update(won=int((out == 1).sum()), lost=int((out == -1).sum()), drawn=int((out == 0).sum()))
    s["longest_win"] = int(wins.max()) if len(wins) else None
    h = {**head, "summary": s}
    if s.get("root") is not None:
        x = names.index(s["root"])
        line, seen = [names[x]], {x}
        while mv[x] >= 0 and len(line) <= 12:
            x = int(mv[x])
            line.append(names[x])
            if x in seen:
                break
            seen.add(x)
        h["line"] = line
    return {**a, "header": np.frombuffer(json.dumps(h).encode(), np.uint8)}


def _at(a: np.ndarray, x: int, v: Any) -> np.ndarray:
    b = a.copy()
    b[x] = v
    return b


def _variants(d: dict[str, Any], rng: random.Random) -> list[tuple[str, dict[str, Any]]]:
    """Games one change away from ``d`` (readable JSON)."""
    sem, nodes, out = d["semantics"], d["nodes"], []

    def changed(x: str, **fields: Any) -> dict[str, Any]:
        e = json.loads(json.dumps(d))
        for k, v in fields.items():
            if v is None:
                e["nodes"][x].pop(k, None)
            else:
                e["nodes"][x][k] = v
        return e

    for x, nd in nodes.items():
        ys = nd.get("moves", [])
        for i in range(len(ys)):
            out.append(
                (f"{x} without move {ys[i]}", changed(x, moves=ys[:i] + ys[i + 1 :] or None))
            )
        for y in rng.sample(sorted(set(nodes) - set(ys)), k=min(2, len(set(nodes) - set(ys)))):
            if ys:
                out.append((f"{x} with move {y}", changed(x, moves=[*ys, y])))
        if not ys and sem == "normal":
            for w in {"won", "lost", "draw"} - {nd.get("label", "lost")}:
                out.append((f"{x} labelled {w}", changed(x, label=w)))
        if not ys and sem == "minimax":
            for w in {-1, 0, 1} - {nd.get("value")}:
                out.append((f"{x} scored {w}", changed(x, value=w)))
        if ys and sem in ("minimax", "reachability"):
            flip = {"max": "min", "min": "max", 0: 1, 1: 0, None: 1}[nd.get("owner")]
            out.append((f"{x} owner flipped", changed(x, owner=flip)))
    if sem == "reachability":
        for x in nodes:
            e = json.loads(json.dumps(d))
            t = set(e.get("targets") or [])
            e["targets"] = sorted(t ^ {x})
            out.append((f"target {x} toggled", e))
    return out


def _set(x: str, field: str, value: Any, **also: Any) -> Callable[[dict[str, Any]], None]:
    def edit(doc: dict[str, Any]) -> None:
        doc["nodes"][x][field] = value
        for k, v in also.items():
            if v is None:
                doc["nodes"][x].pop(k, None)
            else:
                doc["nodes"][x][k] = v

    return edit


def _edited(
    cert: Path, doc: dict[str, Any], edit: Callable[[dict[str, Any]], None], out: Path, sem: str
) -> Path:
    d = json.loads(json.dumps(doc))
    edit(d)
    _json_summary(d, sem)
    return _written(d, out)


def _outcome(sem: str, v: Any) -> int:
    if sem == "normal":
        return {"won": 1, "lost": -1, "draw": 0}[v]
    if sem == "reachability":
        return 1 if v == 0 else -1
    if sem == "minimax":
        return int(v > 0) - int(v < 0)
    if isinstance(v, int):
        return 1 if v > 0 else -1
    return 1 if v == "inf(0)" or v.startswith("inf(0,") else 0


def _json_summary(d: dict[str, Any], sem: str) -> None:
    """The summary and the line recomputed from the entries (a forger's bookkeeping)."""
    nodes, s = d["nodes"], d["summary"]
    out = {x: _outcome(sem, e["value"]) for x, e in nodes.items()}
    s.update(won=list(out.values()).count(1), lost=list(out.values()).count(-1))
    s["drawn"] = list(out.values()).count(0)
    wins = [e["remoteness"] for x, e in nodes.items() if out[x] == 1 and "remoteness" in e]
    s["longest_win"] = max(wins) if wins else None
    if s.get("root") is not None:
        x = s["root"]
        s["root_value"] = nodes[x]["value"]
        line, seen = [x], {x}
        while nodes[x].get("move") is not None and len(line) <= 12:
            x = nodes[x]["move"]
            line.append(x)
            if x in seen:
                break
            seen.add(x)
        d["line"] = line


def _written(doc: dict[str, Any], out: Path) -> Path:
    out.write_text(json.dumps(doc))
    return out


def _text(text: str, out: Path) -> Path:
    out.write_text(text)
    return out


def _header_edit(cert: Path, edit: Callable[[dict[str, Any]], None]) -> None:
    if cert.suffix == ".json":
        doc = json.loads(cert.read_text())
        edit(doc)
        cert.write_text(json.dumps(doc))
        return
    with np.load(cert) as z:
        a = {k: z[k] for k in z.files}
    head = json.loads(a["header"].tobytes())
    edit(head)
    np.savez(cert, **{**a, "header": np.frombuffer(json.dumps(head).encode(), np.uint8)})


# ============================================================================ the games
def _random(sem: str, seed: int, n: int = 9) -> dict[str, Any]:
    d = case_to_dict(random_case(sem, n, 2.2, seed=seed, terminal_fraction=0.2), "readable")
    d.pop("expect", None)
    if sem == "reachability" and not d.get("targets"):
        d["targets"] = [next(iter(d["nodes"]))]
    return d


def _corpus(stem: str) -> dict[str, Any]:
    d = json.loads((CASES / f"{stem}.json").read_text())
    d.pop("expect", None)
    return dict(d)


# A leaf no position moves to (M3: a draw claimed at a score), a Kars cycle; a source s with a
# finite value (condition B: claimed infinite), a D position u whose options are D and N.
NORMAL = {
    "semantics": "normal",
    "nodes": {  # N2, N3: sources x, x2, s; t, u, v, w a chain
        "t": {},
        "u": {"moves": ["t"]},
        "v": {"moves": ["u"]},
        "w": {"moves": ["v"]},
        "x": {"moves": ["w", "y"]},
        "y": {},
        "x2": {"moves": ["u", "w"]},
        "s": {"moves": ["y", "v"]},
    },
}
CYCLE2 = {  # not unique (p, q drawn, or won and lost); r won and z lost, forced by their ranks
    "semantics": "normal",
    "nodes": {"p": {"moves": ["q"]}, "q": {"moves": ["p"]}, "r": {"moves": ["z"]}, "z": {}},
}
MINIMAX = {
    "semantics": "minimax",
    "root": "a",
    "nodes": {  # h: behind, two kept moves (M4)
        "h": {"owner": "max", "moves": ["b", "k"]},
        "k": {"owner": "min", "moves": ["b"]},
        "a": {"owner": "max", "moves": ["b", "c"]},
        "b": {"value": -1},
        "c": {"owner": "min", "moves": ["d", "a"]},
        "d": {"value": 2},
        "e": {"value": 1},
        "f": {"owner": "min", "moves": ["d", "g"]},
        "g": {"owner": "max", "moves": ["d", "b", "e"]},
    },
}
IMPARTIAL = {"semantics": "impartial", "nodes": {
    "s": {"moves": ["t", "w"]}, "t": {}, "w": {"moves": ["t"]}, "u": {"moves": ["v", "w"]},
    "v": {"moves": ["u"]}, "p": {"moves": ["u", "q"]}, "q": {"moves": ["p"]}}}  # fmt: skip


def forgeries(tmp: Path) -> list[Forgery]:
    m = Maker(tmp)
    for sem in ("normal", "reachability", "minimax", "impartial"):
        for seed in (1, 2):
            d = _random(sem, seed)
            m.nearby(d, npz=False)
            if sem != "impartial":
                m.nearby(d, npz=True)
            m.entries(d)
    m.nearby(MINIMAX, npz=False)
    m.entries(MINIMAX)
    for npz in (False, True):
        m.nearby(NORMAL, npz=npz)
    m.entries(NORMAL)
    m.npz_entries(NORMAL)
    m.entries(CYCLE2, z3=True)
    m.entries(IMPARTIAL)
    m.nearby(IMPARTIAL, npz=False)
    for stem in (
        "knuth-pure-cycle",
        "knuth-cycle-with-exit",
        "simple-cycle-draw",
        "kars-figure1-b-lt-d",
        "impartial-loopy-smith",
        "impartial-nim-heaps-sums",
    ):
        m.entries(_corpus(stem), z3=True)
    for stem in ("knuth-cycle-with-exit", "knuth-pure-cycle", "kars-figure1-b-lt-d"):
        m.npz_entries(_corpus(stem), z3=True)
    m.npz_entries(MINIMAX)
    for sem in ("normal", "reachability"):
        for seed in (1, 2):
            m.npz_entries(_random(sem, seed))
    # fractional entries of an .npz certificate the plain path judges (impartial)
    case = m.case(_corpus("impartial-subtraction-1-2-3"), True)
    cert, _ = m.certify(case, ".npz")
    with np.load(cert) as z:
        a = {k: z[k] for k in z.files}
    v = a["value"].astype(np.float64)
    v[int(np.argmax(v))] += 0.9
    np.savez(p := m.path(".npz"), **{**a, "value": v})
    m.add("npz Grundy value 2.9", case, p)
    return m.out


# ============================================================================ the mutants
@contextlib.contextmanager
def mutant(tmp: Path, file: str, old: str, new: str) -> Iterator[Callable[..., Any]]:
    """The checker with ``old`` replaced by ``new`` in ``file``, imported afresh as ``checker``."""
    root = tmp / f"mutant-{time.perf_counter_ns()}"
    shutil.copytree(CHECKER, root / "checker", ignore=shutil.ignore_patterns("__pycache__"))
    src = (root / "checker" / file).read_text()
    assert src.count(old) == 1, (file, old)
    (root / "checker" / file).write_text(src.replace(old, new))
    saved = {k: v for k, v in sys.modules.items() if k == "checker" or k.startswith("checker.")}
    for k in saved:
        del sys.modules[k]
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module("checker.check_certificate").check
    finally:
        sys.path.remove(str(root))
        for k in [k for k in sys.modules if k == "checker" or k.startswith("checker.")]:
            del sys.modules[k]
        sys.modules.update(saved)


def _judged(judge: Callable[..., Any], f: Forgery) -> Any:
    _, case, cert, answers = f
    return judge(str(case), str(cert), None if answers is None else str(answers))


def test_each_weakening_is_one_edit_of_the_source() -> None:
    names = [name for name, *_ in MUTANTS]
    assert len(set(names)) == len(names)
    for name, file, old, new in MUTANTS:
        src = (CHECKER / file).read_text()
        assert src.count(old) == 1, (name, old)
        assert old != new


def test_every_weakening_of_the_checker_is_killed(tmp_path: Path) -> None:
    t0 = time.perf_counter()
    made = forgeries(tmp_path)
    numpy_path: set[int] = set()  # the forgeries the numpy path judges
    real_judge = fast_module.judge

    def spy(*a: Any) -> Any:
        found = real_judge(*a)
        if found is not None:
            numpy_path.add(id(current[0]))
        return found

    pool, current, said = [], [made[0]], {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(fast_module, "judge", spy)
        for f in made:
            current[0] = f
            said[id(f)] = _judged(check, f)
            if said[id(f)].status != "ACCEPTED":  # the real checker is not fooled
                pool.append(f)
    t1 = time.perf_counter()
    survivors, killers = [], {}
    for name, file, old, new in MUTANTS:
        fast = file == FAST
        with mutant(tmp_path, file, old, new) as judge:
            kinds = [f for f in pool if (id(f) in numpy_path) == fast or file not in (CC, FAST)]
            # those the real checker rejects under the condition weakened first (quicker)
            cond = name.removeprefix("fast ").split()[0]
            kinds.sort(key=lambda f: said[id(f)].condition != cond)
            hit = next((f for f in kinds if _judged(judge, f).status == "ACCEPTED"), None)
        if hit is None:
            survivors.append(name)
        else:
            killers[name] = hit[0]
    took = time.perf_counter() - t0
    print(
        f"\nchecker mutants killed {len(MUTANTS) - len(survivors)}/{len(MUTANTS)} by {len(pool)} "
        f"forgeries ({len(made)} made) in {took:.1f} s (forgeries {t1 - t0:.1f} s)"
    )
    for name, what in killers.items():
        print(f"  {name}: killed by {what}")
    assert not survivors, ", ".join(survivors)
