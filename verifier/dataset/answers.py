"""A tiered dataset's answers in the answer files of ``docs/answers.md``: ``solve DIR --engine
dask -o FILE`` writes them, ``verify DIR --engine dask --answers FILE`` reads them.

Both go through the in-memory route's own code (``verifier.io.answers``: ``save_answers`` and
``load_answers``; ``Solution`` for the rows) over a ``Case`` that *stands for* the dataset
(``Case.dataset``): its positions in the game's order, tier by tier and, inside a tier, codes
increasing (the order in which ``verifier generate`` numbers a case's positions, so a table
keyed by ids means the same positions on both routes), named by the game's codec exactly as
the in-memory route names them (Connect Four's boards; a stored graph's node ids ``0 .. n-1``,
the names of ``generate random``'s cases), and no moves. What differs with the semantics is
``stored_answers.STORED``'s, one entry each: the stored answers as an in-memory solver's result
(the columns computed from them as the in-memory solvers compute them: normal play's moves
from the codes for a game, from the stored edges for a graph), and a file's claims as a table.

A file read is turned into the dataset route's own table (``code``, ``value`` and what the
semantics' table carries: ``dataset.judge``'s or ``judge_graph``'s reading) in a
scratch folder and judged there; the columns it cannot carry are judged in memory
(``extra_faults``). Where the file is silent (a partial table, or a row without its remoteness
or move) the judge reads the dataset's own answers (``docs/answers.md``, the partial-table
rules): its value and remoteness, and no claim of a move (``tables.UNSTATED``); those answers
are judged in the same run, so ``verified`` means the claims and the answers around them keep
every rule.

Memory: the whole dataset's codes, answers and moves are held at once (about 30 bytes a
position), not one shard at a time; a ``.csv`` or ``.json`` is written ``ROWS`` positions at
a time (``pieces``: the names of a piece alone); a file keyed by names is read through a dict
of every name (``GameGraph.id_of``).
"""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from verifier.dataset import catalog as catalogs
from verifier.dataset.catalog import Catalog
from verifier.dataset.errors import DatasetError
from verifier.dataset.graphs import GraphTiers
from verifier.dataset.manifest import Manifest
from verifier.dataset.rules import TierGame
from verifier.dataset.storage import write_parquet
from verifier.dataset.stored_answers import (
    STORED,
    extra_faults,
    moves,
    rule_query,
    stored_result,
    stored_table,
)
from verifier.model.semantics import NOBODY, Semantics

if TYPE_CHECKING:
    from verifier.writers.base import Records

__all__ = [
    "Catalog",
    "answers_input",
    "catalog",
    "claims_table",
    "dataset_case",
    "dataset_records",
    "is_code_table",
    "judged_table",
    "not_verified_line",
    "pieces",
    "query_report",
    "readable",
    "solver_result",
    "write_answer_file",
]

LOST = -1.0


def readable(root: Path) -> tuple[Manifest, TierGame]:
    """The manifest and game of a dataset whose answers answer files and ``query`` read
    (``DatasetError`` for another, read from the manifest alone: before a cluster starts)."""
    return catalogs.readable(root)


def catalog(root: Path) -> Catalog:
    """Every position of the dataset in ``root``, in the in-memory route's order
    (``DatasetError`` for a dataset whose answers have no answer file yet: ``readable``)."""
    readable(root)
    return catalogs.catalog(root)


def _positions(semantics: Semantics, n: int, names: Any) -> Any:
    """A ``GameGraph`` of ``n`` named positions and no moves (what the answer files' writers
    and readers read of a graph: its names)."""
    from verifier.model import GameGraph

    return GameGraph(
        semantics=semantics,
        succ_ptr=np.zeros(n + 1, dtype=np.int64),
        succ_idx=np.zeros(0, dtype=np.int64),
        owner=np.full(n, NOBODY, dtype=np.int8),
        value=np.full(n, LOST),
        target=np.zeros(n, dtype=np.bool_),
        names=names,
    )


