"""``verifier study uniqueness`` (``verifier.research.study``): a tiny sweep through the CLI,
its rows against :func:`solution_set` run directly, resuming, the figures' data against the CSV,
usage errors."""

from __future__ import annotations

import csv
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from verifier.cli import app
from verifier.games.random_graphs import random_case
from verifier.research import study
from verifier.research.uniqueness import solution_set

runner = CliRunner()

TINY = [
    "--sizes", "8,12",
    "--degrees", "1.5,2.5",
    "--seeds", "2",
    "--values", "1",
    "--semantics", "minimax,normal,reachability,impartial",
    "--no-games",
    "--workers", "1",
]  # fmt: skip
"""2 sizes x 2 degrees x 2 seeds x 4 semantics (minimax with values -1..1 only): 32 cases."""


def sweep(out: Path, *args: str) -> tuple[int, str]:
    r = runner.invoke(app, ["study", "uniqueness", "--output", str(out), *args])
    return r.exit_code, r.stderr


def rows_of(out: Path) -> list[dict[str, str]]:
    with (out / "uniqueness.csv").open(newline="") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("sweep")
    code, err = sweep(out, *TINY)
    assert code == 0, err
    return out


def test_tiny_sweep_rows_and_columns(tiny: Path) -> None:
    rows = rows_of(tiny)
    assert len(rows) == 32
    assert tuple(rows[0]) == study.COLUMNS
    assert len({r["key"] for r in rows}) == 32
    grid = Counter((r["semantics"], r["nodes"], r["degree"]) for r in rows)
    assert set(grid.values()) == {2}
    assert {s for s, _, _ in grid} == set(study.SEMANTICS)
    assert {(n, d) for _, n, d in grid} == {
        ("8", "1.5"),
        ("8", "2.5"),
        ("12", "1.5"),
        ("12", "2.5"),
    }
    for r in rows:
        assert r["family"] == "random" and r["unique"] in ("True", "False", "")
        assert r["how"] and not r["how"].startswith(("error", "timed out"))
        minimax = r["semantics"] == "minimax"
        assert (r["kars_at_least"] != "") == minimax and (r["value_k"] == "1") == minimax
        if r["unique"] == "True":
            assert r["free_nodes"] == "0" and r["solutions"] in ("1", "")


def test_rows_agree_with_solution_set(tiny: Path) -> None:
    for r in rows_of(tiny):
        k = int(r["value_k"]) if r["value_k"] else None
        values = range(-k, k + 1) if k else (-1, 0, 1)
        case = random_case(
            r["semantics"], int(r["nodes"]), float(r["degree"]), int(r["seed"]), values
        )
        assert case.graph.m == int(r["moves"])
        s = solution_set(case, max_count=200, max_enumerated=60, certify=False)
        assert r["solutions"] == ("" if s.count is None else str(s.count)), r["key"]
        assert r["solutions_at_least"] == str(s.count_bounds[0])
        assert r["solutions_at_most"] == (
            "" if s.count_bounds[1] is None else str(s.count_bounds[1])
        )
        assert r["free_nodes"] == str(int(s.free.sum()))
        assert r["free_components"] == str(len(s.components))
        assert r["how"] == s.how
        assert r["method"] == s.method and r["method"] in ("exact", "approximate", "bounds")
        assert (r["method"] == "exact") == (r["solutions"] != "")
        if s.count is not None:
            assert r["unique"] == str(s.count == 1)
        if r["semantics"] == "minimax":
            kp = s.kars_position
            assert (r["kars_at_least"], r["kars_at_greatest"], r["kars_between"]) == (
                str(kp["at_least_solution"]),
                str(kp["at_greatest_solution"]),
                str(kp["strictly_between"]),
            )
            if s.free.any():
                assert s.hi is not None and s.lo is not None
                width = float(np.mean((s.hi - s.lo)[s.free]))
                assert float(r["mean_interval_width"]) == pytest.approx(width, rel=1e-5)


def test_case_seeds_are_derived_from_the_sweep_seed() -> None:
    a = study.plan([10], [2.0], ["normal"], seeds=3, seed=0, games=False)
    b = study.plan([10], [2.0], ["normal"], seeds=3, seed=0, games=False)
    c = study.plan([10], [2.0], ["normal"], seeds=3, seed=1, games=False)
    assert a == b and len({s.seed for s in a}) == 3
    assert {s.seed for s in a}.isdisjoint({s.seed for s in c})


