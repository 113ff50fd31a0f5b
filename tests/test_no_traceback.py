"""A user's mistake is one line on stderr naming the user's path, exit 2, never a traceback
(issue 29, item 1): every subcommand, with every path it takes, against a missing folder, a
folder that cannot be written, and each optional extra absent.

The subcommands and their path options are read from the Typer app itself: a new command or a
new path option fails ``test_every_path_option_has_a_role`` until it is given a role here, and
is then tried like the others.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import tomllib
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from verifier.cli import app

ROOT = Path(__file__).resolve().parent.parent
CASE = ROOT / "cases" / "dag-paul-carole.json"  # 8 nodes, root s
runner = CliRunner()

Variant = tuple[str, tuple[str, ...]]
"""A file name's suffix and the further arguments that go with it."""

ROLES: dict[tuple[str, str], tuple[str, tuple[Variant, ...]]] = {
    ("verify", "paths"): ("input", ((".json", ()), ("", ()))),
    ("verify", "answers"): ("input", ((".csv", ()), (".json", ()), (".parquet", ()))),
    ("verify", "junit"): ("output", ((".xml", ()),)),
    ("solve", "path"): ("input", ((".json", ()),)),
    (
        "solve",
        "out",
    ): (
        "output",
        (
            (".json", ()),
            (".csv", ()),
            (".npz", ()),
            (".parquet", ()),
            ("", ("--engine", "dask")),
        ),
    ),
    ("generate", "output"): (
        "output",
        ((".json", ()), (".npz", ()), (".graphml", ()), (".gml", ())),
    ),
    ("render", "path"): ("input", ((".json", ()),)),
    ("render", "output"): ("output", ((".dot", ()), (".svg", ()))),
    ("query", "path"): ("input", ((".json", ()),)),
    ("uniqueness", "path"): ("input", ((".json", ()),)),
    ("uniqueness", "output"): ("folder", (("", ("--sample", "2")),)),
    ("diff", "left"): ("input", ((".json", ()), (".csv", ()))),
    ("diff", "right"): ("input", ((".json", ()), (".csv", ()))),
    ("diff", "case_path"): ("input", ((".json", ()),)),
    ("study uniqueness", "output"): ("folder", (("", ()),)),
    ("verify", "certificate"): ("output", ((".json", ()), (".npz", ()))),
    ("solve", "certificate"): ("output", ((".json", ()),)),
    ("check-certificate", "case"): ("input", ((".json", ()),)),
    ("check-certificate", "certificate"): ("input", ((".json", ()),)),
    ("check-certificate", "answers"): ("input", ((".csv", ()),)),
}
"""Every path a subcommand takes: read (input), written (output) or a folder made (folder)."""

REST: dict[str, tuple[str, ...]] = {
    "generate": ("ladder", "--n", "2"),
    "render": ("--no-smt",),
    "query": ("s",),
    "uniqueness": ("--no-certify",),
    "study uniqueness": (
        *("--sizes", "3", "--degrees", "1", "--semantics", "normal", "--values", "1"),
        *("--seeds", "1", "--no-games", "--workers", "1", "--max-count", "2"),
    ),
    "grundy": ("nim", "--upto", "5"),
    "prove": ("bouton", "--piles", "2", "--bits", "2"),
}
"""The other arguments a command needs (small and fast)."""

GOOD: dict[tuple[str, str], str | None] = {
    ("render", "output"): "{tmp}/drawn.dot",
    ("generate", "output"): "{tmp}/generated.json",
    ("study uniqueness", "output"): "{tmp}/study",
    # the certificate of CASE, as `verify CASE --certificate` writes it
    ("check-certificate", "certificate"): str(ROOT / "tests/standalone/dag-paul-carole.cert.json"),
}
"""The value of a path that is not the one under test (default: the case for an input that
must be given, left out otherwise); ``{tmp}``: the test's folder."""


def _has_path(annotation: Any) -> bool:
    return annotation is Path or any(_has_path(a) for a in typing.get_args(annotation))