def dataset_case(cat: Catalog) -> Any:
    """The ``Case`` that stands for the dataset: its positions named as the in-memory route
    names them (``Catalog.names``), no moves (``Case.dataset``)."""
    from verifier.model import Case

    graph = _positions(Semantics(cat.manifest.semantics), cat.n, cat.names())
    root = cat.ids(0, np.array([cat.manifest.root_code], dtype=np.uint64))[0]
    return Case(
        graph=graph,
        id=cat.root.name,
        root=int(root) if root >= 0 else None,
        dataset=cat.root,
    )


def solver_result(cat: Catalog, graph: Any, solver: str) -> Any:
    """The dataset's answers as the ``SolverResult`` an in-memory solver named ``solver``
    publishes for ``graph``, the graph stored (``solve CASE --engine dask``: the same columns
    as ``dataset_solution``'s, moves included)."""
    from dataclasses import replace

    return replace(stored_result(cat, graph), solver=solver)


def dataset_solution(cat: Catalog, case: Any) -> Any:
    """The dataset's answers as a ``Solution`` of ``case`` (``dataset_case``): the columns the
    in-memory route writes for its semantics (``stored_answers``)."""
    from verifier.model.solution import Solution

    sol = Solution.from_results(case, {"dataset": stored_result(cat)})
    assert sol is not None  # the result is in the semantics' view
    return sol


ROWS = 1 << 18
"""Positions of a ``.csv`` or ``.json`` written at a time (their names and rows are the bulk of
its memory)."""


def write_answer_file(root: Path, out: Path, rows: int = ROWS) -> Path:
    """``solve DIR --engine dask -o FILE``: the solved dataset's answers as an answer file (by
    suffix, ``docs/answers.md``), written by the in-memory route's writer; a ``.csv`` or
    ``.json`` ``rows`` positions at a time (``pieces``), the same bytes as in one piece."""
    from verifier.errors import CaseError
    from verifier.io.answers import csv_text, save_answers, write_json_pieces
    from verifier.io.files import write_atomically

    cat = catalog(root)
    case = dataset_case(cat)
    sol = dataset_solution(cat, case)
    suffix = out.suffix.lower()
    try:
        if suffix not in (".csv", ".json"):
            return save_answers(sol, case, out)

        def write(f: Any) -> None:
            if suffix == ".json":
                write_json_pieces(f, case, ((s, c) for c, s in pieces(cat, sol, rows)))
                return
            for k, (c, s) in enumerate(pieces(cat, sol, rows)):
                f.write(csv_text(s, c, header=k == 0).encode())

        return write_atomically(out, write, None)
    except CaseError as e:
        raise DatasetError(str(e)) from None


def pieces(cat: Catalog, sol: Any, rows: int) -> Iterator[tuple[Any, Any]]:
    """``sol`` (``dataset_solution``) ``rows`` positions at a time, in id order: each piece a
    ``Case`` and ``Solution`` over those positions and their moves' targets alone (the
    targets not covered), so that a writer decodes the names of a piece only."""
    from verifier.model import Case
    from verifier.model.columns import MOVE, Column
    from verifier.model.solution import Solution

    move = sol.columns[MOVE]
    for lo in range(0, cat.n, max(rows, 1)):
        hi = min(lo + max(rows, 1), cat.n)
        ids = np.union1d(np.arange(lo, hi), move.data[lo:hi][move.given[lo:hi]])
        n = len(ids)
        names = cat.names(ids.astype(np.int64))
        graph = _positions(sol.graph.semantics, n, names)
        to = np.searchsorted(ids, np.where(move.given[ids], move.data[ids], 0))
        columns = {
            k: Column.where(to.astype(np.int64), c.given[ids])
            if k == MOVE
            else Column.where(c.data[ids], c.given[ids])
            for k, c in sol.columns.items()
        }
        piece = Case(graph=graph, id=cat.root.name, dataset=cat.root)
        yield (
            piece,
            Solution(
                graph=graph,
                root=None,
                description=sol.description,
                columns=columns,
                covered=(ids >= lo) & (ids < hi),
            ),
        )


