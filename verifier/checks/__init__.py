"""Checks that judge the solvers' answers without Z3: agreement between solvers, the case's
``expect`` block, and (registered, like the Z3 checks under ``verifier.smt``) the
Sprague-Grundy checks that compare with an independent computation."""
