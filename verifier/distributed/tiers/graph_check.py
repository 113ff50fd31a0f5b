"""Judging a stored graph's own answers under reachability, minimax or impartial, shard by
shard: ``verify DIR --engine dask`` on a dataset ``solve`` wrote (``round_rules``).

One task per shard (``dataset.judge_graph.check_rule_shard``: the checks of each semantics,
and why all of them holding is a proof); the driver sees counts and the first violation of
each check.

A stranger's table (``--answers TABLE``): Parquet, one file or a directory of them, columns
``code`` (the node id) and ``value`` (reachability: the winner, 0 or 1, as in the in-memory
answer files; 0 is player 0, stored as the region's label +1, 1 as -1; minimax: Kars' score, a
number; impartial: the Grundy value, an integer >= 0), for reachability an optional
``remoteness`` (the layer; null or -1 outside the region). A column that would not be judged
(``move``; ``remoteness`` under minimax, whose in-memory remoteness counts plies, and impartial)
and a bad value are refused in one line naming the file and the column, exit 2. The rows are
routed and aligned as normal's (``tables.route_file``, ``tables.align_shard``, reading the value
column as ``Checker.table`` says): *coverage* counts the nodes without a row and the rows of no
node. The *rules* above are run on the table's values, where it claims. The global part:

- reachability with ``remoteness``: the table carries its certificate, the layers, checked
  exactly as the dataset's own (*layers*); the dataset need not be solved.
- otherwise (reachability without it; minimax, a stranger has no rank; impartial, no heights):
  the certificate is the dataset's own answers. When the dataset is solved, the same run judges
  them with every check above and compares the table with them node by node (*agreement*: a
  node whose value differs is a violation, named with both values). Own answers that pass are
  the values, so a table that agrees everywhere is proved and one that differs is refuted;
  own answers that fail prove nothing, and the verdict is *inconclusive* (the table's rule and
  coverage violations still refute it). Borrowing only the ranks for the table's scores would
  be sound when they pass, but a failure there would not say whether the table or the ranks
  are wrong.
- when the dataset is not solved: *inconclusive*, one line saying to solve it first (or give
  the remoteness), never verified: the rules alone prove nothing on a cycle (player 0 on a
  self-loop claimed winning, Kars' Figure 1's cycle claimed 2: both obey the rules) nor on a
  graph not proved acyclic.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, cast

import numpy as np

from verifier.dataset.errors import DatasetError
from verifier.dataset.export import exported_answers, is_dataset
from verifier.dataset.graphs import (
    GraphTiers,
    range_bounds,
    range_owner,
    with_names,
    with_semantics,
)
from verifier.dataset.judge import compare_counts, graph_counts
from verifier.dataset.judge_graph import CHECKERS, FOUND, Found, Refs, Table, check_rule_shard
from verifier.dataset.manifest import MANIFEST, Manifest, load_manifest
from verifier.dataset.round_rules import described
from verifier.dataset.rules import TierGame, game_from_manifest
from verifier.dataset.shape import Owners, Witness, position_named
from verifier.dataset.stored_columns import own_columns
from verifier.distributed.tiers.align import align_table
from verifier.distributed.tiers.check import OWN_ANSWERS, TierCheck, check_dataset
from verifier.distributed.tiers.checkpoints import Checkpoints, checkpointed
from verifier.distributed.tiers.supervise import cluster_workers, gather_tier, share

__all__ = ["check_any", "check_rule_dataset"]


def check_any(
    root: Path,
    client: Any,
    *,
    answers: Path | None = None,
    say: Any = None,
    poll: float = 1.0,
    grace: float = 10.0,
    resume: bool | None = None,
    cp: Checkpoints | None = None,
) -> TierCheck:
    """``verify DIR --engine dask``: a stored graph of semantics reachability, minimax or
    impartial judged here, any other dataset by ``check.check_dataset``; ``answers`` another
    dataset of the same game: its answers judged as a stranger's table (``export``); an answer
    file of ``docs/answers.md`` (keyed by names or ids): read as that table (``answers``).
    ``resume``: the records of a check of the same dataset, table and checker that stopped
    are reused (``True``), removed first (``False``), reused and said (``None``): see
    ``checkpoints``; ``cp``: those records, already opened."""
    with checkpointed(root, answers, resume, say, cp) as cp:
        return _check_any(root, client, answers, say, poll, grace, cp)


def _check_any(root: Path, client: Any, answers: Path | None, say: Any, poll: float,
               grace: float, cp: Checkpoints) -> TierCheck:  # fmt: skip
    from verifier.dataset.answers import is_code_table, judged_table

    if answers is not None and not is_dataset(answers) and not is_code_table(answers):
        with judged_table(root, answers) as (table, claimed, n, extra):
            res = check_any(root, client, answers=table, say=say, poll=poll, grace=grace, cp=cp)
        for check, (count, node, why, name) in extra.items():  # judged in memory
            res.checks = (*res.checks, check)
            res.counts[check] = count
            if count:
                res.witnesses[check] = (0, node, why)
                res.names[check] = name
        silent = "" if claimed == n else "; the dataset's own answers where it is silent"
        res.answers = f"{answers} ({claimed:,} of {n:,} positions claimed{silent})"
        return res
    if answers is not None and is_dataset(answers):
        workers = set(cluster_workers(client))

        def run(tasks: list[Any], what: str) -> list[Any]:
            return gather_tier(client, tasks, what=what, workers=workers, poll=poll, grace=grace)

        with exported_answers(root, answers, client, run) as table:
            res = check_any(root, client, answers=table, say=say, poll=poll, grace=grace, cp=cp)
        res.answers = f"{answers} (another dataset's answers, judged as a table)"
        return res
    m = load_manifest(root)
    game = game_from_manifest(m.game, m.parameters, str(root / MANIFEST))
    if not isinstance(game, GraphTiers) or own_columns(m.semantics) is None:
        return check_dataset(root, client, answers=answers, say=say, poll=poll, grace=grace, cp=cp)
    graph = with_semantics(game, m.semantics, str(root / MANIFEST))
    assert isinstance(graph, GraphTiers)
    m.need_generated(root)
    graph = with_names(root, graph)  # positions named as the case file names them
    return check_rule_dataset(
        root, m, graph, client, answers=answers, say=say, poll=poll, grace=grace, cp=cp
    )


def check_rule_dataset(
    root: Path,
    m: Manifest,
    game: GraphTiers,
    client: Any,
    *,
    answers: Path | None,
    say: Any = None,
    poll: float,
    grace: float,
    cp: Checkpoints | None = None,
) -> TierCheck:
    """Judge the own answers of a stored graph of semantics reachability, minimax or
    impartial, or a stranger's table of its values (see the module docstring); ``cp``: the
    run's records (``checkpoints``; default: opened here)."""
    with checkpointed(root, answers, None, say, cp) as cp:
        return _check_rule_dataset(root, m, game, client, answers, say, poll, grace, cp)


