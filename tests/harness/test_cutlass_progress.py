"""harness/cli/cutlass/progress.py: a line per stage in a log, a status line on a terminal."""

from __future__ import annotations

import io

from benchspace.harness.cli.cutlass.progress import Progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_log_gets_a_line_per_stage_and_a_terminal_one_status_line() -> None:
    log = io.StringIO()
    p = Progress("cutlass evaluate", log)
    p.say("fold 1 of 5")
    p.say("fold 2 of 5")
    p.done()
    lines = log.getvalue().splitlines()
    assert [line.split("] ")[1] for line in lines] == ["fold 1 of 5", "fold 2 of 5"]
    assert all(line.startswith("cutlass evaluate: [    0 s] ") for line in lines)
    tty = _Terminal()
    p = Progress("cutlass header", tty)
    p.say("growing the tree")
    p.done()
    text = tty.getvalue()
    assert "\n" not in text and text.startswith("\r[    0 s] growing the tree")
    assert text.endswith("\r" + " " * 78 + "\r")  # the status line is cleared
