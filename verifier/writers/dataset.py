"""A tiered dataset's reports, as ``writers.table`` / ``json`` / ``junit`` write a case's.

``solve DIR --engine dask``: the start position's value in the game's words, then won / lost /
drawn per tier (lines, or one JSON document), and the game's own block (chess's longest wins);
``verify DIR --engine dask``: the verdict, the start's claimed value, the counts, why, then each
check (lines, ``-q``'s one line, one JSON document, JUnit XML). They read what
``distributed.tiers.commands`` returns (``SolvedDataset``, ``CheckedDataset``)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import TYPE_CHECKING, Any

from verifier.dataset.shape import SHAPE
from verifier.dataset.stored_columns import count_names, own_columns
from verifier.games.registry import hook, tiered_form, units
from verifier.io.files import write_atomically
from verifier.model.describe import describe
from verifier.model.semantics import Semantics
from verifier.model.words import count

if TYPE_CHECKING:
    from verifier.distributed.tiers.check import TierCheck
    from verifier.distributed.tiers.commands import CheckedDataset, SolvedDataset

__all__ = [
    "checked_document",
    "checked_line",
    "checked_lines",
    "solved_document",
    "solved_lines",
    "write_checked_junit",
]


def solved_document(ds: SolvedDataset) -> dict[str, Any]:
    """``solve DIR --format json``: the run (``_solve_json``) and the game's own block."""
    doc = _solve_json(ds.path, ds.result)
    if ds.wins is not None:
        doc["materials"] = ds.wins
    return doc


def solved_lines(ds: SolvedDataset) -> list[str]:
    """``solve DIR``'s table: the start's value, the dataset, the tiers, the game's block."""
    lines = _solve_text(ds.path, ds.result)
    form = tiered_form(ds.result.manifest.game) if ds.wins is not None else None
    if form is not None and form.solved_lines is not None:
        symmetric = bool(ds.result.manifest.parameters.get("symmetric"))
        lines += hook(form.solved_lines)(ds.wins, symmetric)
    return lines


def checked_document(ds: CheckedDataset) -> dict[str, Any]:
    """``verify DIR --format json``."""
    return _check_json(ds.path, ds.result)


def checked_lines(ds: CheckedDataset, verbose: bool = False) -> list[str]:
    """``verify DIR``'s table (``verbose``: each check's violations shard by shard, the tiers
    and the wall time)."""
    return _check_text(ds.path, ds.result, verbose, ds.seconds)


def checked_line(ds: CheckedDataset) -> str:
    """``verify DIR -q``: the head, the start's claimed value, the first violation."""
    return _check_line_q(ds.path, ds.result, ds.seconds)


def write_checked_junit(ds: CheckedDataset, out: Path) -> Path:
    """Write ``verify DIR --junit``'s XML (one testcase: the dataset) to ``out``."""
    tree = _check_junit(ds.path, ds.result, ds.seconds)
    return write_atomically(
        out, lambda f: tree.write(f, encoding="utf-8", xml_declaration=True), None
    )


def _names(m: Any) -> tuple[str, str, str, str]:
    """What a tier's ``won``, ``lost``, ``drawn`` and ``max_remoteness`` count (a stored
    graph's semantics: ``stored_columns.StoredColumns.count_names``)."""
    return count_names(m.semantics)


def _holds(m: Any) -> str | None:
    """What the game's check of the dataset itself proves it holds (``TieredForm.holds``)."""
    form = tiered_form(m.game)
    return form.holds if form is not None else None


def _about(root: Path, m: Any) -> dict[str, Any]:
    """The dataset a document is about."""
    return {"dataset": str(root), "game": m.game, "parameters": m.parameters,
            "semantics": m.semantics}  # fmt: skip


def _game(root: Path, m: Any) -> str:
    """``DIR: game (parameters)``: where the dataset is and what it holds."""
    said = {k: v for k, v in m.parameters.items() if not k.endswith("sha256")}  # no digests
    params = " ".join(f"{k}={v}" for k, v in said.items())
    return f"{root}: {m.game} ({params})"


