"""Normal play as one ``round_rules.Rule`` (issue 45: one rule per semantics, no special
cases): what the unified rounds keep of the retrograde rounds they replaced, without a cluster.
The solves themselves (answers node by node, digests, exits into later tiers) are pinned by
``test_graph_tiers.py`` and ``test_chess_tiers.py``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from verifier.model import Semantics

pytest.importorskip("pyarrow")

from verifier.dataset import round_rules, stored_columns
from verifier.dataset.errors import DatasetError
from verifier.dataset.manifest import ShardEntry
from verifier.dataset.round_rules import RULES, initial_state, seed, step
from verifier.dataset.storage import write_answers, write_rule_answers
from verifier.distributed.tiers import graph_tasks, sizing

NORMAL = RULES[Semantics.NORMAL]


def test_normal_answers_are_the_tier_games_files_byte_for_byte(tmp_path: Path) -> None:
    """A normal shard's answers written from the rule's state (``Rule.answers``,
    ``write_rule_answers``) are the file ``storage.write_answers`` writes (same digest), and its
    counts are won, lost, drawn and the longest remoteness."""
    state = {
        "done": np.array([1, -1, 0, 1, 0], dtype=np.int8),
        "rank": np.array([3, 0, -1, 1, -1], dtype=np.int32),
        "counter": np.zeros(5, dtype=np.int32),
    }
    answers = NORMAL.answers(state)
    ours = write_rule_answers(tmp_path / "a", 0, 0, answers)
    theirs = write_answers(tmp_path / "b", 0, 0, (state["done"], state["rank"]))
    assert ours == theirs
    assert NORMAL.columns.counts(answers) == (2, 1, 2, 3)
    assert NORMAL.columns.counts(NORMAL.answers({k: v[:0] for k, v in state.items()})) == (
        0,
        0,
        0,
        -1,
    )


def test_normal_state_is_nine_bytes_a_node_and_round_zero_seeds_the_labelled_dead_ends() -> None:
    """The state is label, remoteness and counter (what ``sizing`` counts: 9 bytes a node, 9
    a message); round 0 decides the dead ends labelled won or lost, a drawn one stays
    undecided, and the messages say the label."""
    nodes = {"terminal": np.array([1, -1, 0, 0], dtype=np.int8)}
    state = initial_state(NORMAL, nodes, np.array([0, 0, 0, 2], dtype=np.int32))
    assert sum(a.itemsize for a in state.values()) == 9
    assert sizing.state_bytes("normal") == (9, 9, False)
    now = seed(NORMAL, state, None, 0, False)
    assert now.tolist() == [0, 1]
    assert state["done"].tolist() == [1, -1, 0, 0] and state["rank"].tolist() == [0, 0, -1, -1]
    assert round_rules.message_values(NORMAL, state, now).tolist() == [1, -1]
    # node 3 (2 moves) hears its move to the lost node 1: won at once, nothing counted down
    decided, _ = step(NORMAL, state, np.array([3]), np.array([-1], np.int8), None, 1)
    assert decided.tolist() == [3] and state["done"][3] == 1 and state["rank"][3] == 1
    assert state["counter"][3] == 2


def test_the_check_side_still_sees_normal_as_labels() -> None:
    """``rule_for`` / ``own_columns`` stay ``None`` for normal (the check side's test for the
    tier games' label files) while ``RULES`` holds its rule for the solve."""
    assert NORMAL.columns.labels and NORMAL.exits
    assert NORMAL.columns is stored_columns.COLUMNS[Semantics.NORMAL]
    assert round_rules.rule_for(Semantics.NORMAL) is None
    assert stored_columns.own_columns("normal") is None
    assert round_rules.rule_for(Semantics.MINIMAX) is RULES[Semantics.MINIMAX]
    assert stored_columns.count_names("normal") == stored_columns.NORMAL_COUNTS
    assert stored_columns.count_names("no such semantics") == stored_columns.NORMAL_COUNTS
    assert stored_columns.count_names("impartial") == ("N", "P", "unfinished", "height")


def test_a_rule_with_decisive_messages_cannot_keep_the_values_seen() -> None:
    """``step`` drops the decisive messages' values: a rule that would need them is refused."""
    from dataclasses import replace

    with pytest.raises(ValueError, match="decisive"):
        replace(RULES[Semantics.IMPARTIAL], decisive=lambda said: said == -1)


@pytest.mark.parametrize("semantics", ["reachability", "minimax", "impartial"])
def test_moves_into_later_tiers_are_refused_but_for_normal(tmp_path: Path, semantics: str) -> None:
    entry = ShardEntry(0, 3, "0" * 64, edges=1, exits=2, exits_sha256="0" * 64)
    with pytest.raises(DatasetError, match=f"semantics normal only, not {semantics}$"):
        graph_tasks.init_rule_shard(str(tmp_path), "run", 0, entry, np.array([0, 3]),
                                    Semantics(semantics))  # fmt: skip
