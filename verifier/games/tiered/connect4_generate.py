"""``verifier generate connect4 -o DIR --engine dask``: the tiered generator Connect Four's
declaration names (``verifier.games.connect4.GAME.tiers``), light to import: Dask and the
generation's modules are imported once the extra is checked."""

from __future__ import annotations

from typing import TYPE_CHECKING

from verifier.errors import UsageError
from verifier.extras import require_extra
from verifier.games.registry import units

if TYPE_CHECKING:
    from verifier.distributed.tiers.commands import GameOptions, Target

__all__ = ["generate_tiers"]


def generate_tiers(game: str, to: Target, options: GameOptions) -> str:
    """``generate connect4 -o DIR --engine dask [--resume]``: write the tiered dataset on the
    cluster (or continue writing it)."""
    from verifier.distributed.tiers.commands import DASK, on_workers, tier_cluster

    output, cluster, per_shard, resume, say = to
    require_extra(output, "--engine dask", *DASK)
    from verifier.distributed.tiers.driver import generate_dataset, prepare_output, resumes
    from verifier.games.tiered.connect4 import ConnectFourTiers

    try:
        tiers = ConnectFourTiers(
            options.width or 4, options.height or 4, symmetric=bool(options.symmetry)
        )
    except ValueError as e:
        raise UsageError(str(e)) from None
    if resume and per_shard is not None:
        raise UsageError("--resume keeps the dataset's shard size: drop --shard-positions")
    resume = resume and resumes(output)  # bad input before a cluster starts
    if not resume:
        prepare_output(output)
    with tier_cluster(cluster) as client:
        m = generate_dataset(
            on_workers(output), tiers, client, per_shard=per_shard, resume=resume, say=say
        )
    positions = sum(t.positions for t in m.tiers)
    shards = sum(len(t.shards) for t in m.tiers)
    return (
        f"wrote {output}: connect4 {tiers.width}x{tiers.height}, normal, {positions:,} "
        f"{units(m)} in {len(m.tiers)} tiers, {shards} shards"
    )
