"""Every single-entry corruption of a certificate is rejected by the standalone checker, naming
the position (or, for an entry its neighbour's rule reads, that neighbour).

Corrupted, one at a time, in the certificates of the corpus: each position's value (another
value of the semantics; an infinite Grundy value's K with an element more or less), its
remoteness (one more, or left out), its move (a position that is no successor, or left out
where one is required), the minimax bounds (another value of Kars' chain) and their ranks (0
at an inner position that needs a smaller one), Fraenkel's counter (0 where an option must
revert below it), the summary counts, the line of play, the sums, and the uniqueness claim
and witness. The default run takes one position of every third case; ``-m slow`` takes many more
(over 500 corruptions in all, counted by the test).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cert_edits import DROP, edited

from checker.check_certificate import check
from verifier.io import load_any

Entry = tuple[str, str | None, dict[str, Any]]
"""What a corruption is: its description, the position it is at (or None), the document."""


def _successors(case: Path) -> dict[str, list[str]]:
    g = load_any(case).graph
    return {g.name(x): [g.name(int(y)) for y in g.successors(x)] for x in range(g.n)}


def _other_values(sem: str, v: Any, chain: list[float]) -> list[Any]:
    if sem == "normal":
        return [w for w in ("won", "lost", "draw") if w != v]
    if sem == "reachability":
        return [1 - v]
    if sem == "minimax":
        return [*[w for w in chain if w != v][:2], v + 0.5]
    if isinstance(v, int):
        return [v + 1] + ([v - 1] if v > 0 else []) + ["inf"]
    ks = [int(k) for k in v[4:-1].split(",") if k] if v.startswith("inf(") else []
    more = "inf(" + ",".join(map(str, sorted({*ks, max(ks, default=-1) + 1}))) + ")"
    less = "inf(" + ",".join(map(str, ks[:-1])) + ")" if ks else None
    return [more, 0] + ([less.replace("inf()", "inf")] if less else [])


def corruptions(case: Path, cert: Path, positions: int, seed: int = 0) -> Iterator[Entry]:
    doc = json.loads(cert.read_text())
    sem, nodes, succ = doc["semantics"], doc["nodes"], _successors(case)
    pred: dict[str, set[str]] = {x: set() for x in succ}
    for x, ys in succ.items():
        for y in ys:
            pred[y].add(x)
    chain = [float(v) for v in load_any(case).graph.value_levels()] if sem == "minimax" else []
    names = sorted(nodes)
    random.Random(seed).shuffle(names)

    def changed(x: str | None, what: str, where: tuple[Any, ...], value: Any = DROP) -> Entry:
        return (what, x, edited(doc, where, value))

    for x in names[:positions]:
        e = nodes[x]
        for w in _other_values(sem, e["value"], chain):
            yield changed(x, f"{x}.value {e['value']!r} -> {w!r}", ("nodes", x, "value"), w)
        if "remoteness" in e:
            r = e["remoteness"]
            yield changed(x, f"{x}.remoteness +1", ("nodes", x, "remoteness"), r + 1)
            yield changed(x, f"{x}.remoteness dropped", ("nodes", x, "remoteness"))
        others = [y for y in names if y not in succ[x]]
        if others:
            yield changed(x, f"{x}.move -> not a move", ("nodes", x, "move"), others[0])
        if "move" in e and sem in ("normal", "minimax"):
            yield changed(x, f"{x}.move dropped", ("nodes", x, "move"))
        for bound in ("lfp", "gfp"):
            if bound in e:
                for w in [c for c in chain if c != e[bound]][:2]:
                    yield changed(x, f"{x}.{bound} -> {w}", ("nodes", x, bound), w)
            rank = f"{bound}_rank"
            if rank in e and succ[x]:
                yield changed(x, f"{x}.{rank} -> 0", ("nodes", x, rank), 0)
        if "counter" in e and any(_high(nodes[y]["value"], e["value"]) for y in succ[x]):
            yield changed(x, f"{x}.counter -> 0", ("nodes", x, "counter"), 0)
    for key in ("won", "lost", "drawn"):
        yield changed(None, f"summary.{key} +1", ("summary", key), doc["summary"][key] + 1)
    if doc.get("line"):
        line = doc["line"]
        other = next(y for y in names if y != line[-1])
        yield changed(None, "line: its last position", ("line", len(line) - 1), other)
    for name, v in (doc.get("sums") or {}).items():
        w = v + 1 if isinstance(v, int) else 0
        yield changed(None, f"sums[{name}] -> {w}", ("sums", name), w)
    u = doc.get("uniqueness") or {}
    if u.get("proof") == "intervals":
        flip = "unique" if u["claim"] == "not unique" else "not unique"
        yield changed(None, f"uniqueness claim -> {flip}", ("uniqueness", "claim"), flip)
    if u.get("proof") == "drup":  # the claim turned round: our labelling is no second one
        no_witness = {"claim": "not unique", "proof": "witness", "witness": {}}
        yield changed(None, "uniqueness: not unique, no witness", ("uniqueness",), no_witness)
    if u.get("proof") == "mex" and "first" in u:  # a listed solution changed at a position
        y = sorted(u["first"])[0]
        w = u["first"][y] + 1
        yield changed(y, f"uniqueness first[{y}] -> {w}", ("uniqueness", "first", y), w)
    if u.get("proof") in ("drup", "mex") and u.get("drup"):  # a lemma no propagation derives
        lemma = "1000000007 0"  # a variable of no clause
        yield changed(None, "uniqueness: a lemma", ("uniqueness", "drup"), [lemma, *u["drup"]])
    if u.get("proof") == "witness":
        for y in u["witness"]:
            yield changed(
                None,
                f"uniqueness witness[{y}] dropped",
                ("uniqueness", "witness", y),
            )


def _high(option: Any, v: Any) -> bool:
    """Must this option revert below the position's counter (Fraenkel's condition A)?"""
    return isinstance(v, int) and (not isinstance(option, int) or option > v)


def _judge(case: Path, cert: Path, tmp: Path, positions: int) -> int:
    pred = {x: set() for x in _successors(case)}
    for x, ys in _successors(case).items():
        for y in ys:
            pred[y].add(x)
    succ = _successors(case)
    n = 0
    for what, x, doc in corruptions(case, cert, positions):
        bad = tmp / "corrupted.cert.json"
        bad.write_text(json.dumps(doc))
        out = check(str(case), str(bad))
        assert out.status == "REJECTED", (case.name, what, out)
        if x is not None:  # the position, or a neighbour whose rule reads its entry
            # rules read successors and, for Grundy values, the options' options
            near = {x} | pred[x] | set(succ[x])
            near |= {z for y in near for z in pred[y] | set(succ[y])}
            assert out.position in near, (case.name, what, out.message)
        n += 1
    return n


def test_every_corruption_is_rejected_naming_the_position(
    corpus_certificates: dict[Path, Path], tmp_path: Path
) -> None:
    every_third = list(corpus_certificates.items())[::3]  # the slow run takes every case
    n = sum(_judge(case, cert, tmp_path, 1) for case, cert in every_third)
    assert n >= 100, n
    print(f"{n} corruptions rejected")


@pytest.mark.slow
def test_many_corruptions_are_rejected(
    corpus_certificates: dict[Path, Path], tmp_path: Path
) -> None:
    n = sum(_judge(case, cert, tmp_path, 40) for case, cert in corpus_certificates.items())
    assert n >= 500, n
    print(f"{n} corruptions rejected")
