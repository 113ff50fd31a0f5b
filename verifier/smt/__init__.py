"""The Z3 cross-check layer: every solver's answer checked against an encoding of its rules.

Modules (``docs/smt.md`` describes each encoding and check, and the theory behind them):

- ``verifier.equations`` (no Z3) holds what they encode: ``system`` (the equations of each
  semantics, ``OrderSystem``), ``fixpoints`` (least / greatest fixpoints by propagation, Kars'
  clamp) and ``rules`` (the ranked won/lost and attractor rules as monotone Boolean systems);
- ``encode``, ``cnf``: the Boolean order encoding as DIMACS, and running Z3 on it;
- ``ranks``: the same rules with integer ranks (small graphs);
- ``common``: solver answers, witnesses, batching in reverse topological order of the SCCs;
- the registered checks: ``equations`` (smt-equations), ``uniqueness`` (smt-uniqueness),
  ``kars`` (smt-kars-least), ``wonlost`` (smt-won-lost), ``region`` (smt-attractor),
  ``strategy`` (smt-strategy); ``mex`` and ``theorems`` hold the Sprague-Grundy checks.
"""
