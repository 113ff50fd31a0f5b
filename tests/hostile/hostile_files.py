"""Hostile input files, written on demand (the big ones are never committed): decompression and
zip bombs, sizes that lie, huge literals, entity expansion, pathological nesting.

``python tests/hostile/hostile_files.py DIR`` writes them all into ``DIR``.
"""

from __future__ import annotations

import io
import json
import sys
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np

BOMB_ZEROS = 100 << 22
"""Items of the zero-filled ``succ_idx`` of the decompression bomb (4.2 * 10^8: 1.7 GB as
int32, the issue's bomb)."""


def _npy_header(dtype: str, shape: tuple[int, ...]) -> bytes:
    """The ``.npy`` (version 1.0) header of an array, padded as numpy pads it."""
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buf, {"descr": dtype, "fortran_order": False, "shape": shape}
    )
    return buf.getvalue()


def _npy(a: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, a, allow_pickle=False)
    return buf.getvalue()


def _header(semantics: str = "impartial") -> np.ndarray:
    text = json.dumps({"format": "gamegraph-verifier-case", "version": 1, "semantics": semantics})
    return np.frombuffer(text.encode(), dtype=np.uint8)


def _small_arrays(n: int) -> dict[str, bytes]:
    return {
        "header.npy": _npy(_header()),
        "succ_ptr.npy": _npy(np.zeros(n + 1, dtype=np.int32)),
        "owner.npy": _npy(np.full(n, -1, dtype=np.int8)),
        "value.npy": _npy(np.full(n, np.nan)),
        "target.npy": _npy(np.zeros(n, dtype=np.bool_)),
    }


_ZEROS_CHUNK = 1 << 24


