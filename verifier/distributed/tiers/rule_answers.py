"""The answer files of a stored graph of semantics reachability, minimax or impartial
(``answers`` for normal's): the columns the in-memory writers write for that semantics.

Written: the graph is read whole (one tier: its nodes' columns and its edges) and its stored
answers made the result an in-memory solver would publish (``SolverResult``, then
``Solution.from_results``, as the pipeline builds a case's answer): the **values** are the
dataset's (reachability: the region, written as the winner 0 / 1; minimax: the score;
impartial: the Grundy value), the other columns computed from them by the in-memory engine's
own functions: the reachability layer is the stored one, its moves the attractor's strategies
(``attractor_move_keys``); the minimax remoteness the length of optimal play keeping the score
(``engine.kars.kars_remoteness``: the stored ``rank`` is a round, not plies) and its moves
``kars_moves_numpy``; an impartial position's move its first P successor (``p_position_moves``).

Read: a file's values become the sharded route's table of a stranger (``code``, ``value`` in
the table's encoding, and reachability's layers as ``remoteness``), judged by
``graph_check``; where the file is silent, the dataset's own values (and layers). The columns
that table cannot carry (a minimax remoteness, any move) are judged here, by the in-memory
route's own checks (``checks.remoteness.kars_remoteness``, ``checks.moves.move_faults``) on the
whole graph, against the file's values filled with the dataset's own.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.dataset.catalog import Catalog
from verifier.dataset.graph_storage import read_node_columns
from verifier.dataset.storage import read_rule_answers, write_parquet
from verifier.distributed.tiers.graph_rules import RULES
from verifier.model.describe import PerSemantics, describe
from verifier.model.semantics import NOBODY, PLAYER0, Semantics

__all__ = [
    "extra_faults",
    "rule_graph",
    "rule_query",
    "rule_solution",
    "rule_table",
    "stored_answers",
    "stored_result",
]


def stored_answers(cat: Catalog) -> dict[str, NDArray[Any]]:
    """The stored answers (``Rule.answer_columns``) in id order."""
    sem = Semantics(cat.manifest.semantics)
    columns = RULES[sem].answer_columns
    cat.need_solved(0)
    parts = [
        read_rule_answers(cat.root, 0, s.shard, s.answers_sha256, s.positions, columns)
        for s in cat.manifest.tiers[0].shards
    ]
    return {k: np.concatenate([p[k] for p in parts]) for k in columns}


def rule_graph(cat: Catalog, names: Any) -> Any:
    """The whole stored graph in memory (its owners, targets and leaf values, its moves by
    id), named ``names``."""
    from verifier.model import GameGraph

    sem = Semantics(cat.manifest.semantics)
    want = {"code": "uint64", **RULES[sem].node_columns}
    parts = [
        read_node_columns(cat.root, 0, s.shard, s.sha256, s.positions, want)
        for s in cat.manifest.tiers[0].shards
    ]
    cols = {k: np.concatenate([p[k] for p in parts]) for k in want}
    n = cat.n
    src_l, dst_l = zip(*cat.edges(), strict=True) if n else ((), ())
    src = np.concatenate([*src_l, np.zeros(0, np.int64)])
    dst = np.concatenate([*dst_l, np.zeros(0, np.int64)])
    order = np.lexsort((dst, src))
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=ptr[1:])
    value = cols.get("value")
    return GameGraph(
        semantics=sem,
        succ_ptr=ptr,
        succ_idx=dst[order],
        owner=np.asarray(cols.get("player", np.full(n, NOBODY)), dtype=np.int8),
        value=np.zeros(n) if value is None else np.nan_to_num(value.astype(np.float64)),
        target=np.asarray(cols.get("target", np.zeros(n)), dtype=np.bool_),
        names=names,
    )


def stored_result(sem: Semantics, g: Any, own: dict[str, NDArray[Any]]) -> Any:
    """The stored answers as the result an in-memory solver publishes."""
    return _RESULTS[sem](g, own)


_RESULTS: PerSemantics[Callable[[Any, dict[str, NDArray[Any]]], Any]] = PerSemantics(
    "stored graph's answers as a solver's result"
)


@_RESULTS.register(Semantics.REACHABILITY)
def _region_result(g: Any, own: dict[str, NDArray[Any]]) -> Any:
    from verifier.engine.attractor import attractor_move_keys
    from verifier.engine.frontier import first_match_per_source, successor_csr
    from verifier.model import SolverResult
    from verifier.model.views import REGION

    layer = own["remoteness"].astype(np.int64)
    want = attractor_move_keys(layer, np.asarray(g.owner) == PLAYER0, np.asarray(g.target))
    move = first_match_per_source(successor_csr(g), want, layer)
    win = (own["label"] == 1).astype(np.int8)
    return SolverResult("dataset", REGION.view, win, remoteness=layer, move=move)


@_RESULTS.register(Semantics.MINIMAX)
def _score_result(g: Any, own: dict[str, NDArray[Any]]) -> Any:
    from verifier.engine.kars import kars_moves_numpy, kars_remoteness
    from verifier.model import SolverResult
    from verifier.model.views import SCORE

    score = own["score"].astype(np.float64)
    rem = kars_remoteness(g, score)
    return SolverResult("dataset", SCORE.view, score, remoteness=rem,
                        move=kars_moves_numpy(g, score, rem.copy()))  # fmt: skip


@_RESULTS.register(Semantics.IMPARTIAL)
def _grundy_result(g: Any, own: dict[str, NDArray[Any]]) -> Any:
    from verifier.model import SolverResult
    from verifier.model.views import GRUNDY
    from verifier.solvers.engine_solvers import p_position_moves

    grundy = own["grundy"].astype(np.int64)
    return SolverResult("dataset", GRUNDY.view, grundy, move=p_position_moves(g, grundy))


def rule_solution(cat: Catalog, case: Any) -> Any:
    """The dataset's answers as the ``Solution`` the in-memory route writes for ``case``."""
    from verifier.model.solution import Solution

    g = rule_graph(cat, case.graph.names)
    sol = Solution.from_results(
        case, {"dataset": stored_result(g.semantics, g, stored_answers(cat))}
    )
    assert sol is not None
    return sol


