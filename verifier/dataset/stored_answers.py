"""A dataset's stored answers as the in-memory route's answers, one entry per semantics
(``STORED``): ``answers`` writes and reads the answer files through them, whatever the
semantics, with no branch of its own.

Written (``stored_result``): the stored answers made the result an in-memory solver would
publish (``SolverResult``, then ``Solution.from_results``, as the pipeline builds a case's
answer). The **values** are the dataset's (normal play: won / lost / drawn; reachability: the
region, written as the winner 0 / 1; minimax: the score; impartial: the Grundy value), the
other columns computed from them by the in-memory engine's own functions: normal play's
remoteness is the stored one and its move the first successor by id that keeps the value
with one ply less (``moves``: over every batch of the dataset's moves, computed from the codes
for a game, stored for a graph; the positions of every tier); the reachability layer is the
stored one, its moves the attractor's strategies (``attractor_move_keys``); the minimax
remoteness the length of optimal play keeping the score (``engine.kars.kars_remoteness``: the
stored ``rank`` is a round, not plies) and its moves ``kars_moves_numpy``; an impartial
position's move its first P successor (``p_position_moves``). The last three read the stored
graph whole (one tier: its nodes' columns and its edges).

Read (``stored_table``): a file's claims become the sharded route's table of a stranger
(``code``, ``value`` in the table's encoding; normal play's remoteness, move and tier, judged by
``dataset.judge``; reachability's layers as ``remoteness``, judged by
``judge_graph``), the dataset's own answers where the file is silent. The columns that table
cannot carry (``in_memory``: a minimax remoteness, a move of the three stored-graph semantics)
are judged here (``extra_faults``), by the in-memory route's own checks
(``checks.remoteness.kars_remoteness``, ``checks.moves.move_faults``) on the whole graph,
against the file's values filled with the dataset's own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from verifier.dataset.catalog import Catalog
from verifier.dataset.graph_storage import read_node_columns
from verifier.dataset.storage import read_rule_answers
from verifier.dataset.stored_columns import COLUMNS
from verifier.dataset.tables import UNSTATED, packed_moves
from verifier.model.columns import MOVE, REMOTENESS
from verifier.model.describe import PerSemantics, describe
from verifier.model.semantics import NOBODY, PLAYER0, Semantics

__all__ = [
    "STORED",
    "Stored",
    "extra_faults",
    "moves",
    "rule_graph",
    "rule_query",
    "stored_answers",
    "stored_result",
    "stored_table",
]

Cols = dict[str, NDArray[Any]]


@dataclass(frozen=True)
class Stored:
    """What a semantics' stored answers are to the answer files."""

    result: Callable[[Catalog, Any], Any]
    """``(catalog, graph)``: the answers as a ``SolverResult`` (``graph``: the stored graph in
    memory when the caller has it, else ``None``: read when needed)."""
    table: Callable[[Catalog, Any], Cols]
    """``(catalog, claims)``: the columns of the stranger's table but ``code`` (``claims``:
    ``io.answers.Answers``; the dataset's own answers where it is silent)."""
    in_memory: frozenset[str] = frozenset()
    """The columns of a file the table cannot carry (judged by ``extra_faults``)."""
    whole: bool = False
    """Whether its moves need the whole stored graph in memory (``query`` reads it whole);
    normal play's are computed a batch of moves at a time."""


STORED: PerSemantics[Stored] = PerSemantics("dataset's stored answers")


def stored_result(cat: Catalog, graph: Any = None) -> Any:
    """The stored answers as the result an in-memory solver publishes (solver ``dataset``)."""
    return STORED[Semantics(cat.manifest.semantics)].result(cat, graph)


def stored_table(cat: Catalog, claims: Any) -> Cols:
    """An answer file's claims as the sharded route's table of a stranger: every position's
    ``code`` and what the file claims of it, the dataset's own answers where it is silent."""
    return {"code": cat.codes} | STORED[Semantics(cat.manifest.semantics)].table(cat, claims)


def stored_answers(cat: Catalog) -> dict[str, NDArray[Any]]:
    """A stored graph's answers (``StoredColumns.answer_columns``) in id order."""
    sem = Semantics(cat.manifest.semantics)
    columns = COLUMNS[sem].answer_columns
    cat.need_solved(0)
    parts = [
        read_rule_answers(cat.root, 0, s.shard, s.answers_sha256, s.positions, columns)
        for s in cat.manifest.tiers[0].shards
    ]
    return {k: np.concatenate([p[k] for p in parts]) for k in columns}


