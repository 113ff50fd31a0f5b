"""A stranger's table of claims aligned with a tiered dataset's shards on the cluster
(``verify DIR --engine dask --answers A``): the files routed to the shards owning each code,
then each shard's claims aligned with its codes, one task per file and per shard
(``dataset.tables`` reads, routes and aligns; the checks that judge the claims are in
``dataset.judge`` and ``dataset.judge_graph``, run by ``check`` and ``graph_check``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from verifier.dataset.manifest import Manifest
from verifier.dataset.rules import TierGame
from verifier.dataset.shape import Owners
from verifier.dataset.tables import (
    OUTCOMES,
    Claims,
    TableValues,
    align_shard,
    route_file,
    table_columns,
    table_files,
)
from verifier.distributed.tiers.supervise import gather_tier, share

__all__ = ["align_table"]


def align_table(
    client: Any,
    root: Path,
    scratch: Path,
    game: TierGame,
    m: Manifest,
    answers: Path,
    owners: Owners,
    run: dict[str, Any],
    note: Any,
    say: Any,
    values: TableValues = OUTCOMES,
) -> Claims:
    """Route a stranger's table to the shards and align it (the coverage check); its values
    read and stored as ``values`` says (``Claims.read`` reads normal's)."""
    paths = table_files(answers)
    has = table_columns(paths, values)
    files = [str(p) for p in paths]
    codes_refs = [[(s.positions, s.sha256) for s in t.shards] for t in m.tiers]
    owned = share(client, owners)
    routed = gather_tier(
        client,
        [
            client.submit(route_file, str(scratch), game, i, f, owned, has, values, pure=False)
            for i, f in enumerate(files)
        ],
        what="reading the answers",
        **run,
    )
    pieces: dict[tuple[int, int], list[str]] = {}
    for got, extra, w in routed:
        note("coverage", extra, w)
        for k, s, p in got:
            pieces.setdefault((k, s), []).append(p)
    if say is not None:
        say(f"read {len(files)} file(s) of answers")
    aligned = gather_tier(
        client,
        [
            client.submit(
                align_shard,
                str(root),
                str(scratch),
                t.tier,
                s.shard,
                codes_refs[t.tier][s.shard],
                pieces.get((t.tier, s.shard), []),
                files,
                values,
                pure=False,
            )
            for t in m.tiers
            for s in t.shards
        ],
        what="aligning the answers",
        **run,
    )
    shas: list[list[tuple[int, str | None]]] = [[] for _ in m.tiers]
    i = 0
    for t in m.tiers:
        for s in t.shards:
            missing, extra, w_missing, w_extra, sha = aligned[i]
            i += 1
            note("coverage", missing, w_missing)
            note("coverage", extra, w_extra)
            shas[t.tier].append((s.positions, sha))
    return Claims(
        str(scratch), False, tuple(tuple(x) for x in shas), remoteness=has[0], moves=has[1]
    )
