"""Reading the arrays of an ``.npz`` without trusting the sizes it declares.

``np.load`` decompresses every entry in full before anything can be checked: a 3 MB file of
compressed zeros becomes gigabytes. Here the zip directory and each ``.npy`` header are read
first; an entry is read only if its name is wanted, its dtype holds no Python objects, its
shape times its item size plus its header is exactly the entry's declared uncompressed size,
and the declared sizes together fit the caller's budget. Stored (uncompressed) entries, the
form :func:`~verifier.io.binary.save_npz` writes, are memory-mapped; compressed ones are
decompressed in chunks into an array allocated at the declared size, so a stream that inflates
beyond it is cut off (``zipfile`` stops at the declared size; the CRC is checked at the end).
"""

from __future__ import annotations

import lzma
import math
import struct
import tokenize
import zipfile
import zlib
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, BinaryIO, Literal

import numpy as np
from numpy.typing import NDArray

from verifier.errors import CaseError
from verifier.io.jsonpath import fail

__all__ = ["MAX_ENTRIES", "NpyEntry", "read_npz", "write_npz"]

MAX_ENTRIES = 64
"""A case has seven arrays; an archive with more entries than this is not a case."""
_MAX_HEADER = 10_000
_CHUNK = 1 << 22
_LOCAL_HEADER = struct.Struct("<4s22xHH")
_ZIP_ERRORS = (
    OSError,
    ValueError,
    EOFError,
    zipfile.BadZipFile,
    KeyError,
    struct.error,
    SyntaxError,
    tokenize.TokenError,  # numpy tokenizes a version 1.0 .npy header
    zlib.error,
    lzma.LZMAError,
    NotImplementedError,  # zipfile: an unsupported compression method
    RuntimeError,  # zipfile: an encrypted entry
)


@dataclass(frozen=True)
class NpyEntry:
    """One array of the archive as its headers declare it."""

    name: str
    info: zipfile.ZipInfo
    shape: tuple[int, ...]
    dtype: np.dtype[Any]
    fortran: bool
    offset: int
    """Bytes of ``.npy`` header before the data, inside the entry."""

    @property
    def count(self) -> int:
        """Number of items the shape declares."""
        return math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        """Bytes of data the shape declares."""
        return self.count * self.dtype.itemsize


def read_npz(
    path: Path,
    file: str,
    wanted: Collection[str],
    check: Callable[[dict[str, NpyEntry]], None],
) -> dict[str, NDArray[Any]]:
    """The wanted arrays of the ``.npz`` at ``path``; ``check`` sees their declared entries
    first (and raises to refuse them). Every problem is a ``CaseError`` naming ``file``."""
    problem = ""
    try:
        with zipfile.ZipFile(path) as z:
            entries = _entries(z, file, wanted)
            check(entries)
            return {name: _read(z, path, e, file) for name, e in entries.items()}
    except CaseError:
        raise
    except _ZIP_ERRORS as e:
        problem = " ".join(str(e).split()) or type(e).__name__
    fail(file, (), f"not an .npz case file: {problem}")


def _entries(z: zipfile.ZipFile, file: str, wanted: Collection[str]) -> dict[str, NpyEntry]:
    infos = z.infolist()
    if len(infos) > MAX_ENTRIES:
        fail(file, (), f"not an .npz case file: {len(infos)} entries (a case has at most 7)")
    entries: dict[str, NpyEntry] = {}
    for info in infos:
        name = info.filename.removesuffix(".npy")
        if name not in wanted:
            continue
        if name in entries:
            fail(file, (name,), "the archive holds this array twice")
        entries[name] = _entry(z, info, name, file)
    return entries


def _entry(z: zipfile.ZipFile, info: zipfile.ZipInfo, name: str, file: str) -> NpyEntry:
    with z.open(info) as f:
        version = np.lib.format.read_magic(f)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(f, _MAX_HEADER)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(f, _MAX_HEADER)
        else:
            fail(file, (name,), f"unsupported .npy version {version}")
        entry = NpyEntry(name, info, tuple(shape), dtype, fortran, f.tell())
    if dtype.hasobject or dtype.itemsize == 0 or dtype.kind not in "biuf":
        fail(file, (name,), f"an array of {dtype} (numbers or booleans expected)")
    declared = entry.offset + entry.nbytes
    if declared != info.file_size:
        fail(
            file,
            (name,),
            f"the array header declares {entry.nbytes:,} bytes of {dtype}{entry.shape} but the "
            f"zip entry holds {info.file_size - entry.offset:,}",
        )
    return entry


def _read(z: zipfile.ZipFile, path: Path, e: NpyEntry, file: str) -> NDArray[Any]:
    order: Literal["C", "F"] = "F" if e.fortran else "C"
    if e.nbytes == 0:
        empty: NDArray[Any] = np.zeros(e.shape, dtype=e.dtype)
        return empty
    if e.info.compress_type == zipfile.ZIP_STORED and not e.info.flag_bits & 1:
        with path.open("rb") as raw:
            start = _data_start(raw, e.info) + e.offset
            if raw.seek(0, 2) < start + e.nbytes:
                fail(file, (e.name,), "the file ends inside the array (truncated)")
        mapped: NDArray[Any] = np.memmap(
            path, dtype=e.dtype, mode="r", offset=start, shape=e.shape, order=order
        )
        return mapped
    out = np.empty(e.count, dtype=e.dtype)
    buf = out.view(np.uint8)
    with z.open(e.info) as f:
        f.seek(e.offset)
        done = 0
        while done < e.nbytes:
            chunk = f.read(min(_CHUNK, e.nbytes - done))
            if not chunk:
                fail(file, (e.name,), "the data ends before the declared size (truncated)")
            buf[done : done + len(chunk)] = np.frombuffer(chunk, dtype=np.uint8)
            done += len(chunk)
        f.read(1)  # at the declared end: zipfile checks the CRC
    shaped: NDArray[Any] = out.reshape(e.shape, order=order)
    return shaped


def _data_start(raw: IO[bytes], info: zipfile.ZipInfo) -> int:
    """Offset in the file of an entry's data (after its local header)."""
    raw.seek(info.header_offset)
    magic, name_len, extra_len = _LOCAL_HEADER.unpack(raw.read(_LOCAL_HEADER.size))
    if magic != b"PK\x03\x04":
        raise zipfile.BadZipFile(f"bad local header of {info.filename}")
    return int(info.header_offset + _LOCAL_HEADER.size + name_len + extra_len)


def write_npz(f: BinaryIO, arrays: Mapping[str, Callable[[], NDArray[Any]]]) -> None:
    """Write an uncompressed ``.npz`` (what ``np.savez`` writes: stored zip64 entries of ``.npy``
    arrays) one array at a time: each is made by its function just before it is written and
    dropped after, so the peak holds one array, not all of them."""
    with zipfile.ZipFile(f, mode="w", compression=zipfile.ZIP_STORED, allowZip64=True) as z:
        for name, make in arrays.items():
            data = np.asanyarray(make())
            with z.open(name + ".npy", "w", force_zip64=True) as out:
                np.lib.format.write_array(out, data, allow_pickle=False)
            del data