def _deflate_head_and_zeros(head: bytes, zeros: int) -> tuple[bytes, int]:
    """Raw deflate of ``head`` then ``zeros`` zero bytes (a multiple of 16 MiB), and its CRC-32.

    After a full flush the compressor starts afresh, so every 16 MiB block of zeros deflates to
    the same bytes: the block is compressed once and repeated (seconds, not minutes).
    """
    assert zeros % _ZEROS_CHUNK == 0
    chunk = bytes(_ZEROS_CHUNK)
    comp = zlib.compressobj(9, zlib.DEFLATED, -15)
    first = comp.compress(head) + comp.flush(zlib.Z_FULL_FLUSH)
    block = comp.compress(chunk) + comp.flush(zlib.Z_FULL_FLUSH)
    last = comp.flush(zlib.Z_FINISH)
    crc = zlib.crc32(head)
    for _ in range(zeros // _ZEROS_CHUNK):
        crc = zlib.crc32(chunk, crc)
    return first + block * (zeros // _ZEROS_CHUNK) + last, crc


def _write_raw_entry(
    zf: zipfile.ZipFile, name: str, head: bytes, zeros: int, declared: int | None = None
) -> None:
    """Append a deflated entry ``head`` + ``zeros`` zero bytes whose size field says
    ``declared`` (default: the truth), without inflating it in memory."""
    data, crc = _deflate_head_and_zeros(head, zeros)
    size = len(head) + zeros if declared is None else declared
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    info.file_size = size
    info.compress_size = len(data)
    info.CRC = crc
    fp = zf.fp
    assert fp is not None
    info.header_offset = fp.tell()
    fp.write(info.FileHeader(zip64=size > zipfile.ZIP64_LIMIT))
    fp.write(data)
    zf.start_dir = fp.tell()
    zf.filelist.append(info)
    zf.NameToInfo[name] = info


def npz_bomb(path: Path, zeros: int = BOMB_ZEROS) -> Path:
    """The issue's bomb: a few MB whose compressed ``succ_idx`` holds ``zeros`` int32 zeros."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in _small_arrays(1).items():
            zf.writestr(name, data)
        _write_raw_entry(zf, "succ_idx.npy", _npy_header("<i4", (zeros,)), zeros * 4)
    return path


def npz_lying_bomb(path: Path, zeros: int = 1 << 30) -> Path:
    """A deflate stream of ``zeros`` zero bytes in an entry that declares 1 kB (a zip bomb that
    lies about its size)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in _small_arrays(1).items():
            zf.writestr(name, data)
        head = _npy_header("<i4", (256,))
        _write_raw_entry(zf, "succ_idx.npy", head, zeros, declared=len(head) + 1024)
    return path


def npz_shape_lies(path: Path) -> Path:
    """A stored entry whose ``.npy`` header declares 10^12 items over 8 bytes of data."""
    arrays = _small_arrays(1)
    arrays["succ_idx.npy"] = _npy_header("<i8", (10**12,)) + bytes(8)
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in arrays.items():
            zf.writestr(name, data)
    return path


def npz_many_entries(path: Path, entries: int = 5000) -> Path:
    """A zip of thousands of tiny entries (a directory bomb)."""
    with zipfile.ZipFile(path, "w") as zf:
        for i in range(entries):
            zf.writestr(f"e{i}.npy", b"")
    return path


def npz_pickle(path: Path) -> Path:
    """An object array (a pickle) in place of ``succ_idx``."""
    arrays = _small_arrays(1)
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.array([object()], dtype=object), allow_pickle=True)
    arrays["succ_idx.npy"] = buf.getvalue()
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in arrays.items():
            zf.writestr(name, data)
    return path


def json_huge_literal(path: Path, digits: int = 100_000) -> Path:
    """A readable case whose value is an integer literal of ``digits`` digits."""
    big = "9" * digits
    path.write_text(f'{{"semantics": "minimax", "nodes": {{"a": {{"value": {big}}}}}}}')
    return path


def json_huge_node_id(path: Path, digits: int = 5000) -> Path:
    """A compact case whose edge list holds a node id of ``digits`` digits."""
    big = "9" * digits
    path.write_text(
        '{"semantics": "impartial", "encoding": "compact", "nodes": 2, '
        f'"edges": {{"src": [0, {big}], "dst": [1, 0]}}}}'
    )
    return path


def json_huge_nodes(path: Path) -> Path:
    """A compact case that declares 2^31 - 1 nodes in a few bytes."""
    path.write_text(
        '{"semantics": "impartial", "encoding": "compact", "nodes": 2147483647, '
        '"edges": {"src": [0], "dst": [1]}}'
    )
    return path


def json_deep_nesting(path: Path, depth: int = 100_000) -> Path:
    """A case whose description is a list nested ``depth`` deep."""
    path.write_text(
        '{"semantics": "normal", "nodes": {"a": {}}, "x": ' + "[" * depth + "]" * depth + "}"
    )
    return path


def graphml_entities(path: Path) -> Path:
    """GraphML with a billion-laughs entity expansion."""
    lol = "".join(f'<!ENTITY l{i} "{("&l" + str(i - 1) + ";") * 10}">' for i in range(1, 10))
    path.write_text(
        '<?xml version="1.0"?>\n'
        f'<!DOCTYPE graphml [<!ENTITY l0 "lol">{lol}]>\n'
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">'
        '<key id="d0" for="graph" attr.name="semantics" attr.type="string"/>'
        '<graph edgedefault="directed"><data key="d0">&l9;</data>'
        '<node id="a"/></graph></graphml>\n'
    )
    return path


def graphml_deep_nesting(path: Path, depth: int = 100_000) -> Path:
    """GraphML with elements nested ``depth`` deep."""
    path.write_text(
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><graph edgedefault="directed">'
        + "<x>" * depth
        + "</x>" * depth
        + "</graph></graphml>\n"
    )
    return path


def gml_deep_nesting(path: Path, depth: int = 100_000) -> Path:
    """GML with lists nested ``depth`` deep."""
    path.write_text("graph [ directed 1 " + "a [ " * depth + "] " * depth + "]\n")
    return path


def gml_huge_literal(path: Path, digits: int = 100_000) -> Path:
    """GML with an integer literal of ``digits`` digits."""
    path.write_text(
        'graph [ directed 1 semantics "impartial" node [ id 0 label "a" value '
        + "9" * digits
        + " ] ]\n"
    )
    return path


HOSTILE: dict[str, Callable[[Path], Path]] = {
    "bomb.npz": npz_bomb,
    "lying-bomb.npz": npz_lying_bomb,
    "shape-lies.npz": npz_shape_lies,
    "many-entries.npz": npz_many_entries,
    "pickle.npz": npz_pickle,
    "huge-literal.json": json_huge_literal,
    "huge-node-id.json": json_huge_node_id,
    "huge-nodes.json": json_huge_nodes,
    "deep-nesting.json": json_deep_nesting,
    "entities.graphml": graphml_entities,
    "deep-nesting.graphml": graphml_deep_nesting,
    "deep-nesting.gml": gml_deep_nesting,
    "huge-literal.gml": gml_huge_literal,
}
"""Every generated hostile file, by file name."""


def write_all(folder: Path) -> list[Path]:
    """Write every hostile file into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    return [make(folder / name) for name, make in HOSTILE.items()]


if __name__ == "__main__":
    for p in write_all(Path(sys.argv[1] if len(sys.argv) > 1 else ".")):
        print(p, p.stat().st_size)
