"""Mutations of case documents for the property tests (shared by the io test modules)."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import strategies as st

from verifier.io.models import CompactCaseModel, ExpectModel, NodeModel, ReadableCaseModel

FIELD_NAMES = sorted(
    {
        *ReadableCaseModel.model_fields,
        *CompactCaseModel.model_fields,
        *NodeModel.__annotations__,
        *ExpectModel.model_fields,
        "src",
        "dst",
        "positions",
        "name",
    }
)
NODE_NAMES = ["a", "b", "c", "x", "g", "h0", "0", "1", "3", "9", "zz"]
INTERESTING = [
    None,
    True,
    False,
    0,
    1,
    -1,
    2,
    1.5,
    -0.0,
    2**53 + 1,
    10**30,
    -(10**400),
    float("nan"),
    float("inf"),
    "",
    "max",
    "min",
    "win",
    "won",
    "inf",
    "inf(0,2)",
    "compact",
    "readable",
    "minimax",
    "normal",
    "reachability",
    "impartial",
    *NODE_NAMES,
    [],
    {},
    [0, 1],
    {"src": [0], "dst": [0]},
    {"moves": ["a"]},
]

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=4)
    | st.sampled_from(INTERESTING).map(copy.deepcopy),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=6,
)
keys = st.sampled_from(FIELD_NAMES + NODE_NAMES) | st.text(max_size=4)


def containers(doc: Any) -> list[tuple[Any, ...]]:
    """Paths of every object and list inside ``doc`` (the root included)."""
    out: list[tuple[Any, ...]] = []
    stack: list[tuple[Any, tuple[Any, ...]]] = [(doc, ())]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            out.append(path)
            stack.extend((v, (*path, k)) for k, v in node.items())
        elif isinstance(node, list):
            out.append(path)
            stack.extend((v, (*path, i)) for i, v in enumerate(node))
    return out


def at(doc: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        doc = doc[step]
    return doc


def mutate(doc: Any, data: st.DataObject) -> Any:
    paths = containers(doc)
    if not paths:
        return data.draw(json_values)
    node = at(doc, data.draw(st.sampled_from(paths)))
    if isinstance(node, dict):
        op = data.draw(st.sampled_from(["delete", "rename", "set", "set-existing"]))
        existing = list(node)
        if op == "delete" and existing:
            del node[data.draw(st.sampled_from(existing))]
        elif op == "rename" and existing:
            old = data.draw(st.sampled_from(existing))
            node[data.draw(keys)] = node.pop(old)
        elif op == "set-existing" and existing:
            node[data.draw(st.sampled_from(existing))] = data.draw(json_values)
        else:
            node[data.draw(keys)] = data.draw(json_values)
    else:
        op = data.draw(st.sampled_from(["drop", "duplicate", "insert", "replace", "reverse"]))
        if op == "drop" and node:
            node.pop(data.draw(st.integers(0, len(node) - 1)))
        elif op == "duplicate" and node:
            node.append(copy.deepcopy(node[data.draw(st.integers(0, len(node) - 1))]))
        elif op == "replace" and node:
            node[data.draw(st.integers(0, len(node) - 1))] = data.draw(json_values)
        elif op == "reverse":
            node.reverse()
        else:
            node.insert(data.draw(st.integers(0, len(node))), data.draw(json_values))
    return doc
