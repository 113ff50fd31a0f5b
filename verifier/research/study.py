"""Sweeps over families of games measuring the structure of their solution sets
(``verifier study uniqueness``).

A sweep is a list of :class:`Spec` (one case each, built from its spec alone), measured by
:func:`verifier.research.uniqueness.solution_set` and written one CSV row per case:

- **random graphs** (:func:`verifier.games.random_graphs.random_case`) over a grid of sizes,
  mean out-degrees, semantics and, for ``minimax``, value domains (dead ends draw their value
  from ``-k..k``), ``seeds`` graphs per grid point. Each graph's seed is derived from the
  sweep's ``--seed`` and its grid point (:func:`case_seed`), and written in the row, so
  ``random_case(semantics, nodes, degree, seed, values=range(-k, k + 1))`` rebuilds it. (The
  share of Max nodes is not an axis: ``random_case`` draws Max or Min with probability 1/2.)
- **real games** (:data:`GAMES`): small instances of every generator, with and without
  symmetry reduction, each a few seconds at most.

:func:`run_sweep` runs the cases in a process pool and appends each row to the CSV as it
comes (flushed), so an interrupted sweep resumes: a rerun skips the keys already in the file.
The rows come in the order the cases finish; their contents do not depend on it. The sweep's
limits (``max_count``, ``max_enumerated``, ``certify``, ``timeout``) are kept beside the CSV
(``uniqueness.settings.json``) and a rerun with other limits is refused.

:func:`figures` draws the figures from the CSV alone (matplotlib, the ``plots`` extra) and
returns the data of each, so they can be remade, and tested, without rerunning the sweep.
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
import shutil
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from verifier.deadline import TimeUp, stop_after
from verifier.errors import UsageError
from verifier.model import Case, Semantics
from verifier.model.describe import DESCRIPTIONS, describe

__all__ = [
    "COLUMNS",
    "GAMES",
    "SEMANTICS",
    "Settings",
    "Spec",
    "build",
    "case_seed",
    "figures",
    "measure",
    "plan",
    "read_rows",
    "run_sweep",
]

SEMANTICS = ("minimax", "normal", "reachability", "impartial")

COLUMNS = (
    "key",
    "family",
    "semantics",
    "nodes",
    "moves",
    "degree",
    "value_k",
    "seed",
    "unique",
    "solutions",
    "solutions_at_least",
    "solutions_at_most",
    "method",
    "how",
    "free_nodes",
    "free_components",
    "largest_component",
    "mean_interval_width",
    "kars_at_least",
    "kars_at_greatest",
    "kars_between",
    "seconds",
)
"""The CSV's columns. ``degree``: the requested mean out-degree (random graphs) or moves /
nodes (games); ``value_k``: minimax random graphs' dead ends draw from ``-k..k``; ``unique``:
``True`` / ``False`` / empty (undecided); ``solutions``: the exact count or empty;
``mean_interval_width``: minimax only, the mean of greatest minus least solution over the free
nodes (empty when none is free); ``kars_*``: minimax only, free nodes where Kars' score is the
least solution's value, the greatest's, strictly between."""

CSV_NAME = "uniqueness.csv"
SETTINGS_NAME = "uniqueness.settings.json"

_KARS = frozenset(d.semantics.value for d in DESCRIPTIONS.values() if d.kars_score)
"""The semantics (as the rows write them) whose answer is Kars' score among the solutions."""


@dataclass(frozen=True)
class Spec:
    """One case of a sweep, enough to build it anywhere."""

    key: str
    family: str
    """``random`` or the game's label (``tictactoe-symmetric``, ``connect4-4x3``, ...)."""
    semantics: str = ""
    nodes: int = 0
    degree: float = 0.0
    value_k: int | None = None
    seed: int | None = None
    game: str = ""
    options: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class Settings:
    """The limits every case of a sweep is measured with."""

    max_count: int = 200
    max_enumerated: int = 60
    certify: bool = False
    timeout: float = 60.0
    """Seconds a case may take (0: no limit); a case that takes longer gets a row saying so."""