def _headline(root: Path, m: Any, positions: int) -> str:
    """``DIR: game (parameters), semantics, N positions in T tiers, S shards``."""
    shards = sum(len(t.shards) for t in m.tiers)
    return (
        f"{_game(root, m)}, {m.semantics}, {positions:,} {units(m)} in "
        f"{len(m.tiers)} tiers, {shards} shards"
    )


def _solve_json(root: Path, res: Any) -> dict[str, Any]:
    """The run as a JSON document (the manifest's counts, the start position's value)."""
    m = res.manifest
    return {
        **_about(root, m),
        "positions": sum(t.positions for t in m.tiers),
        "root": _rule_root(res)
        if res.root_answers is not None or res.root_label is None
        else {
            "label": {1: "won", -1: "lost", 0: "drawn"}[res.root_label],
            "remoteness": None if res.root_label == 0 else res.root_remoteness,
            "value": res.description,
        },
        "tiers_solved_now": res.tiers_solved,
        "tiers": [
            {
                "tier": t.tier,
                "shards": len(t.shards),
                "positions": t.positions,
                "status": t.status,
                "won": t.won,
                "lost": t.lost,
                "drawn": t.drawn,
                "max_remoteness": t.max_remoteness,
                **_named_counts(m, t),
            }
            for t in m.tiers
        ],
    }


def _rule_root(res: Any) -> dict[str, Any] | None:
    """The start's answers of a stored graph of a semantics other than normal."""
    if res.root_answers is None:
        return None
    return {**res.root_answers, "value": res.description}


def _named_counts(m: Any, t: Any) -> dict[str, Any]:
    """A tier's counts under their names (semantics other than normal)."""
    if own_columns(m.semantics) is None or not t.solved:
        return {}
    names = _names(m)
    values = (t.won, t.lost, t.drawn, t.max_remoteness)
    return {"counts": {k: v for k, v in zip(names, values, strict=True) if k != "-"}}


def _solve_text(root: Path, res: Any) -> list[str]:
    """The run as lines of text: the start's value first, then the dataset, a table of the
    tiers."""
    m = res.manifest
    total = sum(t.positions for t in m.tiers)
    won, lost, drawn, longest = _names(m)
    lines = [
        f"value: {res.description}"
        if res.description is not None
        else "value: not known yet (tier 0 is not solved: run again with --resume)",
        f"{_headline(root, m, total)}; {res.tiers_solved} tier(s) solved by this run",
        f"{'tier':>5} {'shards':>6} {'positions':>14} {won:>14} {lost:>14} "
        f"{drawn:>14} {longest:>8}",
    ]
    for t in m.tiers:
        if t.solved:
            top = "-" if t.max_remoteness is None or t.max_remoteness < 0 else t.max_remoteness
            counts = f"{t.won:>14,} {t.lost:>14,} {t.drawn:>14,} {top:>8}"
        else:
            counts = f"{'(not solved)':>14}"
        lines.append(f"{t.tier:>5} {len(t.shards):>6} {t.positions:>14,} {counts}")
    return lines


def _check_json(root: Path, res: TierCheck) -> dict[str, Any]:
    """A judgement as one JSON document: the verdict, per check its violations and the first."""
    m = res.manifest
    return {
        **_about(root, m),
        "answers": res.answers,
        "verdict": res.verdict,
        "inconclusive": res.inconclusive,
        "positions": res.positions,
        "claimed_root": ({"value": res.description} if res.description else None)
        if res.root_claim is None
        else {
            "label": {1: "won", -1: "lost", 0: "drawn"}[res.root_claim[0]],
            "remoteness": None if res.root_claim[0] == 0 else res.root_claim[1],
            "value": res.description,
        },
        "checks": {
            c: {
                "violations": res.counts[c],
                "first": None
                if c not in res.witnesses
                else {
                    "tier": res.witnesses[c][0] if res.witnesses[c][0] >= 0 else None,
                    "code": res.witnesses[c][1] if res.witnesses[c][1] >= 0 else None,
                    "position": res.names.get(c),
                    "why": res.witnesses[c][2],
                },
            }
            for c in res.checks
        },
        "skipped": dict(res.skipped),  # checks that could not run here: never passed
    }


