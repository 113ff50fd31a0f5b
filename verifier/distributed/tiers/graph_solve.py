"""Solving a tier with cycles on the cluster: retrograde rounds driven from the driver.

``solve_graph_tier`` runs round 0 on every shard of a stored graph's tier, then round after
round on the shards that were sent messages, until a round decides nothing (``graph_tasks``
says what a round does); then one task per shard writes its answers from its last state
(undecided nodes: drawn). Moves into later, solved tiers are answered in round 0 and become
messages for the round after their target's remoteness. Each shard's rounds run on one worker
(pinned: ``home``), which keeps the shard's state in memory between rounds under a run id
drawn afresh for every run, so no run reads another's. The driver sees per task a count and
the paths of the messages it wrote to other workers, never a node; it deletes each round's
files once the next round has read them. A worker that dies or pauses fails the tier with one
line (``supervise.gather_tier``); nothing of the tier is kept then (its answers are written
only at the end, the workers' states of the run are dropped), and ``solve --resume`` starts the
tier again.
"""

from __future__ import annotations

import contextlib
import shutil
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from verifier.distributed.tiers import graph_rules
from verifier.distributed.tiers.errors import DatasetError
from verifier.distributed.tiers.graph_storage import remove_rule_state, solve_dir, state_path
from verifier.distributed.tiers.graph_tasks import (
    Round,
    finish_rule_shard,
    finish_shard,
    forget_run,
    init_rule_shard,
    round_worker,
    rule_round,
    start_rounds,
)
from verifier.distributed.tiers.graphs import range_bounds, range_owner
from verifier.distributed.tiers.manifest import MANIFEST, Manifest, ShardEntry
from verifier.distributed.tiers.storage import read_answers, read_codes, read_rule_answers
from verifier.distributed.tiers.supervise import gather_tier
from verifier.distributed.tiers.tasks import SolvedShard
from verifier.model.semantics import Semantics

__all__ = ["answer_of", "rule_answer_of", "solve_graph_tier", "solve_rule_tier"]


Pending = dict[int, dict[int, list[str]]]
"""Messages not read yet: round that reads them -> shard -> paths of files (a shard with an
empty list was left its messages in its worker's memory)."""


def _post(pending: Pending, results: list[Round]) -> None:
    """File the messages of a round's tasks under the round that reads them."""
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
    """Solve tier ``k`` of a stored graph by retrograde rounds (the later tiers solved); per
    shard what ``tasks.solve_shard`` reports (the answers are written)."""
    tier = m.tiers[k]
    if any(s.edges_sha256 is None or s.reverse_sha256 is None for s in tier.shards):
        raise DatasetError(f"{root / MANIFEST}: $.tiers[{k}]: a shard without its edges")
    if graph_rules.rule_for(Semantics(m.semantics)) is not None:  # the rules of graph_rules
        return solve_rule_tier(root, m, k, client, workers=workers, poll=poll, grace=grace, say=say)
    later = {
        t.tier: [(s.positions, s.sha256, s.answers_sha256) for s in t.shards]
        for t in m.tiers[k + 1 :]
    }
    bounds = range_bounds([s.positions for s in tier.shards])
    work = solve_dir(root, k)
    shutil.rmtree(work, ignore_errors=True)  # an earlier run's rounds

    def run(tasks: list[Any], check_first: bool = True) -> list[Any]:
        return gather_tier(client, tasks, what=f"solving tier {k}", workers=workers, poll=poll,
                           grace=grace, check_first=check_first)  # fmt: skip

    base = str(root)
    where = sorted(workers)
    run_id = uuid.uuid4().hex

    def home(j: int) -> dict[str, Any]:
        """Shard ``j``'s rounds run on one worker, which keeps its state (and its reverse
        edges: ``graph_tasks._reverse_edges``) between rounds; a round is one task per worker
        (``round_worker``) for the shards it holds."""
        return {"workers": [where[j % len(where)]], "allow_other_workers": False, "pure": False}

    _forget(client, None, base)  # states an earlier run on this dataset may have left
    try:
        results: list[Round] = run(
            [
                client.submit(start_rounds, base, run_id, k, s, bounds,
                              later if s.exits else None, **home(s.shard))
                for s in tier.shards
            ]
        )  # fmt: skip
        pending: Pending = {}
        _post(pending, results)
        rounds = 1
        say(f"tier {k}: round 0: {sum(r[0] for r in results):,} decided")
        # a round that decides nothing sends nothing: the run stops after it, unless moves into
        # a later tier still have messages for a later round
        while pending:
            rnd = min(pending)
            inbox = pending.pop(rnd)
            jobs: dict[str, list[tuple[ShardEntry, list[str]]]] = {}
            for j in sorted(inbox):
                jobs.setdefault(where[j % len(where)], []).append((tier.shards[j], inbox[j]))
            done = run(
                [
                    client.submit(round_worker, base, k, rnd, run_id, job, bounds,
                                  workers=[w], allow_other_workers=False, pure=False)
                    for w, job in jobs.items()
                ],
                check_first=False,  # a round: the workers asked for while it waits, once a poll
            )  # fmt: skip
            results = [r for rs in done for r in rs]
            rounds += 1
            if any(inbox.values()):
                shutil.rmtree(work / f"round={rnd - 1}", ignore_errors=True)
            _post(pending, results)
            say(f"tier {k}: round {rnd}: {sum(r[0] for r in results):,} decided")
        solved: list[SolvedShard] = run(
            [
                client.submit(finish_shard, base, k, s.shard, run_id, **home(s.shard))
                for s in tier.shards
            ]
        )
    finally:
        _forget(client, run_id, base)  # and the reverse edges the workers kept of this tier
    shutil.rmtree(work, ignore_errors=True)
    say(f"tier {k}: {rounds} retrograde rounds")
    return solved


