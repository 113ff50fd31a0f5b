"""Reading and writing cases: JSON (readable and compact), ``.npz``, GraphML / GML, networkx.

The CLI calls :func:`load_any`; every malformed input raises :class:`~verifier.errors.CaseError`
with a one-line message ``FILE: $.json.path: what is wrong``.
"""

from verifier.io.binary import load_npz, save_npz
from verifier.io.case_json import (
    case_from_data,
    case_to_dict,
    case_to_text,
    dump_case,
    load_case,
    parse_case,
)
from verifier.io.formats import SUFFIXES, load_any, save_any
from verifier.io.limits import Limits
from verifier.io.networkx_io import (
    case_from_networkx,
    from_networkx,
    read_graph_file,
    to_networkx,
    write_graph_file,
)

__all__ = [
    "SUFFIXES",
    "Limits",
    "case_from_data",
    "case_from_networkx",
    "case_to_dict",
    "case_to_text",
    "dump_case",
    "from_networkx",
    "load_any",
    "load_case",
    "load_npz",
    "parse_case",
    "read_graph_file",
    "save_any",
    "save_npz",
    "to_networkx",
    "write_graph_file",
]
