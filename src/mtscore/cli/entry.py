"""The console entry point of ``mtscore`` and ``python -m mtscore``.

It imports nothing heavy itself: the interrupt handling is in place *before* the command-line layer (numpy,
scipy, the commands) is imported, so Ctrl-C at any moment -- during those imports too -- ends with the one
line ``mtscore: interrupted`` and exit 130, never a Python traceback (mtscore.cli.main handles everything
that happens once it runs)."""
from __future__ import annotations

import sys

EXIT_INTERRUPTED = 130  # as mtscore.cli.main.EXIT_INTERRUPTED


def main(argv=None) -> int:
    try:
        from .main import main as run  # heavy: numpy, the parameter layer (a test hook interrupts it here)
        return run(argv)
    except KeyboardInterrupt:
        try:
            sys.stderr.write("mtscore: interrupted\n")
            sys.stderr.flush()
        except (OSError, ValueError, AttributeError):  # stderr closed: the exit code still tells
            pass
        return EXIT_INTERRUPTED
