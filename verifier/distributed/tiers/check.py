"""Judging a tiered dataset's answers on the workers, shard by shard: ``verify DIR --linear
--engine dask [--answers A]``.

The claims judged are the dataset's own answers (``answers/``, written by ``solve``) or a
stranger's table: one Parquet file or a directory of them, partitioned any way, with columns
``code`` (the position's code, as in the dataset), ``value`` (+1 won, -1 lost, 0 drawn, for the
player to move), optional ``remoteness`` (plies; null or -1 = none) and ``move`` (the code of
the position the chosen move leads to; null = none). A stored graph of another semantics reads
its own ``value`` (``TableValues``: ``graph_check`` judges it) through the same routing and
alignment.

Three steps, each one task per file or shard, nothing but counts and named witnesses back to
the driver: the stranger's rows are *routed* to the (tier, shard) owning their code; each
shard's rows are *aligned* with its codes (missing claims and claims for positions that are
not in the game counted); each shard is *checked* against the rules of the game, its moves
joined with their targets' claims in the next tier (``dataset.judge``: the checks, what they
hold of the dataset itself, and why claims that pass them are the game's values).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verifier.dataset.errors import DatasetError
from verifier.dataset.graphs import GraphTiers, range_bounds, with_names
from verifier.dataset.judge import check_shard, compare_counts, graph_counts, root_claim
from verifier.dataset.manifest import MANIFEST, Manifest, load_manifest
from verifier.dataset.rules import game_from_manifest
from verifier.dataset.shape import (
    CHECKS,
    Owners,
    ShardFaults,
    Witness,
    position_named,
    reach_shard,
)
from verifier.dataset.stored_columns import own_columns
from verifier.dataset.tables import Claims
from verifier.distributed.tiers.align import align_table
from verifier.distributed.tiers.checkpoints import REACHED, SHARD_FAULTS, Checkpoints, checkpointed
from verifier.distributed.tiers.supervise import cluster_workers, gather_tier, share
from verifier.games.registry import hook, tiered_form

__all__ = ["OWN_ANSWERS", "TierCheck", "check_dataset"]


# --- the driver --------------------------------------------------------------------------


OWN_ANSWERS = "answers/ (the dataset's own)"
"""What a check of the dataset's own answers judged (``TierCheck.answers``)."""


@dataclass
class TierCheck:
    """The verdict on a dataset's answers: violations per check and the first of each."""

    manifest: Manifest
    answers: str
    """What was judged: ``answers/`` of the dataset, or the stranger's table."""
    counts: dict[str, int]
    witnesses: dict[str, tuple[int, int, str]]
    checks: tuple[str, ...]
    """The checks that ran (``remoteness`` and ``moves`` only when claimed)."""
    positions: int
    root_claim: tuple[int, int] | None
    """The start position's claimed ``(label, remoteness)``, if claimed."""
    description: str | None
    names: dict[str, str] = field(default_factory=dict)
    """The witnesses' positions in the words of the game (check -> name)."""

    proof: str = "every move leads to a later tier"
    """Why claims that break no rule are the game's values (the report's words)."""
    inconclusive: str | None = None
    """Why claims that break no rule still prove nothing (labels alone on a game with cycles:
    a cycle of claims can justify itself), else ``None``."""
    by_shard: dict[str, dict[tuple[int, int], int]] = field(default_factory=dict)
    """Per check, the violations found in each ``(tier, shard)`` that has any (those counted
    by a shard's task; ``-v`` prints them)."""
    skipped: dict[str, str] = field(default_factory=dict)
    """Checks that could not run here, and why (the standalone checker's, without an optional
    module it needs): never counted as passed."""

    @property
    def refuted(self) -> bool:
        return any(self.counts.values())

    @property
    def own_answers(self) -> bool:
        """The dataset's own stored answers were judged (not a stranger's table)."""
        return self.answers == OWN_ANSWERS

    @property
    def verdict(self) -> str:
        """``verified``, ``refuted`` or ``inconclusive``."""
        if self.refuted:
            return "refuted"
        return "inconclusive" if self.inconclusive else "verified"


def check_dataset(
    root: Path,
    client: Any,
    *,
    answers: Path | None = None,
    say: Any = None,
    poll: float = 1.0,
    grace: float = 10.0,
    cp: Checkpoints | None = None,
) -> TierCheck:
    """Judge the answers of the dataset in ``root`` (its own, or the table ``answers``) on the
    cluster of ``client``; see the module docstring. ``cp``: the run's records
    (``checkpoints``; default: opened here, reused when they are this run's)."""
    with checkpointed(root, answers, None, say, cp) as cp:
        return _check_dataset(root, client, answers, say, {"poll": poll, "grace": grace}, cp)