# --- reading a stranger's file -------------------------------------------------------------


def is_code_table(answers: Path) -> bool:
    """Whether ``--answers`` is the dataset route's own table (Parquet with a ``code``
    column, or a folder of such files), read by ``check`` as it is."""
    if answers.is_dir():
        return True
    if answers.suffix.lower() != ".parquet" or not answers.is_file():
        return False
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        return "code" in pq.read_schema(answers).names
    except (pa.ArrowException, OSError):
        return True  # check's reader says what is wrong with it


def answers_input(root: Path, answers: Path) -> None:
    """``DatasetError`` unless ``--answers`` can be judged against the dataset in ``root``,
    told before a cluster starts: the dataset route's own table (``tables.table_files``), or
    an answer file of a dataset whose answers answer files read (``readable``)."""
    from verifier.dataset.tables import table_files

    if is_code_table(answers):
        table_files(answers)
        return
    readable(root)
    if not answers.is_file():
        raise DatasetError(f"{answers}: no such file")


Extra = dict[str, tuple[int, int, str, str]]
"""Claims judged in memory, not by the sharded checks (``stored_answers.extra_faults``): per
check, the violations, the first position's id, why, and its name."""


def claims_table(root: Path, file: Path, into: Path) -> tuple[Path, int, int, Extra]:
    """Read the answer file ``file`` (any encoding of ``docs/answers.md``, keyed by names or
    ids) against the dataset in ``root`` and write it as the dataset route's table
    (``into``/claims.parquet: every position, the file's claims and, where it is silent, the
    dataset's answers: ``stored_answers.stored_table``). Returns the table, the positions
    claimed, all positions and the faults of the claims judged in memory (the columns the table
    cannot carry: ``stored_answers.extra_faults``)."""
    from verifier.errors import CaseError
    from verifier.io.answers import load_answers
    from verifier.io.limits import Limits

    cat = catalog(root)
    case = dataset_case(cat)
    try:
        claims = load_answers(file, case, Limits())
    except CaseError as e:
        raise DatasetError(str(e)) from None
    path = into / "claims.parquet"
    write_parquet(path, stored_table(cat, claims))
    graph = isinstance(cat.game, GraphTiers) and not cat.tiered  # named by the game's words
    extra = {
        c: (n, x, why, "" if x < 0 else cat.game.position_name(x) if graph else case.graph.name(x))
        for c, (n, x, why) in extra_faults(cat, case, claims).items()
    }
    return path, int(claims.given.sum()), cat.n, extra


@contextmanager
def judged_table(root: Path, file: Path) -> Iterator[tuple[Path, int, int, Extra]]:
    """``claims_table`` in a scratch folder of ``root`` (removed on leaving)."""
    into = root / "tmp" / f"answers-{uuid.uuid4().hex[:12]}"
    try:
        yield claims_table(root, file, into)
    finally:
        shutil.rmtree(into, ignore_errors=True)


# --- reports: verify --format csv, query -------------------------------------------------


def dataset_records(root: Path) -> Records:
    """The rows ``verify DIR --engine dask --format csv`` prints: the dataset's answers as
    ``verify CASE --format csv`` prints a case's (``writers.csv.solution_records``:
    position, value, outcome, remoteness, move)."""
    from verifier.writers.csv import solution_records

    cat = catalog(root)
    return solution_records(dataset_solution(cat, dataset_case(cat)))


