"""The vectorized numpy engine: the seed algorithms over CSR arrays, a frontier at a time.

Each solver here computes exactly what its seed-faithful reference in ``verifier.solvers``
computes (labels, remoteness, moves, layers, scores, Grundy values), in O(n + m) numpy work
without per-node Python, so that 10^6-node graphs solve in about a second. The registered
wrappers live in ``verifier.solvers.engine_solvers``.
"""

from verifier.engine.attractor import EngineAttractor, attractor_numpy
from verifier.engine.frontier import Csr, Propagation, predecessor_csr, successor_csr
from verifier.engine.grundy import EngineGrundy, grundy_numpy, mex_rows
from verifier.engine.kars import EngineKars, kars_numpy
from verifier.engine.retrograde import EngineRetrograde, retrograde_numpy
from verifier.engine.scc import Condensation, condensation

__all__ = [
    "Condensation",
    "Csr",
    "EngineAttractor",
    "EngineGrundy",
    "EngineKars",
    "EngineRetrograde",
    "Propagation",
    "attractor_numpy",
    "condensation",
    "grundy_numpy",
    "kars_numpy",
    "mex_rows",
    "predecessor_csr",
    "retrograde_numpy",
    "successor_csr",
]