def _games() -> tuple[tuple[str, str, dict[str, Any]], ...]:
    from verifier.games.registry import builtin_games

    return tuple(
        (ex.label, ex.name, dict(ex.options))
        for game in builtin_games()
        for ex in game.examples
        if ex.study
    )


GAMES: tuple[tuple[str, str, dict[str, Any]], ...] = _games()
"""The real games of a sweep: label, generator name (``verifier generate``), options: the
examples the games declare (``verifier.games.registry.Example``)."""


# ---------------------------------------------------------------------- the plan
def case_seed(seed: int, semantics: str, nodes: int, degree: float, k: int | None, i: int) -> int:
    """The seed of the ``i``-th random graph of a grid point: a digest of the sweep's seed and
    the point (the same on every machine and Python, unlike ``hash``)."""
    text = f"{seed}/{semantics}/{nodes}/{degree:g}/{k}/{i}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big")


def plan(
    sizes: Sequence[int],
    degrees: Sequence[float],
    semantics: Sequence[str] = SEMANTICS,
    seeds: int = 10,
    seed: int = 0,
    values: Sequence[int] = (1, 3),
    games: bool = True,
) -> list[Spec]:
    """Every case of a sweep, random graphs first (``values``: minimax's ``k``s)."""
    specs: list[Spec] = []
    for sem in semantics:
        scores = describe(Semantics(sem)).scores  # a ValueError for an unknown name
        ks: Sequence[int | None] = values if scores else (None,)
        for n in sizes:
            for d in degrees:
                for k in ks:
                    for i in range(seeds):
                        s = case_seed(seed, sem, n, d, k, i)
                        kpart = f"-k{k}" if k is not None else ""
                        specs.append(
                            Spec(
                                key=f"random-{sem}-n{n}-d{d:g}{kpart}-s{s}",
                                family="random",
                                semantics=sem,
                                nodes=n,
                                degree=d,
                                value_k=k,
                                seed=s,
                            )
                        )
    if games:
        for label, name, opts in GAMES:
            specs.append(
                Spec(key=f"game-{label}", family=label, game=name, options=tuple(opts.items()))
            )
    return specs


def build(spec: Spec) -> Case:
    """The case of a spec."""
    if spec.family == "random":
        from verifier.games.random_graphs import random_case

        assert spec.seed is not None
        values = range(-spec.value_k, spec.value_k + 1) if spec.value_k else (-1, 0, 1)
        return random_case(spec.semantics, spec.nodes, spec.degree, spec.seed, values=values)
    from verifier.games.generators import generate

    return generate(spec.game, **dict(spec.options))


# ---------------------------------------------------------------------- one case
def _unique(s: Any) -> bool | None:
    """Unique, not, or undecided: ``SolutionSet.unique``, and not unique where the count is
    not exact but at least 2 (the least and the greatest solution differ)."""
    u: bool | None = s.unique
    if u is None and s.count_bounds[0] >= 2:
        return False
    return u