def rule_query(cat: Catalog, case: Any) -> Any:
    """``query DIR POSITION...`` on the graph: the ``CaseReport`` (verdict ``solved``: the
    stored answers, not judged here) of ``case`` (``answers.dataset_case``) with its moves, the
    whole graph read as ``rule_solution`` reads it, so each position's moves, best move and
    line are those ``query CASE --no-smt`` prints of the same graph in memory."""
    import dataclasses

    from verifier.model.report import CaseReport, CaseVerdict
    from verifier.model.solution import Solution

    g = rule_graph(cat, case.graph.names)
    whole = dataclasses.replace(case, graph=g)
    sol = Solution.from_results(
        whole, {"dataset": stored_result(g.semantics, g, stored_answers(cat))}
    )
    assert sol is not None
    return CaseReport(whole, (), (), CaseVerdict.SOLVED, 0.0, solution=sol)


def rule_table(cat: Catalog, claims: Any, into: Path) -> Path:
    """The file's claimed values (``claims``: ``io.answers.Answers``) as the sharded route's
    table of a stranger (``graph_check``), the dataset's own where the file is silent."""
    sem = Semantics(cat.manifest.semantics)
    own = stored_answers(cat)
    cols: dict[str, NDArray[Any]] = {"code": cat.codes}
    _TABLES[sem](cols, own, claims)
    path = into / "claims.parquet"
    write_parquet(path, cols)
    return path


Cols = dict[str, NDArray[Any]]

_TABLES: PerSemantics[Callable[[Cols, Cols, Any], None]] = PerSemantics(
    "stranger's table of a stored graph"
)