SHARDS_SHOWN = 20
"""The shards with violations ``-v`` lists under a check (then how many more)."""


def _check_text(
    root: Path, res: TierCheck, verbose: bool = False, seconds: float | None = None
) -> list[str]:
    """A judgement as lines, beginning as a case's report does (``writers.table``): the
    dataset, its size and the verdict; the start's claimed value; the counts of its answers;
    why the verdict holds; then the dataset in full and each check. ``verbose`` (``-v``): under
    each check its violations shard by shard, then the tiers judged and the wall time."""
    m = res.manifest
    lines = [_verdict_head(root, res, seconds)]
    lines.append(f"  from {res.description or 'the start: no claim'}")
    if res.own_answers and all(t.solved for t in m.tiers):
        lines.append(f"  {_totals(m)}")
    lines.append(f"  why: {_why(res)}")
    lines.append(f"  {_game(root, m)}; answers judged: {res.answers}")  # the size: the head's
    for c in res.checks:
        lines.append(f"  {c:<11} {_check_line(res, c)}")
        if verbose:
            lines += _by_shard(res, c)
    lines += [f"  {c:<11} skipped: {why}" for c, why in res.skipped.items()]
    if verbose:
        for t in m.tiers:
            n, shards = count(t.positions, "position", sep=True), count(len(t.shards), "shard")
            lines.append(f"  tier {t.tier}: {n} in {shards}")
        if seconds is not None:
            lines.append(f"  wall time   {seconds:.2f} s")
    return lines


def _check_line_q(root: Path, res: TierCheck, seconds: float | None = None) -> str:
    """``verify -q``'s one line, as a case's (``writers.table.print_line``): the head, the
    start's claimed value, and the first violation of a refuted dataset."""
    first = next((f"{c}: {_check_line(res, c)}" for c in res.checks if res.counts[c]), None)
    tail = [f"from {res.description}" if res.description else "", first and f"refuted: {first}"]
    said = "; ".join(t for t in tail if t)
    return _verdict_head(root, res, seconds) + (f"  {said}" if said else "")


def _verdict_head(root: Path, res: TierCheck, seconds: float | None) -> str:
    """``NAME  semantics, N positions in T tiers, S shards  ->  VERDICT  (s)``: a case's first
    line (``writers.table``), the dataset's folder its name."""
    m = res.manifest
    shards = sum(len(t.shards) for t in m.tiers)
    kind = _kind(m)
    took = "" if seconds is None else f"  ({seconds:.2f} s)"
    return (
        f"{root.name or root}  {m.semantics}, {res.positions:,} {kind} in "
        f"{count(len(m.tiers), 'tier')}, {count(shards, 'shard')}  ->  "
        f"{res.verdict.upper()}{took}"
    )


def _kind(m: Any) -> str:
    """What a dataset's rows are: ``classes`` (up to symmetry) or ``positions``."""
    return "classes" if m.parameters.get("symmetric") else "positions"


def _totals(m: Any) -> str:
    """The stored answers' counts over every tier in a case's words (its third line:
    ``Description.counts_words``: ``won 390, lost 224, drawn 151``; ``player 0 reaches the
    target from 4, ...``), then the dataset's greatest rank under its name (``longest 9``: the
    longest win or loss; ``layers``, ``height``; none for minimax' ranks)."""
    won, lost, drawn = (sum(getattr(t, k) for t in m.tiers) for k in ("won", "lost", "drawn"))
    words = describe(Semantics(m.semantics)).counts_words(
        {"won": won, "lost": lost, "drawn": drawn}, sep=True
    )
    top = max((t.max_remoteness for t in m.tiers if t.max_remoteness is not None), default=-1)
    name = _names(m)[3]
    if top >= 0 and name != "-":
        words.append(f"{name} {top:,}")
    return ", ".join(words)