def _check_dataset(
    root: Path, client: Any, answers: Path | None, say: Any, timing: dict[str, float],
    cp: Checkpoints,
) -> TierCheck:  # fmt: skip
    m = load_manifest(root)
    game = game_from_manifest(m.game, m.parameters, str(root / MANIFEST))
    m.need_generated(root)
    game = with_names(root, game)  # a case file's graph: its positions named as the file does
    if not isinstance(game, GraphTiers) and m.root_code != game.root():
        raise DatasetError(  # the start that the reachable check counts from is the game's
            f"{root / MANIFEST}: $.root.code: {m.root_code}, but the start of {game.name} "
            f"{m.parameters} is code {game.root()}"
        )
    if isinstance(game, GraphTiers) and own_columns(m.semantics) is not None:
        raise DatasetError(  # graph_check.check_any judges those
            f"{root / MANIFEST}: $.semantics: {m.semantics!r}: these checks are normal's"
        )
    if answers is None:
        for t in m.tiers:
            if not t.solved:
                raise DatasetError(
                    f"{root / MANIFEST}: $.tiers[{t.tier}].status: {t.status!r}: no answers to "
                    "judge (solve it, or give --answers)"
                )
    workers = set(cluster_workers(client))
    run = {"workers": workers, **timing}
    codes_refs = [[(s.positions, s.sha256) for s in t.shards] for t in m.tiers]
    owners = Owners(
        tuple(tuple(s.positions for s in t.shards) for t in m.tiers),
        ranged=isinstance(game, GraphTiers),
    )
    counts = dict.fromkeys(CHECKS, 0)
    witnesses: dict[str, tuple[int, int, str]] = {}

    by_shard: dict[str, dict[tuple[int, int], int]] = {}
    places = [(t.tier, s.shard) for t in m.tiers for s in t.shards]  # the tasks' order

    def note(check: str, n: int, w: Witness, at: tuple[int, int] | None = None) -> None:
        counts[check] += n
        if n and at is not None:
            by_shard.setdefault(check, {})[at] = by_shard.get(check, {}).get(at, 0) + n
        if w is not None and (check not in witnesses or (w[0], w[1]) < witnesses[check][:2]):
            witnesses[check] = w

    scratch = cp.scratch()
    entries = [(t.tier, s) for t in m.tiers for s in t.shards]
    try:
        if answers is None:
            claims = Claims(
                str(root),
                True,
                tuple(tuple((s.positions, s.answers_sha256) for s in t.shards) for t in m.tiers),
                remoteness=True,
                moves=False,
            )
        else:
            claims = align_table(client, root, scratch, game, m, answers, owners, run, note, say)
        everyone = [share(client, x) for x in (codes_refs, claims, owners)]
        computed = not isinstance(game, GraphTiers)  # moves from the codes: reachability
        marks = str(cp.marks()) if computed else None
        said = {"say": say, "positions": sum(t.positions for t in m.tiers), **run}

        def named(code: int) -> str:
            return position_named(game, code)

        checked = cp.gather(
            client, "check", places,
            lambda i: client.submit(check_shard, str(root), game, *entries[i], *everyone, marks,
                                    pure=False),
            SHARD_FAULTS, lambda f: list(zip(CHECKS, f.counts, f.witnesses, strict=True)), named,
            what="checking the answers", **said,
        )  # fmt: skip
        for f, at in zip(checked, places, strict=True):
            for c, n, w in zip(CHECKS, f.counts, f.witnesses, strict=True):
                note(c, n, w, at)
        if computed:
            reached = cp.gather(
                client, "reach", places,
                lambda i: client.submit(reach_shard, str(root), marks, *entries[i], m.root_code,
                                        pure=False),
                REACHED, lambda r: [("reachable", *r)], named,
                what="checking that every position is reachable", **said,
            )  # fmt: skip
            for (n, w), at in zip(reached, places, strict=True):
                note("reachable", n, w, at)
        form = tiered_form(m.game)
        if form is not None and form.spans is not None:
            for w in _spans(client, hook(form.spans), game, m, checked, run):
                note("dataset", 1, w)
        if answers is None:
            for n, w in graph_counts(m, game):
                note("counts", n, w)
            tallies = iter(f.tally for f in checked)
            for t in m.tiers:
                got = [next(tallies) for _ in t.shards]
                for n, w in compare_counts(m, t.tier, [x for x in got if x is not None]):
                    note("counts", n, w)
        start = root_claim(root, m, claims, owners)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)  # the aligned table (the records stay)
    ran = ("dataset",) + ("reachable",) * computed + ("coverage",) * (answers is not None)
    ran += ("rules",) + ("remoteness",) * claims.remoteness + ("moves",) * claims.moves
    ran += ("counts",) * (answers is None)
    desc = None
    if start is not None:
        desc = game.describe(*start)
    names = {c: position_named(game, w[1]) for c, w in witnesses.items() if min(w[:2]) >= 0}
    unproved = None
    if not claims.remoteness and not game.acyclic:
        unproved = (
            "the labels obey the rules, but the game has cycles and a cycle of claims can "
            "justify itself: give the remoteness column to prove them"
        )
    return TierCheck(
        m,
        OWN_ANSWERS if answers is None else str(answers),
        {c: counts[c] for c in ran},
        {c: w for c, w in witnesses.items() if c in ran},
        ran,
        sum(t.positions for t in m.tiers),
        start,
        desc,
        names,
        "every move leads to a later tier"
        if game.acyclic
        else "each win and loss rests on claims nearer the end (remoteness checked)",
        unproved,
        {c: by_shard[c] for c in ran if c in by_shard},
    )


def _spans(
    client: Any,
    check_spans: Callable[..., Any],
    game: Any,
    m: Manifest,
    checked: list[ShardFaults],
    run: dict[str, Any],
) -> list[tuple[int, int, str]]:
    """The shards' spans judged by the game's ``TieredForm.spans`` (a chess dataset's shards
    in the order of their positions, and no legal position outside them; one task per tier):
    the violations."""
    spans = iter(f.span for f in checked)
    tasks = []
    for t in m.tiers:
        mine = [next(spans) for _ in t.shards]
        lo = [int(x) for x in range_bounds([s.positions for s in t.shards])[:-1]]
        tasks.append(client.submit(check_spans, game, t.tier, mine, lo, pure=False))
    got = gather_tier(client, tasks, what="checking the shards' spans", **run)
    return [w for w in got if w is not None]