def _check_rule_dataset(root: Path, m: Manifest, game: GraphTiers, client: Any,
                        answers: Path | None, say: Any, poll: float, grace: float,
                        cp: Checkpoints) -> TierCheck:  # fmt: skip
    sem = game.semantics
    checker = CHECKERS[sem]
    if len(m.tiers) != 1:
        raise DatasetError(f"{root / MANIFEST}: $.tiers: a {sem.value} graph is one tier")
    tier = m.tiers[0]
    if answers is None and not tier.solved:
        raise DatasetError(
            f"{root / MANIFEST}: $.tiers[0].status: {tier.status!r}: no answers to judge "
            "(solve it, or give --answers)"
        )
    refs: Refs = [(s.positions, s.answers_sha256) for s in tier.shards]
    bounds = range_bounds([s.positions for s in tier.shards])
    run: dict[str, Any] = {"workers": set(cluster_workers(client)), "poll": poll, "grace": grace}
    counts: dict[str, int] = {}
    witnesses: dict[str, tuple[int, int, str]] = {}

    by_shard: dict[str, dict[tuple[int, int], int]] = {}

    def note(check: str, n: int, w: Witness, shard: int | None = None) -> None:
        counts[check] = counts.get(check, 0) + n
        if n and shard is not None:
            here = by_shard.setdefault(check, {})
            here[0, shard] = here.get((0, shard), 0) + n
        if w is not None and (check not in witnesses or (w[0], w[1]) < witnesses[check][:2]):
            witnesses[check] = w

    def judge(table: Table | None) -> list[tuple[Found, Found | None]]:
        every = share(client, refs)
        step = "check" if table is None else "table"
        return cp.gather(
            client, step, [(0, s.shard) for s in tier.shards],
            lambda i: client.submit(check_rule_shard, str(root), sem, tier.shards[i], every,
                                     int(bounds[tier.shards[i].shard]), table, pure=False),
            FOUND, lambda r: [(c, n, r[0].witnesses.get(c)) for c, n in r[0].counts.items()],
            lambda code: position_named(game, code),
            what="checking the answers", say=say, positions=tier.positions, **run,
        )  # fmt: skip

    if answers is None:
        tallies = []
        for (found, _), s in zip(judge(None), tier.shards, strict=True):
            for c, n in found.counts.items():
                note(c, n, found.witnesses.get(c), s.shard)
            if found.tally is not None:
                tallies.append(found.tally)
        note("counts", 0, None)
        for n, w in [*graph_counts(m, game), *compare_counts(m, 0, tallies)]:
            note("counts", n, w)
        from verifier.distributed.tiers.graph_solve import answer_of

        start = answer_of(root, m, m.root_code)
        desc = described(game.semantics, game.position_name(m.root_code), start)
        res = _verdict(m, game, OWN_ANSWERS,
                       ("dataset", *checker.checks, "counts"), counts, witnesses, desc,
                       checker.proof, None)  # fmt: skip
        res.by_shard = {c: x for c, x in by_shard.items() if c in res.checks}
        return res

    scratch = cp.scratch()
    owners = Owners((tuple(s.positions for s in tier.shards),), ranged=True)
    own: dict[str, int] = {}
    own_first: dict[str, tuple[int, int, str]] = {}
    try:
        note("coverage", 0, None)
        claims = align_table(client, root, scratch, cast("TierGame", game), m, answers, owners, run,
                        note, say, checker.table)  # fmt: skip
        certified = claims.remoteness and checker.certified_by_remoteness
        table = Table(str(scratch), tuple(sha for _, sha in claims.shards[0]), claims.remoteness,
                      borrow=not certified and tier.solved)  # fmt: skip
        for (found, own_found), s in zip(judge(table), tier.shards, strict=True):
            for c, n in found.counts.items():
                note(c, n, found.witnesses.get(c), s.shard)
            for c, n in (own_found.counts if own_found else {}).items():
                own[c] = own.get(c, 0) + n
                w = own_found.witnesses.get(c) if own_found else None
                if w is not None and (c not in own_first or w[1] < own_first[c][1]):
                    own_first[c] = w
        j = int(range_owner(np.array([m.root_code], dtype=np.uint64), bounds)[0])
        start = {
            k: v[m.root_code - int(bounds[j])].item() for k, v in table.read(checker, j).items()
        }
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    claimed = not checker.table.unclaimed(np.array([start[checker.value]]))[0]
    said = described(game.semantics, game.position_name(m.root_code), start) if claimed else None
    res = _stranger_verdict(m, game, str(answers), certified, tier.solved, counts, witnesses,
                            own, own_first, said)  # fmt: skip
    res.by_shard = {c: x for c, x in by_shard.items() if c in res.checks}
    return res


