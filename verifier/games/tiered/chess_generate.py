"""``verifier generate chess:MATERIAL -o DIR --engine dask``: the tiered generator a chess
endgame's declaration names (``verifier.games.chess.GAME.tiers``), light to import: Dask and the
generation's modules (``tiered.chess``) are imported once the extra is checked."""

from __future__ import annotations

from typing import TYPE_CHECKING

from verifier.errors import UsageError
from verifier.extras import require_extra
from verifier.games.registry import units

if TYPE_CHECKING:
    from verifier.distributed.tiers.commands import GameOptions, Target

__all__ = ["generate_tiers"]


def generate_tiers(game: str, to: Target, options: GameOptions) -> str:
    """``generate chess:MATERIAL -o DIR --engine dask [--symmetry] [--resume]``: every
    material as a tier of a stored graph, generated shard by shard on the workers
    (``tiered.chess``); ``--resume`` continues a generation that stopped after its last
    finished step."""
    from verifier.distributed.tiers.commands import DASK, on_workers, tier_cluster

    output, cluster, per_shard, resume, say = to
    symmetry = options.symmetry
    require_extra(output, "--engine dask", *DASK)
    from verifier.distributed.tiers.driver import prepare_output, resumes
    from verifier.games.chess import parse_material
    from verifier.games.tiered.chess import generate_chess

    material = game.split(":", 1)[1]
    try:
        parse_material(material)
    except ValueError as e:
        raise UsageError(str(e)) from None
    resume = resume and resumes(output)  # a dataset to continue, before a cluster starts
    if not resume:
        prepare_output(output)
    with tier_cluster(cluster) as client:
        m = generate_chess(
            on_workers(output),
            material,
            client,
            symmetric=bool(symmetry),
            per_shard=per_shard,
            resume=resume,
            say=say,
        )
    shards = sum(len(t.shards) for t in m.tiers)
    return (
        f"wrote {output}: chess {m.parameters['material']}, normal, "
        f"{m.parameters['nodes']:,} {units(m)} and {m.parameters['edges']:,} moves in "
        f"{len(m.tiers)} tiers (materials), {shards} shards"
    )
