"""Research tools: the structure of the solution set of a case's equations
(``verifier.research.uniqueness``)."""