def _whole(cat: Catalog, graph: Any) -> Any:
    return rule_graph(cat, ()) if graph is None else graph


# --- normal play: every tier, moves streamed (a game's computed from its codes) -----------


def moves(cat: Catalog, label: NDArray[np.int8], rem: NDArray[np.int32]) -> NDArray[np.int64]:
    """Each position's move as the in-memory solvers choose it (-1: none): its first successor
    by id (``engine.retrograde.move_keys``) that is lost with remoteness one less from a won
    position, won with one less from a lost one, drawn from a drawn one (the least over every
    batch of moves: a stored graph's moves inside a tier and into later ones come apart)."""
    none = np.iinfo(np.int64).max
    move = np.full(cat.n, none, dtype=np.int64)
    for src, dst in cat.edges():
        a, b = label[src], label[dst]
        one_less = rem[dst] == rem[src] - 1
        ok = ((a == 1) & (b == -1) & one_less) | ((a == -1) & (b == 1) & one_less)
        ok |= (a == 0) & (b == 0)
        s, d = src[ok], dst[ok]
        if not bool(np.all(s[1:] >= s[:-1])):  # a stored graph's are by source already
            order = np.argsort(s, kind="stable")
            s, d = s[order], d[order]
        starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]]) if len(s) else s[:0]
        least = np.minimum.reduceat(d, starts) if len(s) else d[:0]
        move[s[starts]] = np.minimum(move[s[starts]], least)
    move[move == none] = -1
    return move


def _label_result(cat: Catalog, graph: Any) -> Any:
    from verifier.model import SolverResult
    from verifier.model.views import LABEL

    label, rem = cat.answers()
    remoteness = np.where(label != 0, rem, -1).astype(np.int64)
    return SolverResult("dataset", LABEL.view, label, remoteness=remoteness,
                        move=moves(cat, label, rem))  # fmt: skip


def _label_table(cat: Catalog, claims: Any) -> Cols:
    label, rem = cat.answers()
    given = claims.given
    value = np.where(given, claims.values.astype(np.int8), label).astype(np.int8)
    # where the file is silent: our remoteness (none at a draw), also on a claimed row that
    # gives none when its value is ours; a row claiming another value gets none
    remoteness = np.where(label == 0, -1, rem).astype(np.int64)
    remoteness[given & (value != label)] = -1
    said = claims.get(REMOTENESS)
    if said is not None:
        remoteness[said.given] = said.data[said.given]
    cols: Cols = {"value": value, "remoteness": remoteness}
    tiers = cat.tiers() if cat.tiered else None
    if tiers is not None:  # a code names a position with its tier
        cols["tier"] = tiers
    chosen = claims.get(MOVE)
    if chosen is not None:
        move = np.full(cat.n, UNSTATED, dtype=np.uint64)
        at = chosen.given
        to = chosen.data[at].astype(np.int64)
        move[at] = cat.codes[to] if tiers is None else packed_moves(tiers[to], cat.codes[to])
        cols["move"] = move
    return cols


STORED.register(Semantics.NORMAL)(Stored(_label_result, _label_table))


# --- a stored graph of another semantics: read whole ---------------------------------------


def rule_graph(cat: Catalog, names: Any) -> Any:
    """The whole stored graph in memory (its owners, targets and leaf values, its moves by
    id), named ``names`` (empty: its node ids)."""
    from verifier.model import GameGraph

    sem = Semantics(cat.manifest.semantics)
    want = {"code": "uint64", **COLUMNS[sem].node_columns}
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


def _region_result(cat: Catalog, graph: Any) -> Any:
    from verifier.engine.attractor import attractor_move_keys
    from verifier.engine.frontier import first_match_per_source, successor_csr
    from verifier.model import SolverResult
    from verifier.model.views import REGION

    g, own = _whole(cat, graph), stored_answers(cat)
    layer = own["remoteness"].astype(np.int64)
    want = attractor_move_keys(layer, np.asarray(g.owner) == PLAYER0, np.asarray(g.target))
    move = first_match_per_source(successor_csr(g), want, layer)
    win = (own["label"] == 1).astype(np.int8)
    return SolverResult("dataset", REGION.view, win, remoteness=layer, move=move)


