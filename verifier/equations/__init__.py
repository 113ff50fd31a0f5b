"""The equations of each semantics as plain arrays, and their fixpoints by propagation: no Z3
here (``verifier.smt`` encodes them for Z3; the checks, the claims and the research read them).

- ``system``: the equations of each semantics over a finite chain of values (``OrderSystem``);
- ``fixpoints``: least / greatest fixpoints by propagation (attractors), Kars' clamp;
- ``rules``: the ranked won/lost and attractor rules as monotone Boolean systems.
"""