def measure(spec: Spec, settings: Settings) -> dict[str, Any]:
    """One CSV row: the case's solution set under the sweep's limits."""
    from verifier.registry import Options
    from verifier.research.uniqueness import solution_set

    t0 = time.perf_counter()
    case = build(spec)
    g = case.graph
    row: dict[str, Any] = dict.fromkeys(COLUMNS, "")
    row.update(
        key=spec.key,
        family=spec.family,
        semantics=g.semantics.value,
        nodes=g.n,
        moves=g.m,
        degree=f"{spec.degree:g}" if spec.family == "random" else f"{g.m / max(g.n, 1):.3f}",
        value_k="" if spec.value_k is None else spec.value_k,
        seed="" if spec.seed is None else spec.seed,
    )
    try:
        with stop_after(settings.timeout):
            s = solution_set(
                case,
                Options(),
                max_count=settings.max_count,
                max_enumerated=settings.max_enumerated,
                certify=settings.certify,
            )
    except TimeUp:
        row.update(how=f"timed out after {settings.timeout:g} s (--timeout)")
        row["seconds"] = f"{time.perf_counter() - t0:.3f}"
        return row
    except Exception as e:  # one bad case must not end a sweep of thousands
        row.update(how=f"error: {type(e).__name__}: {e}")
        row["seconds"] = f"{time.perf_counter() - t0:.3f}"
        return row
    unique = _unique(s)
    lo, hi = s.count_bounds
    sizes = [len(c.nodes) for c in s.components]
    row.update(
        unique="" if unique is None else str(unique),
        solutions="" if s.count is None else s.count,
        solutions_at_least=lo,
        solutions_at_most="" if hi is None else hi,
        method=s.method,
        how=s.how,
        free_nodes=int(s.free.sum()),
        free_components=len(s.components),
        largest_component=max(sizes, default=0),
    )
    if describe(g.semantics).kars_score and s.lo is not None and s.hi is not None:
        if s.free.any():
            width = np.asarray(s.hi, dtype=np.float64) - np.asarray(s.lo, dtype=np.float64)
            row["mean_interval_width"] = f"{float(width[s.free].mean()):.6g}"
        kp = s.kars_position
        row.update(
            kars_at_least=kp.get("at_least_solution", 0),
            kars_at_greatest=kp.get("at_greatest_solution", 0),
            kars_between=kp.get("strictly_between", 0),
        )
    row["seconds"] = f"{time.perf_counter() - t0:.3f}"
    return row


# ---------------------------------------------------------------------- the sweep
def read_rows(csv_path: Path) -> list[dict[str, str]]:
    """The rows of a sweep's CSV (none if there is no file)."""
    if not csv_path.exists():
        return []
    with csv_path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _repair(csv_path: Path) -> None:
    """Drop a last line cut short (a sweep killed while writing it)."""
    if not csv_path.exists():
        return
    data = csv_path.read_bytes()
    if data and not data.endswith(b"\n"):
        csv_path.write_bytes(data[: data.rfind(b"\n") + 1])


OLD_COLUMNS = tuple(c for c in COLUMNS if c != "method")
"""A sweep's columns before ``method`` (2026-11-28): such a sweep still resumes."""


def _upgraded(csv_path: Path, rows: list[dict[str, str]]) -> list[dict[str, str]]:
    """The rows of a sweep written before the ``method`` column, with it (``exact`` where the
    count is, ``bounds`` where not, empty for a case that timed out or failed), the file
    rewritten so and the old one kept beside it as ``uniqueness.before-method.csv``; other
    rows as they are."""
    if not rows or tuple(rows[0]) != OLD_COLUMNS:
        return rows
    for r in rows:
        failed = r["how"].startswith(("timed out", "error:"))
        r["method"] = "" if failed else "exact" if r["solutions"] else "bounds"
    kept = csv_path.with_name(f"{csv_path.stem}.before-method.csv")
    if not kept.exists():
        shutil.copyfile(csv_path, kept)
    new = csv_path.with_name(f"{csv_path.name}.tmp")
    with new.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    new.replace(csv_path)
    return read_rows(csv_path)


def _check_settings(out_dir: Path, settings: Settings) -> None:
    path = out_dir / SETTINGS_NAME
    mine = asdict(settings)
    if path.exists():
        theirs = json.loads(path.read_text(encoding="utf-8"))
        if theirs != mine and (out_dir / CSV_NAME).exists():
            diff = ", ".join(
                f"{k} {theirs.get(k)} -> {v}" for k, v in mine.items() if theirs.get(k) != v
            )
            raise UsageError(
                f"{out_dir / CSV_NAME}: made with other limits ({diff}): give another --out "
                "or the same limits"
            )
    path.write_text(json.dumps(mine, indent=1) + "\n", encoding="utf-8")