def _region_table(cat: Catalog, claims: Any) -> Cols:
    own = stored_answers(cat)
    given = claims.given
    mine = (own["label"] == 1).astype(np.int64)  # 1: in player 0's region
    win = np.where(given, claims.values.astype(np.int64), mine)
    cols: Cols = {"value": np.where(win == 1, 0, 1).astype(np.int64)}  # the winner
    said = claims.get(REMOTENESS)
    if said is not None:  # the layers, a certificate: ours where the file is silent
        layer = np.where(win == mine, own["remoteness"], -1).astype(np.int64)
        layer[said.given] = said.data[said.given]
        cols["remoteness"] = layer
    return cols


def _score_result(cat: Catalog, graph: Any) -> Any:
    from verifier.engine.kars import kars_moves_numpy, kars_remoteness
    from verifier.model import SolverResult
    from verifier.model.views import SCORE

    g = _whole(cat, graph)
    score = stored_answers(cat)["score"].astype(np.float64)
    rem = kars_remoteness(g, score)
    return SolverResult("dataset", SCORE.view, score, remoteness=rem,
                        move=kars_moves_numpy(g, score, rem.copy()))  # fmt: skip


def _score_table(cat: Catalog, claims: Any) -> Cols:
    own = stored_answers(cat)["score"]
    return {"value": np.where(claims.given, claims.values.astype(np.float64), own)}


def _grundy_result(cat: Catalog, graph: Any) -> Any:
    from verifier.model import SolverResult
    from verifier.model.views import GRUNDY
    from verifier.solvers.engine_solvers import p_position_moves

    g = _whole(cat, graph)
    grundy = stored_answers(cat)["grundy"].astype(np.int64)
    return SolverResult("dataset", GRUNDY.view, grundy, move=p_position_moves(g, grundy))


def _grundy_table(cat: Catalog, claims: Any) -> Cols:
    own = stored_answers(cat)["grundy"]
    return {"value": np.where(claims.given, claims.values.astype(np.int64), own)}


_MOVE, _BOTH = frozenset({MOVE}), frozenset({MOVE, REMOTENESS})
STORED.register(Semantics.REACHABILITY)(Stored(_region_result, _region_table, _MOVE, True))
STORED.register(Semantics.MINIMAX)(Stored(_score_result, _score_table, _BOTH, True))
STORED.register(Semantics.IMPARTIAL)(Stored(_grundy_result, _grundy_table, _MOVE, True))


def rule_query(cat: Catalog, case: Any) -> Any:
    """``query DIR POSITION...`` on the graph: the ``CaseReport`` (verdict ``solved``: the
    stored answers, not judged here) of ``case`` (``answers.dataset_case``) with its moves, the
    whole graph read, so each position's moves, best move and line are those
    ``query CASE --no-smt`` prints of the same graph in memory."""
    import dataclasses

    from verifier.model.report import CaseReport, CaseVerdict
    from verifier.model.solution import Solution

    g = rule_graph(cat, case.graph.names)
    whole = dataclasses.replace(case, graph=g)
    sol = Solution.from_results(whole, {"dataset": stored_result(cat, g)})
    assert sol is not None
    return CaseReport(whole, (), (), CaseVerdict.SOLVED, 0.0, solution=sol)


def extra_faults(cat: Catalog, case: Any, claims: Any) -> dict[str, tuple[int, int, str]]:
    """The claims the sharded table cannot carry (``Stored.in_memory``), judged by
    the in-memory route's checks on the whole graph against the file's values filled with the
    dataset's own: per check (``remoteness``, ``moves``) the violations, the first position's
    id and why (``(0, -1, "")``: judged, none)."""
    from verifier.checks.moves import move_faults
    from verifier.checks.remoteness import kars_remoteness
    from verifier.model.columns import VALUE, Column

    sem = Semantics(cat.manifest.semantics)
    todo = {c for c in STORED[sem].in_memory if claims.get(c) is not None}
    if not todo:
        return {}
    from verifier.model import SolverResult

    g = rule_graph(cat, case.graph.names)
    base = stored_result(cat, g)
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
    if REMOTENESS in todo:  # a minimax remoteness: plies of optimal play keeping the score
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
    if MOVE in todo:
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
