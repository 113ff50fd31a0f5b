"""Solving a tier with cycles on the cluster: rounds driven from the driver, one rule per
semantics (``round_rules.RULES``; normal play's is the retrograde analysis).

``solve_graph_tier`` sets up the state of every shard of a stored graph's tier (one task per
shard; moves into later, solved tiers are answered then and become messages for the round
after their target's remoteness), then phase by phase (minimax: one per non-zero leaf value;
else one) runs a seed round on every shard and rounds on the shards that were sent messages
until a round decides nothing (``graph_tasks`` says what a round does); then one task per
shard writes its answers from its last state (normal: undecided nodes are drawn). Each shard's
rounds run on one worker (pinned: ``home``), which keeps the shard's state in memory between
rounds under a run id drawn afresh for every run, so no run reads another's; one task per
worker and round (``_Rounds``). The driver sees per task a count and the paths of the messages
it wrote to other workers, never a node; it deletes each round's files once the next round has
read them. A worker that dies or pauses fails the tier with one line
(``supervise.gather_tier``); nothing of the tier is kept then (its answers are written only at
the end, the workers' states of the run are dropped), and ``solve --resume`` starts the tier
again.
"""

from __future__ import annotations

import contextlib
import shutil
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from verifier.dataset import round_rules
from verifier.dataset.errors import DatasetError
from verifier.dataset.graph_storage import solve_dir
from verifier.dataset.graphs import range_bounds, range_owner
from verifier.dataset.manifest import MANIFEST, Manifest, ShardEntry, TierEntry
from verifier.dataset.shard_tasks import SolvedShard
from verifier.dataset.storage import read_codes, read_rule_answers
from verifier.dataset.stored_columns import COLUMNS
from verifier.distributed.tiers.graph_tasks import (
    Round,
    RuleRound,
    finish_rule_shard,
    forget_run,
    init_rule_shard,
    round_worker,
)
from verifier.distributed.tiers.supervise import gather_tier
from verifier.model.semantics import Semantics

__all__ = ["answer_of", "solve_graph_tier"]


Pending = dict[int, dict[int, list[str]]]
"""Messages not read yet: round that reads them -> shard -> paths of files (a shard with an
empty list was left its messages in its worker's memory)."""


def _post(pending: Pending, results: list[Round]) -> None:
    """File the messages of a round's tasks (or of the moves into later tiers) under the
    round that reads them."""
    for _, messages in results:
        for rnd, j, _rows, path in messages:
            paths = pending.setdefault(rnd + 1, {}).setdefault(j, [])
            if path is not None:
                paths.append(path)


def _forget(client: Any, run: str | None, root: str | None = None) -> None:
    """Drop the shard states of run ``run`` (and of any run on ``root``) from every worker;
    a worker that does not answer is left alone (one that left took them with it)."""
    with contextlib.suppress(Exception):  # best effort, on the way out of a failed run too
        client.run(forget_run, run, root, on_error="ignore")


class _Rounds:
    """One run of a tier's rounds (any semantics): its run id (drawn afresh, so no run reads
    another's state), the worker holding each shard's state (``home``), the tasks' gathering
    (``run``), the rounds on the shards sent messages (``drain``). The tier's work directory
    is cleared at the start and the end; the workers' states of the dataset are dropped at the
    start (an earlier run's) and, within ``with``, at the end and on failure."""

    def __init__(self, root: Path, k: int, tier: TierEntry, client: Any, *,
                 workers: set[str], poll: float, grace: float,
                 say: Callable[[str], None]) -> None:  # fmt: skip
        self.k, self.tier, self.client, self.say = k, tier, client, say
        self.workers, self.poll, self.grace = workers, poll, grace
        self.base = str(root)
        self.where = sorted(workers)
        self.run_id = uuid.uuid4().hex
        self.bounds = range_bounds([s.positions for s in tier.shards])
        self.work = solve_dir(root, k)

    def __enter__(self) -> _Rounds:
        shutil.rmtree(self.work, ignore_errors=True)  # an earlier run's rounds
        _forget(self.client, None, self.base)  # states an earlier run on this dataset left
        return self

    def __exit__(self, *exc: object) -> None:
        _forget(self.client, self.run_id, self.base)  # and the reverse edges kept of this tier
        shutil.rmtree(self.work, ignore_errors=True)

    def run(self, tasks: list[Any], check_first: bool = True) -> list[Any]:
        return gather_tier(self.client, tasks, what=f"solving tier {self.k}",
                           workers=self.workers, poll=self.poll, grace=self.grace,
                           check_first=check_first)  # fmt: skip

    def home(self, j: int) -> dict[str, Any]:
        """Shard ``j``'s rounds run on one worker, which keeps its state (and its reverse
        edges: ``graph_tasks._reverse_edges``) between rounds; a round is one task per worker
        (``round_worker``) for the shards it holds."""
        return {"workers": [self.worker(j)], "allow_other_workers": False, "pure": False}

    def worker(self, j: int) -> str:
        return self.where[j % len(self.where)]

    def round(self, rnd: int, inbox: dict[int, list[str]], rule: RuleRound) -> list[Round]:
        """Round ``rnd`` of the shards of ``inbox`` (shard -> its message files): one
        ``round_worker`` task per worker, pinned to it; what each shard's round reports."""
        jobs: dict[str, list[tuple[ShardEntry, list[str]]]] = {}
        for j in sorted(inbox):
            jobs.setdefault(self.worker(j), []).append((self.tier.shards[j], inbox[j]))
        done = self.run(
            [
                self.client.submit(round_worker, self.base, self.k, rnd, self.run_id, job,
                                   self.bounds, rule, workers=[w], allow_other_workers=False,
                                   pure=False)
                for w, job in jobs.items()
            ],
            check_first=False,  # a round: the workers asked for while it waits, once a poll
        )  # fmt: skip
        results = [r for rs in done for r in rs]
        if any(inbox.values()):
            shutil.rmtree(self.work / f"round={rnd - 1}", ignore_errors=True)
        return results

    def drain(self, pending: Pending, rule: RuleRound) -> tuple[int, int]:
        """Rounds on the shards sent messages until none are (a round that decides nothing
        sends nothing: the run stops after it, unless moves into a later tier still have
        messages for a later round); how many ran and the last (-1: none)."""
        rounds, rnd = 0, -1
        while pending:
            rnd = min(pending)
            results = self.round(rnd, pending.pop(rnd), rule)
            rounds += 1
            _post(pending, results)
            self.say(f"tier {self.k}: round {rnd}: {sum(r[0] for r in results):,} decided")
        return rounds, rnd