@dataclass
class SweepResult:
    """What :func:`run_sweep` did."""

    csv_path: Path
    planned: int
    skipped: int
    ran: int
    seconds: float
    rows: list[dict[str, str]] = field(default_factory=list)
    """Every row of the CSV after the run (those of the plan and any others)."""


def run_sweep(
    specs: Sequence[Spec],
    out_dir: Path,
    settings: Settings = Settings(),
    *,
    workers: int = 2,
    on_row: Callable[[dict[str, Any], int, int], None] | None = None,
) -> SweepResult:
    """Measure every spec whose key is not yet in ``out_dir/uniqueness.csv``, appending a row
    each (flushed); ``workers`` processes (1: in this process). ``on_row(row, done, total)``
    after each."""
    t0 = time.perf_counter()
    out_dir.mkdir(parents=True, exist_ok=True)
    csv_path = out_dir / CSV_NAME
    _check_settings(out_dir, settings)
    _repair(csv_path)
    existing = _upgraded(csv_path, read_rows(csv_path))
    if existing and list(existing[0]) != list(COLUMNS):
        raise UsageError(f"{csv_path}: not a uniqueness sweep's CSV (other columns)")
    done_keys = {r["key"] for r in existing}
    todo = [s for s in specs if s.key not in done_keys]
    skipped = len(specs) - len(todo)
    fresh = not csv_path.exists() or csv_path.stat().st_size == 0
    with csv_path.open("a", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS)
        if fresh:
            writer.writeheader()
            f.flush()
        count = skipped

        def keep(row: dict[str, Any]) -> None:
            nonlocal count
            writer.writerow(row)
            f.flush()
            count += 1
            if on_row is not None:
                on_row(row, count, len(specs))

        for row in _results(todo, settings, workers):
            keep(row)
    return SweepResult(
        csv_path, len(specs), skipped, len(todo), time.perf_counter() - t0, read_rows(csv_path)
    )


def _results(todo: Sequence[Spec], settings: Settings, workers: int) -> Iterable[dict[str, Any]]:
    """The rows of ``todo``, in the order they finish."""
    if workers <= 1 or len(todo) <= 1:
        for spec in todo:
            yield measure(spec, settings)
        return
    pool = ProcessPoolExecutor(max_workers=workers)
    try:
        # keep a bounded queue of submitted cases: an interrupt loses little work
        queue = iter(todo)
        running: set[Future[dict[str, Any]]] = set()
        for spec in queue:
            running.add(pool.submit(measure, spec, settings))
            if len(running) >= 4 * workers:
                break
        while running:
            finished, running = wait(running, return_when=FIRST_COMPLETED)
            for fut in finished:
                yield fut.result()
                nxt = next(queue, None)
                if nxt is not None:
                    running.add(pool.submit(measure, nxt, settings))
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


# ---------------------------------------------------------------------- figures
FIGURES = ("unique_by_degree", "unique_by_size", "free_nodes", "interval_width", "kars_position")
"""The figures :func:`figures` draws (``NAME.png`` and ``NAME.svg``)."""


def _share_unique(rows: Iterable[dict[str, str]]) -> float | None:
    """The share of unique cases among the decided ones (None: none decided)."""
    decided = [r["unique"] for r in rows if r["unique"] in ("True", "False")]
    return decided.count("True") / len(decided) if decided else None


def _grouped(
    rows: Iterable[dict[str, str]], *keys: str
) -> dict[tuple[str, ...], list[dict[str, str]]]:
    out: dict[tuple[str, ...], list[dict[str, str]]] = {}
    for r in rows:
        out.setdefault(tuple(r[k] for k in keys), []).append(r)
    return out


