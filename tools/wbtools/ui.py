"""Terminal output: colours (only on a terminal, never with NO_COLOR), symbols with an ASCII
fallback for terminals that cannot show them, the progress bar, durations."""
from __future__ import annotations

import os
import re
import sys
import time

from . import i18n
from . import state as st

_CODES = {"green": "32", "yellow": "33", "red": "31", "dim": "2", "bold": "1", "cyan": "36"}


def color_enabled(stream=None) -> bool:
    stream = stream or sys.stdout
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    if os.environ.get("WORKBOOK_COLOR") == "1":
        return True
    return hasattr(stream, "isatty") and stream.isatty()


def paint(text: str, color: str, stream=None) -> str:
    if not color or not color_enabled(stream):
        return text
    return f"\033[{_CODES[color]}m{text}\033[0m"


_ANSI = re.compile(r"\033\[[0-9;]*m")


def visible_len(text: str) -> int:
    return i18n.width(_ANSI.sub("", text))   # CJK characters take two columns


def pad(text: str, width: int, right: bool = False) -> str:
    gap = " " * max(0, width - visible_len(text))
    return gap + text if right else text + gap


def unicode_ok(stream=None) -> bool:
    stream = stream or sys.stdout
    encoding = getattr(stream, "encoding", None)
    if not encoding:          # an in-memory stream holds any text
        return True
    try:
        "✔✘◐·█░".encode(encoding)
        return True
    except (LookupError, UnicodeEncodeError):
        return False


def symbol(category: str) -> str:
    fancy = unicode_ok()
    table = {
        st.PASSED: ("✔" if fancy else "P", "green"),
        st.TOO_SLOW: ("◐" if fancy else "s", "yellow"),
        st.UNTIMED: ("○" if fancy else "c", "cyan"),
        st.FAILING: ("✘" if fancy else "F", "red"),
        st.NOT_STARTED: ("·" if fancy else ".", "dim"),
    }
    mark, color = table[category]
    return paint(mark, color)


def color_of(category: str) -> str:
    return {st.PASSED: "green", st.TOO_SLOW: "yellow", st.UNTIMED: "cyan", st.FAILING: "red",
            st.NOT_STARTED: "dim"}[category]


def bar(done: int, total: int, width: int = 40) -> str:
    fraction = done / total if total else 0.0
    filled = int(round(fraction * width))
    if unicode_ok():
        full, empty_cell = "█", "░"
    else:
        full, empty_cell = "#", "-"
    return "[" + paint(full * filled, "green") + empty_cell * (width - filled) + "]"


def duration(seconds: float) -> str:
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    if minutes:
        return f"{minutes}m{secs:02d}s"
    return f"{secs}s"


def clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 60:02d}:{seconds % 60:02d}" if seconds < 3600 else \
        f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


def when(epoch: float | None, now: float | None = None) -> str:
    """A short, readable time: 'today 14:02', 'yesterday 09:10' or '2026-11-19'."""
    if not isinstance(epoch, (int, float)):
        return "-"
    now = time.time() if now is None else now
    day = time.strftime("%Y-%m-%d", time.localtime(epoch))
    if day == time.strftime("%Y-%m-%d", time.localtime(now)):
        return i18n.tr("today") + " " + time.strftime("%H:%M", time.localtime(epoch))
    if day == time.strftime("%Y-%m-%d", time.localtime(now - 86400)):
        return i18n.tr("yesterday") + " " + time.strftime("%H:%M", time.localtime(epoch))
    return day


def clear_screen() -> None:
    if sys.stdout.isatty():
        sys.stdout.write("\033[2J\033[H")
        sys.stdout.flush()
