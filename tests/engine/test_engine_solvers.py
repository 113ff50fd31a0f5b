"""The registered engine solvers: names, engine selection, agreement inside the pipeline."""

from __future__ import annotations

import pytest

from verifier.engine import compiled
from verifier.errors import NotApplicable
from verifier.games.random_graphs import random_case
from verifier.model import Semantics
from verifier.model.results import Verdict
from verifier.pipeline import run_case
from verifier.registry import COMPILED_LIMIT, LINEAR_REFERENCE_LIMIT, Options, all_registered
from verifier.solvers import engine_solvers

NAMES = {
    "retrograde-numpy": Semantics.NORMAL,
    "attractor-numpy": Semantics.REACHABILITY,
    "kars-numpy": Semantics.MINIMAX,
    "grundy-numpy": Semantics.IMPARTIAL,
    "retrograde-compiled": Semantics.NORMAL,
    "attractor-compiled": Semantics.REACHABILITY,
    "kars-compiled": Semantics.MINIMAX,
    "grundy-compiled": Semantics.IMPARTIAL,
    "grundy-loopy-compiled": Semantics.IMPARTIAL,
}


def test_registered() -> None:
    solvers = all_registered()["solvers"]
    for name, sem in NAMES.items():
        assert sem in solvers[name].semantics


@pytest.mark.parametrize("name", sorted(NAMES))
def test_off_under_reference_engine(name: str) -> None:
    case = random_case(NAMES[name], 50, 2.0, seed=1, acyclic=name.startswith("grundy"))
    fn = all_registered()["solvers"][name].fn
    with pytest.raises(NotApplicable):
        fn(case, Options(engine="reference"))
    own = "compiled" if name.endswith("-compiled") else "numpy"
    r = fn(case, Options(engine=own))
    assert r.solver == name and len(r.values) == case.graph.n


# which solvers run under each engine choice (numba installed / not installed)
RUNS = {
    ("numpy", True): {"retrograde-numpy", "attractor-numpy", "kars-numpy", "grundy-numpy"},
    ("compiled", True): {
        "retrograde-compiled",
        "attractor-compiled",
        "kars-compiled",
        "grundy-compiled",
        "grundy-loopy-compiled",
    },
    ("auto", True): {"retrograde-numpy", "attractor-numpy", "kars-numpy", "grundy-numpy"},
    ("reference", True): set(),
    ("compiled", False): {"retrograde-numpy", "attractor-numpy", "kars-numpy", "grundy-numpy"},
    ("auto", False): {"retrograde-numpy", "attractor-numpy", "kars-numpy", "grundy-numpy"},
}


@pytest.mark.parametrize(("engine", "numba"), sorted(RUNS))
def test_engine_choice(monkeypatch: pytest.MonkeyPatch, engine: str, numba: bool) -> None:
    """``--engine compiled`` replaces every numpy solver by its compiled twin; without numba it
    falls back to the numpy engine, and the compiled solvers say why they did not run. ``auto``
    leaves the compiled kernels out on small graphs (``COMPILED_LIMIT``)."""
    monkeypatch.setattr(compiled, "available", lambda: numba)
    ran = set()
    for name, sem in NAMES.items():
        case = random_case(sem, 30, 2.0, seed=4, acyclic=True)
        try:
            all_registered()["solvers"][name].fn(case, Options(engine=engine))
        except NotApplicable as e:
            if name.endswith("-compiled") and engine in ("auto", "compiled"):
                small = engine == "auto" and numba
                want = "run above 200,000 nodes" if small else "numba is not installed"
                assert want in str(e)
            continue
        ran.add(name)
    assert ran == RUNS[engine, numba]


@pytest.mark.parametrize("numba", [True, False])
def test_auto_runs_compiled_only_above_the_limit(
    monkeypatch: pytest.MonkeyPatch, numba: bool
) -> None:
    """``auto``: the compiled kernels above ``COMPILED_LIMIT`` nodes (where the pure-Python
    references stop), never below; ``compiled``: at every size; numpy with ``auto`` always."""
    monkeypatch.setattr(compiled, "available", lambda: numba)
    auto, comp = Options(engine="auto"), Options(engine="compiled")
    for n in (1, 1000, COMPILED_LIMIT):
        assert not auto.use_compiled(n) and auto.use_numpy(n)
        assert comp.use_compiled(n) is numba
    for n in (COMPILED_LIMIT + 1, 10**7):
        assert auto.use_compiled(n) is numba and auto.use_numpy(n)
        assert comp.use_compiled(n) is numba
    assert COMPILED_LIMIT == LINEAR_REFERENCE_LIMIT  # no size without a second implementation
    assert not auto.use_reference(COMPILED_LIMIT + 1, linear=True)


def test_grundy_numpy_skips_cycles() -> None:
    case = random_case(Semantics.IMPARTIAL, 50, 3.0, seed=2)
    with pytest.raises(NotApplicable, match="acyclic"):
        engine_solvers.grundy_numpy_solver(case, Options())
    with pytest.raises(NotApplicable, match="acyclic"):
        engine_solvers.grundy_compiled_solver(case, Options(engine="compiled"))


@pytest.mark.usefixtures("compiled_everywhere")
@pytest.mark.parametrize("sem", list(Semantics))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pipeline_agreement(sem: Semantics, seed: int) -> None:
    """The pipeline compares the engine with the reference: every agreement is confirmed (the
    compiled kernels too: ``auto`` runs them at every size here)."""
    acyclic = sem is Semantics.IMPARTIAL and seed < 2
    n = 20 if sem is Semantics.MINIMAX else 300  # Kars' memoised search is slow on big graphs
    case = random_case(sem, n, 2.5, seed=seed, acyclic=acyclic, values=(-1, 0, 1))
    report = run_case(case, Options(engine="auto"), smt=False)
    agree = [c for c in report.checks if c.name.startswith("agree")]
    mine = [c for c in agree if "-numpy" in c.name]
    assert all(c.verdict is Verdict.CONFIRMED for c in agree), [c.detail for c in agree]
    if sem is not Semantics.IMPARTIAL or acyclic:
        assert mine, [c.name for c in agree]
    if sem is not Semantics.IMPARTIAL or acyclic:
        assert [c for c in agree if "-compiled" in c.name], [c.name for c in agree]
    if sem is Semantics.IMPARTIAL:  # the loopy labelling runs on cycles too, compared as well
        assert [c for c in agree if "grundy-loopy-compiled" in c.name], [c.name for c in agree]


def test_kars_numpy_moves_only_for_few_values() -> None:
    few = random_case(Semantics.MINIMAX, 200, 2.5, seed=3, values=(-2, -1, 0, 1, 2))
    r = engine_solvers.kars_numpy_solver(few, Options())
    assert r.remoteness is not None and r.move is not None
    values = tuple(range(-20, 21))  # 40 distinct non-zero leaf values > KARS_MOVES_LIMIT
    many = random_case(Semantics.MINIMAX, 400, 2.5, seed=3, values=values)
    assert len(set(many.graph.value[many.graph.is_terminal].tolist()) - {0.0}) > 16
    r = engine_solvers.kars_numpy_solver(many, Options())
    assert r.remoteness is None and r.move is None