@_TABLES.register(Semantics.REACHABILITY)
def _region_table(cols: Cols, own: Cols, claims: Any) -> None:
    from verifier.model.columns import REMOTENESS

    given = claims.given
    mine = (own["label"] == 1).astype(np.int64)  # 1: in player 0's region
    win = np.where(given, claims.values.astype(np.int64), mine)
    cols["value"] = np.where(win == 1, 0, 1).astype(np.int64)  # the winner
    said = claims.get(REMOTENESS)
    if said is not None:  # the layers, a certificate: ours where the file is silent
        layer = np.where(win == mine, own["remoteness"], -1).astype(np.int64)
        layer[said.given] = said.data[said.given]
        cols["remoteness"] = layer


@_TABLES.register(Semantics.MINIMAX)
def _score_table(cols: Cols, own: Cols, claims: Any) -> None:
    cols["value"] = np.where(claims.given, claims.values.astype(np.float64), own["score"])


@_TABLES.register(Semantics.IMPARTIAL)
def _grundy_table(cols: Cols, own: Cols, claims: Any) -> None:
    cols["value"] = np.where(claims.given, claims.values.astype(np.int64), own["grundy"])


def extra_faults(cat: Catalog, case: Any, claims: Any) -> dict[str, tuple[int, int, str]]:
    """The claims the sharded table cannot carry (a minimax remoteness, every move), judged by
    the in-memory route's checks on the whole graph against the file's values filled with the
    dataset's own: per check (``remoteness``, ``moves``) the violations, the first position's
    id and why (``(0, -1, "")``: judged, none)."""
    from verifier.checks.moves import move_faults
    from verifier.checks.remoteness import kars_remoteness
    from verifier.model.columns import MOVE, REMOTENESS, VALUE, Column

    sem = Semantics(cat.manifest.semantics)
    minimax_rem = describe(sem).kars_score and claims.get(REMOTENESS) is not None
    if claims.get(MOVE) is None and not minimax_rem:
        return {}
    from verifier.model import SolverResult

    g = rule_graph(cat, case.graph.names)
    base = stored_result(sem, g, stored_answers(cat))
    values = np.where(claims.given, claims.values, base.values).astype(base.values.dtype)
    filled: dict[str, NDArray[np.int64] | None] = {}
    for name in (REMOTENESS, MOVE):
        mine, said = getattr(base, name), claims.get(name)
        if mine is None:
            filled[name] = None
            continue
        # where the file is silent: ours, if its value is ours; no claim otherwise
        got = np.where(values == base.values, mine, -1).astype(np.int64)
        if said is not None:
            got[said.given] = said.data[said.given]
        elif name == MOVE:
            got[:] = -1
        filled[name] = got
    r = SolverResult("answers", base.view, values, remoteness=filled[REMOTENESS],
                     move=filled[MOVE])  # fmt: skip
    out: dict[str, tuple[int, int, str]] = {}
    if minimax_rem:
        scores = values.astype(np.float64)
        want, known = kars_remoteness(g, scores, np.ones(len(scores), dtype=np.bool_))
        got = np.asarray(filled[REMOTENESS])
        bad = np.flatnonzero(known & (got != want))
        out["remoteness"] = (0, -1, "")
        if len(bad):
            x = int(bad[0])
            due = "none (a draw)" if want[x] < 0 else str(int(want[x]))
            said_rem = "none" if got[x] < 0 else str(int(got[x]))
            out["remoteness"] = (
                len(bad),
                x,
                f"claimed score {scores[x]:g} with remoteness {said_rem}, but the length of "
                f"optimal play keeping the score is {due}",
            )
    if claims.get(MOVE) is not None:
        ids, why = move_faults(g, r)
        out["moves"] = (0, -1, "")
        if len(ids):
            x = int(ids[0])
            shown = describe(sem).show_node({VALUE: Column.full(values)}, x)
            to = (
                "no move"
                if r.move is None or r.move[x] < 0
                else f"move to {g.name(int(r.move[x]))}"
            )
            out["moves"] = (len(ids), x, f"claimed value {shown} with {to}: {why[0]}")
    return out
