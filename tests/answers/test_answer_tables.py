"""The columnar answer encodings (``.npz`` and Parquet, ``verifier.io.answer_columns``): every
value form round-trips, and every malformed table is the one-line ``FILE: PATH: problem``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from verifier.errors import CaseError
from verifier.games.random_graphs import random_case
from verifier.io import load_any
from verifier.io.answer_columns import PARQUET_META_KEY
from verifier.io.answers import graph_digest, load_answers, save_answers
from verifier.io.fingerprint import moves_digest
from verifier.io.limits import Limits
from verifier.model import Case, GameGraph, Semantics
from verifier.pipeline import run_case
from verifier.registry import Options

pa = pytest.importorskip("pyarrow")  # the parquet extra (CI installs it with dask)
pq = pytest.importorskip("pyarrow.parquet")

CASES = Path(__file__).resolve().parents[2] / "cases"


def _normal() -> Case:
    return load_any(CASES / "knuth-won-lost-unknown.json")


def _npz(path: Path, **arrays: Any) -> Path:
    header = arrays.pop("header", None)
    if header is not None:
        arrays["header"] = np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)
    with path.open("wb") as f:
        np.savez(f, **arrays)
    return path


def _parquet(path: Path, header: dict[str, Any] | None = None, **cols: Any) -> Path:
    t = pa.table(cols)
    if header is not None:
        t = t.replace_schema_metadata({PARQUET_META_KEY: json.dumps(header)})
    pq.write_table(t, path)
    return path


@pytest.mark.parametrize("suffix", [".npz", ".parquet"])
@pytest.mark.parametrize("sem", list(Semantics))
def test_columnar_round_trip_keeps_every_column(
    sem: Semantics, suffix: str, tmp_path: Path
) -> None:
    for seed in (1, 2, 3):
        values = (-2.5, 0, 1, 3) if sem is Semantics.MINIMAX else (-1, 0, 1)
        case = random_case(sem, nodes=30, degree=1.6, seed=seed, values=values)
        sol = run_case(case, Options(), smt=False).solution
        assert sol is not None
        back = load_answers(save_answers(sol, case, tmp_path / f"a{suffix}"), case)
        ref = load_answers(save_answers(sol, case, tmp_path / "a.json"), case)
        assert back.given.tolist() == ref.given.tolist()
        assert back.values.tolist() == ref.values.tolist()
        assert dict(back.loopy) == dict(ref.loopy)
        assert set(back) == set(ref)  # the same answer columns, each the same
        for col in ref:
            a, b = back.array(col), ref.array(col)
            if b is not None:
                assert a is not None and a.tolist() == b.tolist(), col


def test_parquet_nulls_are_none_and_values_as_stored(tmp_path: Path) -> None:
    case = _normal()
    g = case.graph
    ids = [g.id_of(x) for x in ("a", "d")]
    p = _parquet(
        tmp_path / "t.parquet",
        id=pa.array(ids, pa.int64()),
        value=pa.array([-1, 1], pa.int8()),
        remoteness=pa.array([None, 3], pa.int64()),
    )
    a = load_answers(p, case)
    assert a.given.sum() == 2 and a.array("remoteness") is not None
    assert a.array("remoteness")[ids].tolist() == [-1, 3] and a.values[ids].tolist() == [-1, 1]


def _grundy_case() -> Case:
    g = GameGraph.from_successors(
        {"a": ["b"], "b": ["a", "c"], "c": []}, semantics=Semantics.IMPARTIAL
    )
    return Case(g, "loop")


def test_infinite_grundy_values_in_both_encodings(tmp_path: Path) -> None:
    case = _grundy_case()
    for p in (
        _npz(
            tmp_path / "g.npz",
            ids=np.array([0, 1, 2]),
            value=np.array([-1, -1, 0]),
            header={"loopy": {"0": [1], "1": []}},
        ),
        _parquet(
            tmp_path / "g.parquet",
            id=pa.array([0, 1, 2], pa.int64()),
            value=pa.array([-1, -1, 0], pa.int64()),
            loopy=pa.array([[1], [], None], pa.list_(pa.int64())),
        ),
    ):
        a = load_answers(p, case)
        assert dict(a.loopy) == {0: (1,), 1: ()} and a.values.tolist() == [-1, -1, 0]


NPZ_BAD: list[tuple[str, dict[str, Any], str]] = [
    ("noid", {"value": np.array([1])}, "ids: required column is missing"),
    ("novalue", {"ids": np.array([0])}, "value: required column is missing"),
    ("floatid", {"ids": np.array([0.5]), "value": np.array([1])}, "ids: must be a 1-d integer"),
    (
        "range",
        {"ids": np.array([0, 99]), "value": np.array([1, 1])},
        "ids[1]: a table for another graph",
    ),
    ("dup", {"ids": np.array([3, 0, 3]), "value": np.array([1, 1, 1])}, "ids[2]: duplicate entry"),
    ("label", {"ids": np.array([0, 1]), "value": np.array([1, 2])}, "value[1]: not"),
    ("shape", {"ids": np.array([0, 1]), "value": np.array([1])}, "value: must be a number per id"),
    (
        "rem",
        {"ids": np.array([0]), "value": np.array([1]), "remoteness": np.array([-3])},
        "remoteness[0]: not a remoteness",
    ),
    (
        "remf",
        {"ids": np.array([0]), "value": np.array([1]), "remoteness": np.array([1.5])},
        "remoteness[0]: not a remoteness",
    ),
    (
        "move",
        {"ids": np.array([0]), "value": np.array([1]), "move": np.array([77])},
        "move[0]: a table for another graph",
    ),
    (
        "sem",
        {"ids": np.array([0]), "value": np.array([1]), "header": {"semantics": "minimax"}},
        'header.semantics: answers for "minimax"',
    ),
    (
        "graph",
        {"ids": np.array([0]), "value": np.array([1]), "header": {"graph": {"moves": 1}}},
        "header.graph.moves: a table for another graph",
    ),
    (
        "loopy",
        {"ids": np.array([0]), "value": np.array([1]), "header": {"loopy": []}},
        "header.loopy: must be an object",
    ),
    ("empty", {"ids": np.zeros(0, dtype=np.int64), "value": np.zeros(0)}, "claims no position"),
]


@pytest.mark.parametrize(("name", "arrays", "problem"), NPZ_BAD, ids=[b[0] for b in NPZ_BAD])
def test_bad_npz_tables(name: str, arrays: dict[str, Any], problem: str, tmp_path: Path) -> None:
    p = _npz(tmp_path / f"{name}.npz", **dict(arrays))
    with pytest.raises(CaseError) as e:
        load_answers(p, _normal())
    msg = str(e.value)
    assert msg.startswith(f"{p}: ") and problem in msg and "\n" not in msg


def test_bad_grundy_tables(tmp_path: Path) -> None:
    case = _grundy_case()
    bad = [
        ({"ids": np.array([0]), "value": np.array([-1])}, "value[0]: -1 (infinite) needs its K"),
        ({"ids": np.array([0]), "value": np.array([-2])}, "value[0]: not"),
        (
            {"ids": np.array([0]), "value": np.array([-1]), "header": {"loopy": {"1": [0]}}},
            "which has no row",
        ),
        (
            {"ids": np.array([0]), "value": np.array([-1]), "header": {"loopy": {"0": [-1]}}},
            "K must be a list",
        ),
    ]
    for i, (arrays, problem) in enumerate(bad):
        p = _npz(tmp_path / f"g{i}.npz", **arrays)
        with pytest.raises(CaseError, match=r".*") as e:
            load_answers(p, case)
        assert problem in str(e.value), (problem, str(e.value))


def test_bad_parquet_tables(tmp_path: Path) -> None:
    case = _normal()
    i64 = pa.int64()
    bad: list[tuple[dict[str, Any], dict[str, Any] | None, str]] = [
        ({"value": pa.array([1], i64)}, None, "id: required column is missing"),
        (
            {"id": pa.array([0], i64), "value": pa.array(["won"])},
            None,
            "value: must be a column of numbers",
        ),
        (
            {"id": pa.array([0], i64), "value": pa.array([1], i64), "colour": pa.array([1], i64)},
            None,
            'unknown column "colour"',
        ),
        (
            {"id": pa.array([0, 0], i64), "value": pa.array([1, 1], i64)},
            None,
            "id[1]: duplicate entry",
        ),
        (
            {"id": pa.array([0, None], i64), "value": pa.array([1, 1], i64)},
            None,
            "id[1]: the entry is missing",
        ),
        (
            {
                "id": pa.array([0], i64),
                "value": pa.array([1.0], pa.float64()),
                "move": pa.array([5.0]),
            },
            None,
            "move: must be a column of integers",
        ),
        (
            {"id": pa.array([0], i64), "value": pa.array([1], i64)},
            {"graph": {"digest": "sha256:0"}},
            "graph.digest: a table for another graph",
        ),
    ]
    for k, (cols, header, problem) in enumerate(bad):
        p = _parquet(tmp_path / f"b{k}.parquet", header, **cols)
        with pytest.raises(CaseError) as e:
            load_answers(p, case)
        msg = str(e.value)
        assert msg.startswith(f"{p}: ") and problem in msg and "\n" not in msg, (problem, msg)
    junk = tmp_path / "junk.parquet"
    junk.write_bytes(b"PAR1 this is not parquet PAR1")
    with pytest.raises(CaseError, match="not a Parquet answer table"):
        load_answers(junk, case)


def test_parquet_is_refused_from_its_declared_rows(tmp_path: Path) -> None:
    case = _normal()
    n = 5000
    p = _parquet(tmp_path / "big.parquet", id=pa.array(np.arange(n)), value=pa.array(np.ones(n)))
    with pytest.raises(CaseError, match="5,000 rows: too big to process"):
        load_answers(p, case, Limits(max_positions=100))


def test_moves_digest_is_unchanged_by_the_copy_free_hash() -> None:
    g = GameGraph.from_successors({"a": ["b"]}, semantics=Semantics.NORMAL)
    assert moves_digest(g) == "sha256:6119bc8f78ea22296ceee6537767f802"  # files written before
    assert graph_digest(g).startswith("names-sha256:")


def test_moves_digest_hashed_a_block_at_a_time_is_the_whole_arrays_hash(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import hashlib

    import verifier.io.fingerprint as fingerprint_mod

    g = GameGraph.from_successors(
        {"a": ["b", "c"], "b": ["c", "a"], "c": ["d"], "d": []}, semantics=Semantics.NORMAL
    )
    assert g.succ_idx.dtype == np.int32  # widened to int64 when hashed
    whole = hashlib.sha256()
    for a in ([g.n, g.m], g.succ_ptr, g.succ_idx):
        whole.update(np.asarray(a, dtype=np.int64).tobytes())
    want = "sha256:" + whole.hexdigest()[:32]
    assert moves_digest(g) == want
    for block in (1, 2, 3):  # blocks that split every array, also unevenly
        monkeypatch.setattr(fingerprint_mod, "_LEGACY_BLOCK", block)
        assert moves_digest(g) == want


def test_cli_solve_writes_parquet_and_verify_reads_it(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from verifier.cli import app, verify_app

    case = str(CASES / "knuth-won-lost-unknown.json")
    out = tmp_path / "ours.parquet"
    r = CliRunner().invoke(app, ["solve", case, "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert pq.read_table(out).column_names == ["id", "value", "remoteness", "move"]
    r = CliRunner().invoke(verify_app, [case, "--answers", str(out)])
    assert r.exit_code == 0 and "right" in r.output, r.output
    t = pq.read_table(out)
    flipped = t.set_column(
        1, "value", pa.array([-v for v in t.column("value").to_pylist()], pa.int8())
    )
    pq.write_table(flipped.replace_schema_metadata(t.schema.metadata), out)
    r = CliRunner().invoke(verify_app, [case, "--answers", str(out)])
    assert r.exit_code == 1 and "wrong at" in r.output, r.output


def test_parquet_without_pyarrow_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    p = _parquet(
        tmp_path / "t.parquet", id=pa.array([0], pa.int64()), value=pa.array([1], pa.int64())
    )
    for mod in ("pyarrow", "pyarrow.parquet", "pyarrow.compute"):
        monkeypatch.setitem(sys.modules, mod, None)
    with pytest.raises(CaseError, match=r"Parquet needs pyarrow: pip install"):
        load_answers(p, _normal())


@pytest.mark.dask
@pytest.mark.parametrize(
    "suffix", [pytest.param(".npz", marks=pytest.mark.slow), ".parquet"]
)  # .npz in the slow run: the default run's time goes to the tiered route's tests
def test_dask_engine_answers_round_trip(suffix: str, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from verifier.cli import app, verify_app

    pytest.importorskip("distributed")
    for sem in (Semantics.MINIMAX, Semantics.NORMAL, Semantics.REACHABILITY):
        case = random_case(sem, nodes=60, degree=2.0, seed=5)
        case_file = save_any_case(case, tmp_path / f"{sem.value}.npz")
        out = tmp_path / f"{sem.value}.answers{suffix}"
        r = CliRunner().invoke(app, ["solve", str(case_file), "--engine", "dask", "-o", str(out)])
        assert r.exit_code == 0, r.output
        for linear in ([], ["--linear"]):
            r = CliRunner().invoke(verify_app, [str(case_file), "--answers", str(out), *linear])
            assert r.exit_code == 0, (sem, linear, r.output)


def save_any_case(case: Case, path: Path) -> Path:
    from verifier.io import save_any

    return save_any(case, path)


def test_arrow_columns_read_from_their_buffers() -> None:
    """Nulls, chunk offsets (sliced arrays) and several chunks: the values where given."""
    from verifier.io.answer_columns import _arrow_numbers

    pc = pytest.importorskip("pyarrow.compute")
    col = pa.chunked_array(
        [pa.array([5, None, 7, 8], pa.int32())[1:], pa.array([None, 2], pa.int32())]
    )
    values, given = _arrow_numbers(pa, pc, col, True, "t.parquet", "move")
    assert given.tolist() == [False, True, True, False, True]
    assert values[given].tolist() == [7, 8, 2] and values.dtype == np.int64
    floats = pa.chunked_array([pa.array([0.5, None, -2.0])[1:]])
    values, given = _arrow_numbers(pa, pc, floats, False, "t.parquet", "value")
    assert given.tolist() == [False, True] and values[1] == -2.0
    huge = pa.chunked_array([pa.array([2**64 - 1], pa.uint64())])
    with pytest.raises(CaseError, match=r"t.parquet: \$\.id: a number out of range"):
        _arrow_numbers(pa, pc, huge, True, "t.parquet", "id")


def test_reading_a_parquet_table_does_not_import_pandas(tmp_path: Path) -> None:
    """pyarrow imports pandas for ``to_numpy``, ``fill_null`` and ``pa.array`` when it is
    installed: a memory-limited reader died of a MemoryError there (fuzz test, CI)."""
    case = _normal()
    g = case.graph
    p = _parquet(
        tmp_path / "t.parquet",
        id=pa.array([g.id_of("a"), g.id_of("d")], pa.int64()),
        value=pa.array([-1, 1], pa.int8()),
        remoteness=pa.array([None, 3], pa.int64()),
        move=pa.array([None, None], pa.int64()),
    )
    code = (
        "import sys; from verifier.io.formats import load_any; "
        "from verifier.io.answers import load_answers; "
        f"a = load_answers({str(p)!r}, load_any({str(CASES / 'knuth-won-lost-unknown.json')!r})); "
        "assert a.array('remoteness') is not None and int(a.array('remoteness').max()) == 3; "
        "print('pandas' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
