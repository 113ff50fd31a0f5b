"""``python -m verifier.cli ARGS``: the ``verifier`` command."""

from verifier.cli import main

main()
