"""Read every file of a folder with ``load_any`` in this process, under a memory limit.

``python tests/hostile/read_batch.py FOLDER EXTRA_MB [CASE]`` sets ``RLIMIT_AS`` to the address
space in use after the imports plus 4 D + ``EXTRA_MB`` MB (D: the largest file of the folder), then
prints one JSON line per file: ``{"file", "outcome": "case" | "error" | "crash", "message"}``
and a last line ``{"peak_mb", "limit_mb"}``. A crash is anything but a ``Case`` (or, with a
``CASE`` file, answers for it: the files are then answer files) or a ``CaseError``: the fuzz
tests assert there is none.
"""

from __future__ import annotations

import json
import resource
import sys
import traceback
from pathlib import Path

from verifier.errors import CaseError
from verifier.io import load_any
from verifier.io.answers import Answers, load_answers
from verifier.model import Case

_MB = 1 << 20


def vm_kb(field: str) -> int:
    """A ``Vm*`` field of ``/proc/self/status`` in kB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise LookupError(field)


def outcome(path: Path, for_case: Case | None = None) -> dict[str, str]:
    """What reading ``path`` gave (as answers for ``for_case`` when given)."""
    try:
        got: object = load_any(path) if for_case is None else load_answers(path, for_case)
    except CaseError as e:
        return {"outcome": "error", "message": str(e)}
    except BaseException as e:
        text = "".join(traceback.format_exception(e))
        return {"outcome": "crash", "message": f"{type(e).__name__}: {e}"[:500], "trace": text}
    want = Case if for_case is None else Answers
    kind = "case" if isinstance(got, want) else "crash"
    return {"outcome": kind, "message": type(got).__name__}


def main(folder: Path, extra_mb: int, case_file: Path | None = None) -> None:
    """Read the folder's files under the limit; print the outcomes."""
    for_case = load_any(case_file) if case_file is not None else None
    files = sorted(p for p in folder.iterdir() if p.is_file())
    largest = max((p.stat().st_size for p in files), default=0)
    limit = vm_kb("VmSize") * 1024 + 4 * largest + extra_mb * _MB
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    for p in files:
        print(json.dumps({"file": p.name, **outcome(p, for_case)}), flush=True)
    print(json.dumps({"peak_mb": vm_kb("VmPeak") // 1024, "limit_mb": limit // _MB}))


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3]) if len(sys.argv) > 3 else None)