def _commands(command: Any, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, Any]]:
    if hasattr(command, "commands"):
        for name, sub in command.commands.items():
            yield from _commands(sub, (*prefix, name))
    else:
        yield " ".join(prefix), command


COMMANDS = dict(_commands(typer.main.get_command(app)))
PATH_PARAMS = [
    (name, p.name)
    for name, command in COMMANDS.items()
    for p in command.params
    if _has_path(p.type_descriptor.annotation) and not getattr(p, "hidden", False)
]
"""Every path option but the hidden old spellings (the same checks run on their values)."""


def _argv(
    command: str, under_test: str | None, value: str, more: tuple[str, ...], tmp: Path
) -> list[str]:
    """The command line of ``command`` with ``value`` for its path ``under_test``, the good
    values for its other paths (in ``tmp``), then its other arguments."""
    argv = command.split()
    for p in COMMANDS[command].params:
        if not _has_path(p.type_descriptor.annotation) or getattr(p, "hidden", False):
            continue
        if p.name == under_test:
            v: str | None = value
        else:
            v = GOOD.get((command, p.name), str(CASE) if p.required else None)
            v = None if v is None else v.format(tmp=tmp)
        if v is None:
            continue
        argv += [v] if p.param_type_name == "argument" else [p.opts[0], v]
    return [*argv, *REST.get(command, ()), *more]


def test_every_path_option_has_a_role() -> None:
    assert set(COMMANDS) >= {"verify", "solve", "generate", "render", "study uniqueness"}
    unknown = sorted(set(PATH_PARAMS) - set(ROLES))
    assert not unknown, f"give these a role in ROLES (input, output or folder): {unknown}"
    assert sorted(set(ROLES) - set(PATH_PARAMS)) == []