def _why(res: TierCheck) -> str:
    """Why the verdict: the violations and what they break, why labels alone prove nothing, or
    what the claims that break no rule are proved to be."""
    m = res.manifest
    if res.refuted:
        what = f"the rules of {m.game}"
        if any(res.counts.get(c) for c in SHAPE):
            what = f"what a dataset of {m.game} must hold"
        return f"{sum(res.counts.values()):,} violation(s) of {what}"
    if res.inconclusive:
        return res.inconclusive
    whole = ""
    if "reachable" in res.checks:
        whole = f"the dataset holds exactly the {res.positions:,} positions reachable from "
        whole += "the start, "
    elif (holds := _holds(m)) and "dataset" in res.checks:
        whole = f"the dataset holds exactly {holds.format(kind=_kind(m))}, "
    return (
        f"{whole}every one of the {res.positions:,} claims obeys the rules, and {res.proof}: "
        "the claims are the game's values"
    )


def _check_line(res: TierCheck, c: str) -> str:
    """A check's count of violations and its first (``ok`` without any)."""
    n = res.counts[c]
    line = "ok" if n == 0 else f"{n:,} violation(s)"
    if c in res.witnesses:
        tier, code, why = res.witnesses[c]
        if code < 0:  # a count, not a position
            line += f"; first in tier {tier}: {why}" if tier >= 0 else f"; first: {why}"
        else:
            where = res.names.get(c, f"code {code}")
            at = f" in tier {tier}" if tier >= 0 else ""
            line += f"; first at {where}{at}: {why}"
    return line


def _by_shard(res: TierCheck, c: str) -> list[str]:
    """``-v``: a check's violations in each shard that has any (the first ``SHARDS_SHOWN``),
    and those no shard's task counted (a table's rows routed nowhere, a manifest's count)."""
    where = sorted(res.by_shard.get(c, {}).items())
    out = [f"    tier {t} shard {s}: {n:,} violation(s)" for (t, s), n in where[:SHARDS_SHOWN]]
    if len(where) > SHARDS_SHOWN:
        out.append(f"    ... and {len(where) - SHARDS_SHOWN:,} more shard(s) with violations")
    rest = res.counts[c] - sum(n for _, n in where)
    if rest and where:
        out.append(f"    outside the shards' tasks: {rest:,} violation(s)")
    return out


def _check_junit(root: Path, res: TierCheck, seconds: float) -> ET.ElementTree:
    """A judgement as ``verify --junit``'s document (``writers.junit``): one testcase for the
    dataset, as for a case file, each check a property (``ok`` or its violations and the
    first); refuted: a failure whose message is the first check violated and the position it
    names; inconclusive: an error saying why."""
    el = ET.Element(
        "testcase", classname=str(root.parent), name=root.name or str(root),
        time=f"{seconds:.3f}",
    )  # fmt: skip
    props = ET.SubElement(el, "properties")
    for c in res.checks:
        ET.SubElement(props, "property", name=c, value=_check_line(res, c))
    bad = [f"{c}: {_check_line(res, c)}" for c in res.checks if res.counts[c]]
    if bad:
        ET.SubElement(el, "failure", type="refuted", message=bad[0]).text = "\n\n".join(bad)
    elif res.inconclusive:
        error = ET.SubElement(el, "error", type="inconclusive", message=res.inconclusive)
        error.text = res.inconclusive
    suite = ET.Element(
        "testsuite", name="verify", tests="1", failures=str(int(bool(bad))),
        errors=str(int(not bad and bool(res.inconclusive))), skipped="0",
        time=f"{seconds:.3f}",
    )  # fmt: skip
    suite.append(el)
    top = ET.Element("testsuites")
    top.append(suite)
    ET.indent(top)
    return ET.ElementTree(top)