def not_verified_line(root: Path, res: Any) -> str | None:
    """What the CSV writer says on standard error of a case not verified, for a dataset's
    check ``res`` (``check.TierCheck``): ``DIR: REFUTED: CHECK: the first violation``."""
    if res.verdict == "verified":
        return None
    failed = [c for c in res.checks if res.counts.get(c)]
    if not failed:
        return f"{root}: {res.verdict.upper()}: {res.inconclusive or ''}".rstrip(": ")
    check = failed[0]
    witness = res.witnesses.get(check)
    why = "" if witness is None else f"at {res.names.get(check) or witness[1]}: {witness[2]}"
    return f"{root}: {res.verdict.upper()}: {check}: {why}".rstrip(": ")


def query_report(root: Path, names: Sequence[str]) -> tuple[Any, list[int]]:
    """``query DIR [POSITION...]``: a ``CaseReport`` (verdict ``solved``: the dataset's
    answers, not judged here: ``verify`` judges them) over the positions asked about, their
    moves and their lines of play, for ``writers.query.query_document``; and the ids of the
    positions asked about in it (the start when none is named)."""
    from verifier.model import Case, GameGraph
    from verifier.model.columns import MOVE, REMOTENESS, VALUE, Column
    from verifier.model.describe import describe
    from verifier.model.report import CaseReport, CaseVerdict
    from verifier.model.solution import Solution

    m, _ = readable(root)
    cat = catalog(root)
    case = dataset_case(cat)
    g = case.graph
    asked: list[int] = []
    if not names:
        if case.root is None:
            raise DatasetError(f"{root}: $.root: the dataset names no start position")
        asked.append(case.root)
    for name in names:
        if not g.has_node(name):
            raise DatasetError(f"{root}: $.nodes: no position named {name!r}")
        asked.append(g.id_of(name))
    if STORED[Semantics(m.semantics)].whole:  # the moves need the whole graph: read it
        cat.need_solved(0)
        return rule_query(cat, case), asked
    label, rem = cat.answers()
    move = moves(cat, label, rem)
    want = np.array(asked, dtype=np.int64)
    succ: dict[int, list[int]] = {x: [] for x in asked}
    for src, dst in cat.edges():
        hit = np.isin(src, want)
        for s, d in zip(src[hit].tolist(), dst[hit].tolist(), strict=True):
            succ[s].append(d)
    keep = set(asked) | {y for ys in succ.values() for y in ys}
    for x in asked:  # each line of play, one more than shown (whether it goes on)
        seen = {x}
        for _ in range(QUERY_PLIES_MAX):
            x = int(move[x])
            if x < 0 or x in seen:
                break
            seen.add(x)
        keep |= seen
    ids = np.array(sorted(keep), dtype=np.int64)  # in the game's order, as the case's
    local = {int(x): i for i, x in enumerate(ids.tolist())}
    src_l: list[int] = []
    dst_l: list[int] = []
    for x in ids.tolist():
        ys = sorted(set(succ[x])) if x in succ else ([int(move[x])] if move[x] in local else [])
        src_l += [local[x]] * len(ys)
        dst_l += [local[y] for y in ys]
    sub = GameGraph.from_edges(
        [g.name(x) for x in ids.tolist()], src_l, dst_l, semantics=case.semantics
    )
    lab, r, mv = label[ids], rem[ids].astype(np.int64), move[ids]
    mv_local = np.array([local.get(int(y), -1) for y in mv.tolist()], dtype=np.int64)
    sol = Solution(
        graph=sub,
        root=local.get(case.root) if case.root is not None else None,
        description=describe(case.semantics),
        columns={
            VALUE: Column.full(lab),
            REMOTENESS: Column.where(r, lab != 0),
            MOVE: Column.where(mv_local, mv_local >= 0),
        },
        covered=np.ones(len(ids), dtype=np.bool_),
    )
    near = Case(graph=sub, id=case.id, root=sol.root, dataset=root)
    rep = CaseReport(near, (), (), CaseVerdict.SOLVED, 0.0, solution=sol)
    return rep, [local[x] for x in asked]


QUERY_PLIES_MAX = 1000
"""The longest line of play a dataset's query follows (``query --plies`` shows at most its
own number of moves of it)."""