def solve_graph_tier(
    root: Path,
    m: Manifest,
    k: int,
    client: Any,
    *,
    workers: set[str],
    poll: float,
    grace: float,
    say: Callable[[str], None],
) -> list[SolvedShard]:
    """Solve tier ``k`` of a stored graph (the later tiers solved) by the rounds of its
    semantics' rule (``round_rules``), the shards' states kept in the workers: one task per
    shard sets up its state (and answers its moves into later tiers), then phase by phase
    (minimax: one per non-zero leaf value, the counters reset when a side starts; else one) a
    seed round on every shard and rounds on the shards sent messages until a round decides
    nothing, one task per worker and round; then one task per shard writes its answers; per
    shard what ``shard_tasks.solve_shard`` reports. ``impartial``: nodes never decided (a cycle)
    fail the solve with one line."""
    sem = Semantics(m.semantics)
    rule = round_rules.RULES[sem]
    tier = m.tiers[k]
    if any(s.edges_sha256 is None or s.reverse_sha256 is None for s in tier.shards):
        raise DatasetError(f"{root / MANIFEST}: $.tiers[{k}]: a shard without its edges")
    later = {
        t.tier: [(s.positions, s.sha256, s.answers_sha256) for s in t.shards]
        for t in m.tiers[k + 1 :]
    }
    with _Rounds(root, k, tier, client, workers=workers, poll=poll, grace=grace, say=say) as r:
        started = r.run([client.submit(init_rule_shard, r.base, r.run_id, k, s, r.bounds, sem,
                                       later if s.exits else None, **r.home(s.shard))
                         for s in tier.shards])  # fmt: skip
        leaves = np.array([v for vs, _ in started for v in vs], dtype=np.float64)
        phases = round_rules.phases(rule, leaves)
        everyone: dict[int, list[str]] = {s.shard: [] for s in tier.shards}
        pending: Pending = {}
        _post(pending, [rd for _, rd in started])  # round 0 of one phase, moves to later tiers
        rnd = ran = 0  # the next round's number; how many rounds ran
        for i, phase in enumerate(phases):
            reset = phase is not None and i > 0 and phase[0] != phases[i - 1][0]  # type: ignore[index]
            if rule.phased:  # else ``init_rule_shard`` seeded the one phase
                results = r.round(rnd, everyone, (sem, phase, True, reset))
                _post(pending, results)
            else:
                results = [rd for _, rd in started]
            say(f"tier {k}: round {rnd}: {sum(x[0] for x in results):,} decided"
                + (f" (leaves of value {phase[1]:g})" if phase is not None else ""))  # fmt: skip
            drained, last = r.drain(pending, (sem, phase, False, False))
            rnd, ran = max(rnd, last) + 1, ran + 1 + drained  # the seed round and the drained
        solved: list[SolvedShard] = r.run(
            [
                client.submit(finish_rule_shard, r.base, k, s.shard, r.run_id, sem,
                              **r.home(s.shard))
                for s in tier.shards
            ]
        )  # fmt: skip
    say(f"tier {k}: {ran} retrograde rounds")
    if rule.acyclic_only and any(x[2] for x in solved):
        stuck = sum(x[2] for x in solved)
        j = next(i for i, x in enumerate(solved) if x[2])
        s = tier.shards[j]
        cols = read_rule_answers(root, k, j, solved[j][4], s.positions, rule.columns.answer_columns)
        value = np.asarray(cols[next(iter(rule.columns.answer_columns))])  # -1: never decided
        x = int(r.bounds[j]) + int(np.flatnonzero(value < 0)[0])
        raise DatasetError(
            f"{root}: the graph has a cycle: {stuck:,} node(s) never finished (node {x} lies on "
            f"a cycle or leads to one); {sem.value} graphs are solved here when acyclic"
        )
    return solved


def answer_of(root: Path, m: Manifest, code: int) -> dict[str, Any]:
    """The answers of node ``code`` of a solved graph's tier 0 (the columns of
    ``StoredColumns.answer_columns``; normal: ``label`` and ``remoteness``)."""
    columns = COLUMNS[Semantics(m.semantics)].answer_columns
    tier = m.tiers[0]
    bounds = range_bounds([s.positions for s in tier.shards])
    want = np.array([code], dtype=np.uint64)
    if not 0 <= code < int(bounds[-1]):
        raise DatasetError(f"{root}: tier 0 has no node {code}")
    s = tier.shards[int(range_owner(want, bounds)[0])]
    codes = read_codes(root, 0, s.shard, s.sha256, s.positions)
    at = int(np.searchsorted(codes, want)[0])
    if at >= len(codes) or codes[at] != want[0]:
        raise DatasetError(f"{root}: tier 0 has no node {code}")
    cols = read_rule_answers(root, 0, s.shard, s.answers_sha256, s.positions, columns)
    return {key: v[at].item() for key, v in cols.items()}