def _stranger_verdict(m: Manifest, game: GraphTiers, answers: str, certified: bool,
                      solved: bool, counts: dict[str, int],
                      witnesses: dict[str, tuple[int, int, str]], own: dict[str, int],
                      own_first: dict[str, tuple[int, int, str]], desc: str | None
                      ) -> TierCheck:  # fmt: skip
    """The verdict on a stranger's table: its certificate checked (``certified``), or the
    dataset's own answers, proved in the same run, the same values (``agreement``), or,
    without either, inconclusive."""
    checker = CHECKERS[game.semantics]
    hint = " or give the remoteness column (the layers)" * checker.certified_by_remoteness
    if certified:
        return _verdict(m, game, answers, ("dataset", "coverage", *checker.checks), counts,
                        witnesses, desc, checker.proof, None)  # fmt: skip
    if not solved:
        why = (f"the values obey the rules, but {checker.unproved}: solve the dataset first "
               f"(its answers carry the certificate){hint}")  # fmt: skip
        return _verdict(m, game, answers, ("dataset", "coverage", "rules"), counts, witnesses,
                        desc, "", why)  # fmt: skip
    bad = [c for c in checker.checks if own.get(c)]
    if bad:
        c = bad[0]
        _, code, what = own_first[c]
        why = (f"the values obey the rules, but {checker.unproved}, and the dataset's own "
               f"answers, which would prove them, fail their check ({own[c]:,} violation(s) "
               f"of {c}, first at {game.position_name(code)}: {what}): solve it again"
               f"{hint}")  # fmt: skip
        return _verdict(m, game, answers, ("dataset", "coverage", "rules"), counts, witnesses,
                        desc, "", why)  # fmt: skip
    cert = checker.checks[0] if checker.checks[0] != "rules" else checker.checks[1]
    proof = (f"they are the dataset's own answers, proved in the same run by its {cert}: "
             f"{checker.proof}")  # fmt: skip
    return _verdict(m, game, answers, ("dataset", "coverage", "rules", "agreement"), counts,
                    witnesses, desc, proof, None)  # fmt: skip


def _verdict(m: Manifest, game: GraphTiers, answers: str, checks: tuple[str, ...],
             counts: dict[str, int], witnesses: dict[str, tuple[int, int, str]],
             desc: str | None, proof: str, inconclusive: str | None) -> TierCheck:  # fmt: skip
    names = {c: position_named(game, w[1]) for c, w in witnesses.items() if min(w[:2]) >= 0}
    return TierCheck(
        m,
        answers,
        {c: counts.get(c, 0) for c in checks},
        {c: w for c, w in witnesses.items() if c in checks},
        checks,
        m.tiers[0].positions,
        None,
        desc,
        {c: x for c, x in names.items() if c in checks},
        proof,
        inconclusive,
    )