def figure_data(rows: Sequence[dict[str, str]]) -> dict[str, Any]:
    """What each figure plots, from the CSV's rows (random graphs only):

    - ``unique_by_degree``: {semantics: {size: {degree: share unique}}};
    - ``unique_by_size``: {semantics: {size: share unique}};
    - ``free_nodes``: {semantics: [free nodes / nodes of each case with a free node]};
    - ``interval_width``: {k: [mean interval width of each minimax case with a free node]};
    - ``kars_position``: {degree: {"at least", "at greatest", "between": free nodes, summed}}.

    Shares are among the decided cases; grid points with none decided are left out."""
    rnd = [r for r in rows if r["family"] == "random"]
    by_degree: dict[str, dict[int, dict[float, float]]] = {}
    for (sem, n, d), group in sorted(
        _grouped(rnd, "semantics", "nodes", "degree").items(),
        key=lambda kv: (kv[0][0], int(kv[0][1]), float(kv[0][2])),
    ):
        share = _share_unique(group)
        if share is not None:
            by_degree.setdefault(sem, {}).setdefault(int(n), {})[float(d)] = share
    by_size: dict[str, dict[int, float]] = {}
    for (sem, n), group in sorted(
        _grouped(rnd, "semantics", "nodes").items(), key=lambda kv: (kv[0][0], int(kv[0][1]))
    ):
        share = _share_unique(group)
        if share is not None:
            by_size.setdefault(sem, {})[int(n)] = share
    free: dict[str, list[float]] = {}
    for r in rnd:
        if r["free_nodes"] not in ("", "0"):
            free.setdefault(r["semantics"], []).append(int(r["free_nodes"]) / int(r["nodes"]))
    widths: dict[int, list[float]] = {}
    kars: dict[float, dict[str, int]] = {}
    for r in rnd:
        if r["semantics"] not in _KARS:
            continue
        if r["mean_interval_width"] != "":
            widths.setdefault(int(r["value_k"]), []).append(float(r["mean_interval_width"]))
        if r["kars_at_least"] != "":
            acc = kars.setdefault(float(r["degree"]), dict.fromkeys(KARS, 0))
            for label, col in KARS.items():
                acc[label] += int(r[col])
    return {
        "unique_by_degree": by_degree,
        "unique_by_size": by_size,
        "free_nodes": {k: free[k] for k in sorted(free)},
        "interval_width": {k: widths[k] for k in sorted(widths)},
        "kars_position": {d: kars[d] for d in sorted(kars)},
    }


KARS = {"at least": "kars_at_least", "at greatest": "kars_at_greatest", "between": "kars_between"}


def figures(csv_path: Path, out_dir: Path) -> dict[str, Any]:
    """Draw every figure of :data:`FIGURES` from a sweep's CSV into ``out_dir`` (PNG and SVG);
    the data of each (:func:`figure_data`)."""
    try:
        import matplotlib
    except ImportError as e:
        raise UsageError(f"figures need matplotlib: pip install '.[plots]' ({e})") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    data = figure_data(read_rows(csv_path))
    out_dir.mkdir(parents=True, exist_ok=True)
    style: Any = {
        "svg.fonttype": "none",  # text as text: small SVG files
        "svg.hashsalt": "gamegraph-verifier",  # the same ids on every run
        "font.size": 9,
    }
    with matplotlib.rc_context(style):
        for name in FIGURES:
            fig = _DRAW[name](plt, data[name])
            for ext in ("png", "svg"):
                fig.savefig(
                    out_dir / f"{name}.{ext}",
                    dpi=90,
                    bbox_inches="tight",
                    metadata={"Date": None} if ext == "svg" else None,
                )
            plt.close(fig)
    return data


def _empty(ax: Any, what: str) -> None:
    ax.text(0.5, 0.5, f"no {what} in the CSV", ha="center", va="center", transform=ax.transAxes)


def _draw_by_degree(plt: Any, data: dict[str, dict[int, dict[float, float]]]) -> Any:
    sems = list(data) or ["(none)"]
    cols = min(len(sems), 2)
    rows = math.ceil(len(sems) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.0 * rows), squeeze=False)
    for ax, sem in zip(axes.flat, sems, strict=False):
        for n, series in data.get(sem, {}).items():
            ax.plot(list(series), list(series.values()), marker="o", label=f"{n} nodes")
        if sem in data:
            ax.legend(fontsize=7)
        else:
            _empty(ax, "random graphs")
        ax.set(title=sem, xlabel="mean out-degree", ylabel="share unique", ylim=(-0.03, 1.03))
    for ax in list(axes.flat)[len(sems) :]:
        ax.set_visible(False)
    fig.suptitle("Random graphs: share with a unique solution, by density")
    fig.tight_layout()
    return fig