def answer_of(root: Path, m: Manifest, code: int) -> tuple[int, int]:
    """The label and remoteness of node ``code`` of a solved graph's tier 0."""
    tier = m.tiers[0]
    bounds = range_bounds([s.positions for s in tier.shards])
    want = np.array([code], dtype=np.uint64)
    s = tier.shards[int(range_owner(want, bounds)[0])]
    codes = read_codes(root, 0, s.shard, s.sha256, s.positions)
    label, rem = read_answers(root, 0, s.shard, s.answers_sha256, s.positions)
    at = int(np.searchsorted(codes, want)[0])
    if at >= len(codes) or codes[at] != want[0]:
        raise DatasetError(f"{root}: tier 0 has no node {code}")
    return int(label[at]), int(rem[at])


def solve_rule_tier(
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
    """Solve tier ``k`` (the only one) of a stored graph of semantics reachability, minimax or
    impartial by the rounds of ``graph_rules``: one task per shard sets up its state, then
    phase by phase (minimax: one per non-zero leaf value; else one) a seed round on every
    shard and rounds on the shards sent messages until a round decides nothing; then one task
    per shard writes its answers. ``impartial``: nodes never decided (a cycle) fail the solve
    with one line."""
    sem = Semantics(m.semantics)
    rule = graph_rules.RULES[sem]
    tier = m.tiers[k]
    bounds = range_bounds([s.positions for s in tier.shards])
    work = solve_dir(root, k)
    shutil.rmtree(work, ignore_errors=True)  # an earlier run's rounds
    base = str(root)
    where = sorted(workers)

    def run(tasks: list[Any]) -> list[Any]:
        return gather_tier(
            client, tasks, what=f"solving tier {k}", workers=workers, poll=poll, grace=grace
        )

    def home(j: int) -> dict[str, Any]:
        return {"workers": [where[j % len(where)]], "allow_other_workers": True, "pure": False}

    values = run([client.submit(init_rule_shard, base, k, s, bounds, sem, **home(s.shard))
                  for s in tier.shards])  # fmt: skip
    state = {s.shard: state_path(root, k, s.shard, -1) for s in tier.shards}
    phases = graph_rules.phases(rule, np.array([v for vs in values for v in vs], dtype=np.float64))
    rnd = 0
    for i, phase in enumerate(phases):
        reset = phase is not None and i > 0 and phase[0] != phases[i - 1][0]  # type: ignore[index]
        results: list[Round] = run(
            [
                client.submit(
                    rule_round, base, k, s, rnd, str(state[s.shard]), [], bounds, sem, phase,
                    True, reset, **home(s.shard),
                )
                for s in tier.shards
            ]
        )  # fmt: skip
        for s in tier.shards:
            remove_rule_state(state[s.shard])
            state[s.shard] = state_path(root, k, s.shard, rnd)
        pending: Pending = {}
        _post(pending, results)
        say(f"tier {k}: round {rnd}: {sum(r[0] for r in results):,} decided"
            + (f" (leaves of value {phase[1]:g})" if phase is not None else ""))  # fmt: skip
        while pending:
            rnd = min(pending)
            inbox = pending.pop(rnd)
            now = sorted(inbox)
            results = run(
                [
                    client.submit(
                        rule_round, base, k, tier.shards[j], rnd, str(state[j]), inbox[j],
                        bounds, sem, phase, **home(j),
                    )
                    for j in now
                ]
            )  # fmt: skip
            for j in now:
                remove_rule_state(state[j])
                state[j] = state_path(root, k, j, rnd)
            shutil.rmtree(work / f"round={rnd - 1}", ignore_errors=True)
            _post(pending, results)
            say(f"tier {k}: round {rnd}: {sum(r[0] for r in results):,} decided")
        rnd += 1
    solved: list[SolvedShard] = run(
        [
            client.submit(finish_rule_shard, base, k, s.shard, str(state[s.shard]), sem,
                          pure=False)
            for s in tier.shards
        ]
    )  # fmt: skip
    shutil.rmtree(work, ignore_errors=True)
    say(f"tier {k}: {rnd} rounds")
    if rule.acyclic_only and any(r[2] for r in solved):
        stuck = sum(r[2] for r in solved)
        j = next(i for i, r in enumerate(solved) if r[2])
        s = tier.shards[j]
        cols = read_rule_answers(root, k, j, solved[j][4], s.positions, rule.answer_columns)
        value = np.asarray(cols[next(iter(rule.answer_columns))])  # -1: never decided
        x = int(bounds[j]) + int(np.flatnonzero(value < 0)[0])
        raise DatasetError(
            f"{root}: the graph has a cycle: {stuck:,} node(s) never finished (node {x} lies on "
            f"a cycle or leads to one); {sem.value} graphs are solved here when acyclic"
        )
    return solved


def rule_answer_of(root: Path, m: Manifest, code: int) -> dict[str, Any]:
    """The answers of node ``code`` of a solved graph's tier 0 (semantics other than normal:
    the columns of ``Rule.answer_columns``)."""
    sem = Semantics(m.semantics)
    tier = m.tiers[0]
    bounds = range_bounds([s.positions for s in tier.shards])
    if not 0 <= code < int(bounds[-1]):
        raise DatasetError(f"{root}: tier 0 has no node {code}")
    s = tier.shards[int(range_owner(np.array([code], dtype=np.uint64), bounds)[0])]
    cols = read_rule_answers(root, 0, s.shard, s.answers_sha256, s.positions,
                             graph_rules.RULES[sem].answer_columns)  # fmt: skip
    at = code - int(bounds[s.shard])
    return {key: v[at].item() for key, v in cols.items()}