@pytest.mark.usefixtures("no_figures")
def test_rerun_resumes_without_recomputing(
    tiny: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "run"
    shutil.copytree(tiny, out)
    full = rows_of(out)
    # cut the CSV after 10 rows, the last one half written (a sweep killed mid-write)
    lines = (out / "uniqueness.csv").read_text().splitlines(keepends=True)
    (out / "uniqueness.csv").write_text("".join(lines[:11]) + lines[11][:15])
    measured: list[str] = []
    real = study.measure

    def counting(spec: study.Spec, settings: study.Settings) -> dict[str, Any]:
        measured.append(spec.key)
        return real(spec, settings)

    monkeypatch.setattr(study, "measure", counting)
    code, err = sweep(out, *TINY)
    assert code == 0, err
    assert len(measured) == 22 and set(measured).isdisjoint(r["key"] for r in full[:10])
    again = rows_of(out)
    assert len(again) == 32 and len({r["key"] for r in again}) == 32
    strip = [{k: v for k, v in r.items() if k != "seconds"} for r in again]
    assert sorted(strip, key=lambda r: r["key"]) == sorted(
        ({k: v for k, v in r.items() if k != "seconds"} for r in full), key=lambda r: r["key"]
    )
    # a third run measures nothing at all
    measured.clear()
    code, err = sweep(out, *TINY)
    assert code == 0 and measured == [] and len(rows_of(out)) == 32
    assert "32 cases" in err and "0 measured" in err and "32 already in" in err


def test_a_sweep_from_before_the_method_column_resumes_with_it(
    tiny: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sweep written before ``method`` existed: the rerun measures only the missing cases,
    gives the old rows their method (``exact`` where counted) and keeps the old file."""
    out = tmp_path / "old"
    shutil.copytree(tiny, out)
    full = rows_of(out)
    old = [{k: v for k, v in r.items() if k != "method"} for r in full[:20]]
    with (out / "uniqueness.csv").open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=study.OLD_COLUMNS)
        w.writeheader()
        w.writerows(old)
    before = (out / "uniqueness.csv").read_bytes()
    measured: list[str] = []
    real = study.measure

    def counting(spec: study.Spec, settings: study.Settings) -> dict[str, Any]:
        measured.append(spec.key)
        return real(spec, settings)

    monkeypatch.setattr(study, "measure", counting)
    code, err = sweep(out, *TINY)
    assert code == 0, err
    assert len(measured) == 12
    assert (out / "uniqueness.before-method.csv").read_bytes() == before
    again = {r["key"]: r for r in rows_of(out)}
    assert len(again) == 32 and tuple(next(iter(again.values()))) == study.COLUMNS
    for r in full:  # the tiny sweep counts exactly or gives bounds: the old rows get the same
        assert again[r["key"]]["method"] == r["method"], r["key"]
    assert {r["method"] for r in full[:20]} >= {"exact"}


def test_other_limits_are_refused_on_resume(tiny: Path) -> None:
    code, err = sweep(tiny, *TINY, "--max-count", "7")
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "max_count 200 -> 7" in err


@pytest.fixture
def no_figures(monkeypatch: pytest.MonkeyPatch) -> None:
    """The sweep without drawing (figures are tested on the tiny sweep's)."""
    monkeypatch.setattr(study, "figures", lambda csv_path, out_dir: {})


@pytest.mark.usefixtures("no_figures")
def test_workers_give_the_same_rows(tmp_path: Path, tiny: Path) -> None:
    args = [*TINY[:-2], "--workers", "2", "--sizes", "8", "--semantics", "minimax,impartial"]
    code, err = sweep(tmp_path, *args)
    assert code == 0, err
    mine = {r["key"]: {k: v for k, v in r.items() if k != "seconds"} for r in rows_of(tmp_path)}
    ref = {r["key"]: {k: v for k, v in r.items() if k != "seconds"} for r in rows_of(tiny)}
    assert len(mine) == 8 and all(mine[k] == ref[k] for k in mine)


@pytest.mark.usefixtures("no_figures")
def test_games_rows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        study,
        "GAMES",
        (
            ("ladder-3", "ladder", {"n": 3}),
            ("tictactoe-symmetric", "tictactoe", {"symmetry": True}),
            ("nim-10", "nim", {"upto": 10}),
        ),
    )
    code, err = sweep(tmp_path, "--seeds", "0", "--games")
    assert code == 0, err
    rows = {r["family"]: r for r in rows_of(tmp_path)}
    assert set(rows) == {"ladder-3", "tictactoe-symmetric", "nim-10"}
    assert rows["tictactoe-symmetric"]["unique"] == "True"
    assert rows["tictactoe-symmetric"]["semantics"] == "normal"
    assert rows["ladder-3"]["semantics"] == "minimax" and rows["ladder-3"]["solutions"] == "6"
    assert rows["nim-10"]["unique"] == "True" and rows["nim-10"]["seed"] == ""
    assert "3 cases, 2 unique (66.7%), 1 not unique, 0 undecided" in err


def test_a_case_past_its_timeout_gets_a_row(monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    import verifier.research.uniqueness as uq

    def slow(*args: Any, **kwargs: Any) -> Any:
        time.sleep(5)

    monkeypatch.setattr(uq, "solution_set", slow)
    spec = study.plan([5], [1.0], ["normal"], seeds=1, games=False)[0]
    t0 = time.perf_counter()
    row = study.measure(spec, study.Settings(timeout=0.2))
    assert time.perf_counter() - t0 < 2
    assert row["how"].startswith("timed out after 0.2 s") and row["unique"] == ""


def expected_figure_data(rows: list[dict[str, str]]) -> dict[str, Any]:
    """What the figures should show, computed here independently of ``figure_data``."""
    rnd = [r for r in rows if r["family"] == "random"]

    def share(sel: list[dict[str, str]]) -> float:
        decided = [r for r in sel if r["unique"] != ""]
        return sum(r["unique"] == "True" for r in decided) / len(decided)

    sems = sorted({r["semantics"] for r in rnd})
    sizes = sorted({int(r["nodes"]) for r in rnd})
    degrees = sorted({float(r["degree"]) for r in rnd})
    by_degree = {
        s: {
            n: {
                d: share(
                    [
                        r
                        for r in rnd
                        if (r["semantics"], int(r["nodes"]), float(r["degree"])) == (s, n, d)
                    ]
                )
                for d in degrees
            }
            for n in sizes
        }
        for s in sems
    }
    by_size = {
        s: {
            n: share([r for r in rnd if (r["semantics"], int(r["nodes"])) == (s, n)]) for n in sizes
        }
        for s in sems
    }
    free: dict[str, list[float]] = {}
    for r in rnd:
        if int(r["free_nodes"]) > 0:
            free.setdefault(r["semantics"], []).append(int(r["free_nodes"]) / int(r["nodes"]))
    mm = [r for r in rnd if r["semantics"] == "minimax"]
    widths = {1: [float(r["mean_interval_width"]) for r in mm if int(r["free_nodes"]) > 0]}
    kars = {
        d: {
            "at least": sum(int(r["kars_at_least"]) for r in mm if float(r["degree"]) == d),
            "at greatest": sum(int(r["kars_at_greatest"]) for r in mm if float(r["degree"]) == d),
            "between": sum(int(r["kars_between"]) for r in mm if float(r["degree"]) == d),
        }
        for d in degrees
    }
    return {
        "unique_by_degree": by_degree,
        "unique_by_size": by_size,
        "free_nodes": {s: free[s] for s in sorted(free)},
        "interval_width": widths,
        "kars_position": kars,
    }


def test_figures_exist_and_plot_the_csv(tiny: Path, tmp_path: Path) -> None:
    for name in study.FIGURES:
        for ext in ("png", "svg"):
            f = tiny / "figures" / f"{name}.{ext}"
            assert f.is_file() and f.stat().st_size > 1000, f
    # remade from the CSV alone, into another folder: the data plotted is the CSV's
    data = study.figures(tiny / "uniqueness.csv", tmp_path / "again")
    assert data == expected_figure_data(rows_of(tiny))
    assert sorted(p.name for p in (tmp_path / "again").iterdir()) == sorted(
        f"{n}.{e}" for n in study.FIGURES for e in ("png", "svg")
    )
    # the plotted lines carry the same numbers
    assert sum(len(v) for v in data["free_nodes"].values()) == sum(
        int(r["free_nodes"]) > 0 for r in rows_of(tiny)
    )


def test_figures_of_an_empty_sweep(tmp_path: Path) -> None:
    (tmp_path / "uniqueness.csv").write_text(",".join(study.COLUMNS) + "\n")
    data = study.figures(tmp_path / "uniqueness.csv", tmp_path / "figures")
    assert all(not v for v in data.values())
    assert all((tmp_path / "figures" / f"{n}.svg").stat().st_size > 0 for n in study.FIGURES)


@pytest.mark.parametrize(
    ("args", "word"),
    [
        (["--sizes", "0,10"], "--sizes"),
        (["--sizes", "ten"], "--sizes"),
        (["--degrees", "-1"], "--degrees"),
        (["--workers", "0"], "--workers"),
        (["--semantics", "chess"], "--semantics"),
        (["--values", "0"], "--values"),
        (["--budget", "-1"], "--budget"),
        (["--max-count", "0"], "--max-count"),
    ],
)
def test_usage_errors(tmp_path: Path, args: list[str], word: str) -> None:
    code, err = sweep(tmp_path / "x", *args)
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and word in err
    assert not (tmp_path / "x").exists()
