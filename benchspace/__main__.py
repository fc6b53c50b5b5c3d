"""``python -m benchspace`` and the ``benchspace`` console script.

The stop signals are handled first thing, before anything heavy is imported: a SIGINT,
SIGTERM or SIGHUP that arrives while the command starts, or while it shuts down after the
sweep's own handler is gone (a second signal), ends the process with exit 128 + n and no
traceback; a command stopped by a signal ends at once with 128 + n, without the interpreter's
finalization, during which the default handlers are back. Nothing needs cleaning at those
moments: no benchmark runs outside the sweep's handler (harness/execute/reaper.py), which
replaces this one while the command works.
"""

try:
    import os
    import signal

    # At once, before the module's other lines: a stop signal from here on exits 128 + n.
    for _signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(_signum, lambda signum, frame: os._exit(128 + signum))
except KeyboardInterrupt:  # a SIGINT while `signal` itself was loading: stop, no traceback
    raise SystemExit(130) from None

import contextlib
import sys
from types import FrameType

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def _stop(signum: int, frame: FrameType | None) -> None:
    os._exit(128 + signum)  # no unwinding: there is nothing to unwind, and no traceback


def install() -> None:
    """Exit 128 + n on a stop signal (until a command installs its own handler)."""
    for signum in STOP_SIGNALS:
        signal.signal(signum, _stop)


def main() -> int:
    """The console script's entry point."""
    install()
    from benchspace.harness.cli import main as cli_main

    code = cli_main()
    if code > 128:
        # Stopped by a signal and unwound already: end now, as the interpreter's finalization
        # restores the default handlers, and a further signal then would kill the process by
        # the signal (no 128 + n) in whichever thread it lands (OpenBLAS's, the store's).
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        os._exit(code)
    return code


if __name__ == "__main__":
    install()
    sys.exit(main())