def _one_line(r: Any, path: Path) -> str:
    """The run's single stderr line, after asserting the contract."""
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert r.exit_code == 2, (r.exit_code, r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert "Traceback" not in r.stderr and ".tmp" not in r.stderr, r.stderr
    assert str(path) in lines[0], (str(path), lines[0])
    return str(lines[0])


def _cases() -> Iterator[Any]:
    for key in PATH_PARAMS:
        for suffix, more in ROLES.get(key, ("input", ((".json", ()),)))[1]:
            yield pytest.param(key, suffix, more, id=f"{key[0]}-{key[1]}{suffix or '-dir'}")


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*"))


@pytest.mark.parametrize(("key", "suffix", "more"), list(_cases()))
@pytest.mark.parametrize("where", ["missing folder", "parent is a file", "unwritable folder"])
def test_a_bad_path_is_one_line_naming_it(
    key: tuple[str, str],
    suffix: str,
    more: tuple[str, ...],
    where: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    command, param = key
    role = ROLES[key][0]
    if role == "output" and not suffix:
        role = "folder"  # --engine dask's results: a folder, made with its parents
    if role == "folder" and where == "missing folder":
        pytest.skip("a folder to write into is made with its parents")
    if role == "input" and where == "unwritable folder":
        pytest.skip("reading needs no write permission")
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n")
    parent = {
        "missing folder": tmp_path / "nodir",
        "parent is a file": blocker,
        "unwritable folder": tmp_path / "locked",
    }[where]
    if where == "unwritable folder":
        # tests run as root, where chmod stops nothing: refuse every new file in the folder
        parent.mkdir()
        real = tempfile.mkstemp

        def mkstemp(*args: Any, dir: Any = None, **kwargs: Any) -> tuple[int, str]:
            if dir is not None and Path(dir).resolve() == parent.resolve():
                raise PermissionError(13, "Permission denied", str(Path(dir) / "x.tmp"))
            return real(*args, dir=dir, **kwargs)

        monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    bad = parent / f"x{suffix}"
    before = _files(tmp_path)
    r = runner.invoke(app, _argv(command, param, str(bad), more, tmp_path))
    line = _one_line(r, bad)
    if role != "input":
        assert r.stdout == "", "an output is checked before the work"
        assert _files(tmp_path) == before or role == "folder", _files(tmp_path)
    assert blocker.read_text() == "not a folder\n"
    if where == "missing folder":
        assert "no such" in line.lower(), line


# ------------------------------------------------------------------ optional extras absent
BLOCKER = """
import json, sys

class Absent:
    def __init__(self, names):
        self.names = names

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in self.names:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, Absent(set(sys.argv[1].split(","))))
from typer.testing import CliRunner
from verifier.cli import app

out = []
for argv in json.loads(sys.argv[2]):
    r = CliRunner().invoke(app, argv)
    bad = r.exception is not None and not isinstance(r.exception, SystemExit)
    out.append({"argv": argv, "code": r.exit_code, "stderr": r.stderr,
                "exception": repr(r.exception) if bad else None})
print(json.dumps(out))
"""

MODULES = {"dask": ("dask", "distributed", "pyarrow", "pandas")}
"""The modules an extra brings, where they are not the requirements' own names."""


def _extras() -> dict[str, tuple[str, ...]]:
    """The optional extras of pyproject.toml (not the test tools), with their modules."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = {}
    for name, requirements in project["optional-dependencies"].items():
        if name == "test":
            continue
        modules = {r.split("[")[0].split(">")[0].split("=")[0].strip() for r in requirements}
        extras[name] = tuple(
            sorted({m.replace("-", "_") for m in modules} | set(MODULES.get(name, ())))
        )
    return extras


def _runs(tmp: Path) -> list[tuple[list[str], Path | None]]:
    """Every subcommand once with its usual arguments, and once per output file type, each with
    the path the one line must name (None: a run that must succeed)."""
    runs: list[tuple[list[str], Path | None]] = []
    for command in COMMANDS:
        outputs = [k for k in PATH_PARAMS if k[0] == command and ROLES[k][0] != "input"]
        if all(ROLES[k][0] == "folder" for k in outputs) and command != "study uniqueness":
            runs.append((_argv(command, None, "", (), tmp), None))
        for key in outputs:
            if ROLES[key][0] == "folder":
                continue  # the sweep itself needs no extra (its figures are optional)
            for suffix, more in ROLES[key][1]:
                target = tmp / f"{key[0]}-{key[1]}{suffix or '-dir'}"
                runs.append((_argv(command, key[1], str(target), more, tmp), target))
    runs.append((["solve", str(CASE), "--engine", "dask"], CASE))
    return runs


@pytest.mark.parametrize("extra", sorted(_extras()))
def test_an_absent_extra_is_one_line(extra: str, tmp_path: Path) -> None:
    modules = _extras()[extra]
    parquet = tmp_path / "given.parquet"
    pytest.importorskip("pyarrow")
    r = runner.invoke(app, ["solve", str(CASE), "-o", str(parquet)])
    assert r.exit_code == 0, r.stderr
    runs = [*_runs(tmp_path), (["verify", str(CASE), "--answers", str(parquet)], parquet)]
    needs = {"pyarrow", "dask", "distributed"} & set(modules)
    if not needs:  # a Dask cluster takes seconds to start: tests/test_cli.py runs one
        runs = [(argv, path) for argv, path in runs if "dask" not in argv]
    proc = subprocess.run(
        [sys.executable, "-c", BLOCKER, ",".join(modules), json.dumps([a for a, _ in runs])],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    results = json.loads(proc.stdout)
    for (argv, target), got in zip(runs, results, strict=True):
        svg = any(a.endswith(".svg") for a in argv)  # needs Graphviz's dot, no Python module
        # a missing engine names the case it would solve, or the results folder it would write
        named = {str(p) for p in (target, CASE if "dask" in argv else None) if p is not None}
        assert got["exception"] is None, (argv, got)
        assert "Traceback" not in got["stderr"], (argv, got["stderr"])
        assert got["code"] in (0, 2), (argv, got)
        if got["code"] == 2:
            lines = got["stderr"].strip().splitlines()
            assert len(lines) == 1 and any(p in lines[0] for p in named), (argv, got)
            assert "pip install" in lines[0] or svg, lines[0]
        touches = "dask" in argv or any(a.endswith(".parquet") for a in argv)
        if touches and needs:
            assert got["code"] == 2, (argv, got)
        elif not svg:
            assert got["code"] == 0, (argv, got)
