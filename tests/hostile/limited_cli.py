"""Run the CLI under an address-space limit: ``python limited_cli.py EXTRA_MB verify FILE...``.

The limit (``RLIMIT_AS``) is the address space in use once the CLI and its dependencies are
imported, plus ``EXTRA_MB`` MB: whatever a command reads must fit in that.
"""

from __future__ import annotations

import resource
import sys

from read_batch import vm_kb

from verifier import cli, pipeline  # noqa: F401 - imported before the limit is set


def main() -> None:
    """Set the limit, then run the CLI with the remaining arguments."""
    extra_mb = int(sys.argv[1])
    limit = vm_kb("VmSize") * 1024 + (extra_mb << 20)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    sys.argv = ["verifier", *sys.argv[2:]]
    cli.main()


if __name__ == "__main__":
    main()