def _draw_by_size(plt: Any, data: dict[str, dict[int, float]]) -> Any:
    fig, ax = plt.subplots(figsize=(5, 3.2))
    for sem, series in data.items():
        ax.plot(list(series), list(series.values()), marker="o", label=sem)
    if data:
        ax.set_xscale("log")
        ax.legend(fontsize=7)
    else:
        _empty(ax, "random graphs")
    ax.set(
        title="Random graphs: share with a unique solution, by size",
        xlabel="nodes",
        ylabel="share unique",
        ylim=(-0.03, 1.03),
    )
    fig.tight_layout()
    return fig


def _histograms(
    plt: Any,
    series: dict[str, list[float]],
    bins: Any,
    empty: str,
    title: str,
    xlabel: str,
) -> Any:
    """One step histogram per named series (a legend with each series' size), or a note
    that there is no ``empty`` to draw."""
    fig, ax = plt.subplots(figsize=(5, 3.2))
    for label, values in series.items():
        ax.hist(values, bins=bins, histtype="step", linewidth=1.5, label=f"{label} ({len(values)})")
    if series:
        ax.legend(fontsize=7)
    else:
        _empty(ax, empty)
    ax.set(title=title, xlabel=xlabel, ylabel="cases")
    fig.tight_layout()
    return fig


def _draw_free(plt: Any, data: dict[str, list[float]]) -> Any:
    return _histograms(
        plt,
        data,
        np.linspace(0, 1, 21),
        "case with a free node",
        "Free nodes (cases with at least one)",
        "free nodes / nodes",
    )


def _draw_widths(plt: Any, data: dict[int, list[float]]) -> Any:
    top = max((max(w) for w in data.values() if w), default=1.0)
    return _histograms(
        plt,
        {f"values -{k}..{k}": widths for k, widths in data.items()},
        np.linspace(0, max(top, 1.0), 25),
        "minimax case with a free node",
        "Minimax: mean interval width [least, greatest] over the free nodes",
        "mean greatest - least (value units)",
    )


def _draw_kars(plt: Any, data: dict[float, dict[str, int]]) -> Any:
    fig, ax = plt.subplots(figsize=(5, 3.2))
    labels = [f"{d:g}" for d in data]
    bottom = np.zeros(len(data))
    for part in KARS:
        counts = np.array([data[d][part] for d in data], dtype=np.float64)
        totals = np.array([max(sum(data[d].values()), 1) for d in data], dtype=np.float64)
        ax.bar(labels, counts / totals, bottom=bottom, label=part)
        bottom += counts / totals
    if data:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    else:
        _empty(ax, "minimax case with a free node")
    ax.set(
        title="Minimax: where Kars' score sits on the free nodes",
        xlabel="mean out-degree",
        ylabel="share of free nodes",
    )
    fig.tight_layout()
    return fig


_DRAW: dict[str, Callable[[Any, Any], Any]] = {
    "unique_by_degree": _draw_by_degree,
    "unique_by_size": _draw_by_size,
    "free_nodes": _draw_free,
    "interval_width": _draw_widths,
    "kars_position": _draw_kars,
}


def summary(rows: Sequence[dict[str, str]]) -> str:
    """One line: cases, unique, not unique, undecided."""
    n = len(rows)
    u = sum(r["unique"] == "True" for r in rows)
    no = sum(r["unique"] == "False" for r in rows)
    und = n - u - no
    pct = f"{100 * u / n:.1f}%" if n else "-"
    return f"{n} cases, {u} unique ({pct}), {no} not unique, {und} undecided"
