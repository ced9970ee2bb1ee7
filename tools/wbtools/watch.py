"""`make watch-chapter N`: grades the stage you are editing every time you save it.

It waits for a save in exercises/NN_name/ (inotifywait from inotify-tools when it is installed,
otherwise it looks at the files' modification times twice a second), rebuilds the chapter's grader,
grades the stage whose file changed, clears the screen and shows the grader's explanation and one
status line. Ctrl-C stops it. Results are recorded like `make check-chapter` does.
"""
from __future__ import annotations

import select
import shutil
import subprocess
import time
from pathlib import Path

from . import core, ui
from . import progress
from . import state as st


class PollingWatcher:
    """Reports the files whose modification time or size changed, looking every `interval` seconds."""

    name = "polling"

    def __init__(self, files: list[Path], interval: float = 0.5):
        self.files = list(files)
        self.interval = interval
        self.seen = self.snapshot()

    def snapshot(self) -> dict:
        found = {}
        for path in self.files:
            try:
                info = path.stat()
                found[path] = (info.st_mtime_ns, info.st_size)
            except OSError:
                found[path] = None
        return found

    def wait(self, timeout: float | None = None) -> list[Path]:
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            time.sleep(self.interval)
            now = self.snapshot()
            changed = [p for p in self.files if now.get(p) != self.seen.get(p) and now.get(p) is not None]
            if changed:
                time.sleep(min(0.2, self.interval))   # let the editor finish writing
                self.seen = self.snapshot()
                return changed
            self.seen = now
            if deadline is not None and time.monotonic() >= deadline:
                return []

    def close(self) -> None:
        pass


class InotifyWatcher:
    """Reports saves in a folder as the kernel announces them (inotifywait -m), filtered to `files`."""

    name = "inotify"

    def __init__(self, folder: Path, files: list[Path]):
        self.folder = folder
        self.names = {p.name: p for p in files}
        self.proc = subprocess.Popen(
            ["inotifywait", "-q", "-m", "-e", "close_write,moved_to", "--format", "%f", str(folder)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
        time.sleep(0.3)
        if self.proc.poll() is not None:
            message = (self.proc.stderr.read() or "").strip().splitlines()
            raise OSError(message[-1] if message else "inotifywait stopped at once")

    def _read_line(self, timeout: float | None) -> str | None:
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            return None
        line = self.proc.stdout.readline()
        if line == "":
            raise OSError("inotifywait stopped")
        return line.strip()

    def wait(self, timeout: float | None = None) -> list[Path]:
        deadline = None if timeout is None else time.monotonic() + timeout
        changed: list[Path] = []
        while not changed:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            name = self._read_line(left)
            if name is None:
                return []
            if name in self.names:
                changed.append(self.names[name])
        while True:   # editors often write twice in a row: collect what follows within 0.3 s
            name = self._read_line(0.3)
            if name is None:
                break
            if name in self.names and self.names[name] not in changed:
                changed.append(self.names[name])
        return changed

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream:
                stream.close()


def make_watcher(folder: Path, files: list[Path], force_polling: bool = False):
    if not force_polling and shutil.which("inotifywait"):
        try:
            return InotifyWatcher(folder, files), ""
        except OSError as error:
            return PollingWatcher(files), (f"inotifywait did not start ({error}); "
                                           "looking at the files twice a second instead")
    note = "" if force_polling else ("inotifywait is not installed (Debian/Ubuntu: inotify-tools), "
                                     "so the files are checked twice a second")
    return PollingWatcher(files), note


def status_line(stage: dict, record: dict, metric: str) -> str:
    """One line: time, stage, verdict, and the numbers that matter."""
    status = record.get("status")
    category = st.category(record)
    parts = [f"stage {stage['id']}: {core.STATUS_TEXT.get(status, status)}"]
    if isinstance(record.get("speedup"), (int, float)):
        needed = core.format_number(record.get("required"), "x{:.2f}")
        parts.append(f"x{record['speedup']:.2f} over the previous stage (needed {needed})")
    if metric == "TFLOP/s" and isinstance(record.get("tflops"), (int, float)):
        pct = core.format_number(record.get("pct_cublas"), " = {:.0f}% of cuBLAS")
        parts.append(f"{record['tflops']:.1f} TFLOP/s{pct if pct != '-' else ''}")
    elif isinstance(record.get("gbps"), (int, float)):
        pct = core.format_number(record.get("pct_copy"), " = {:.0f}% of copy bandwidth")
        parts.append(f"{record['gbps']:.0f} GB/s{pct if pct != '-' else ''}")
    mark = ui.symbol(category) if status != "skipped" else ui.paint("·", "dim")
    return f"[{time.strftime('%H:%M:%S')}] {mark} " + ui.paint(", ".join(parts), ui.color_of(category))


def grade_once(meta: dict, stage: dict, timeout: float, header: str) -> dict:
    """Builds the chapter's grader, grades one stage, prints the screen; returns the result record."""
    ui.clear_screen()
    print(ui.paint(header, "dim"))
    print(ui.paint(f"Chapter {meta['chapter']}, stage {stage['id']}: {stage['title']}", "bold"))
    print("building ...", flush=True)
    ok, output = core.build_target(f"ch{meta['chapter']:02d}")
    if not ok:
        print(core.compile_errors(output))
        print()
        print(f"[{time.strftime('%H:%M:%S')}] {ui.symbol(st.FAILING)} "
              + ui.paint(f"stage {stage['id']}: does not compile (the compiler's messages are above)", "red"))
        return {"stage": stage["id"], "status": "build-failed"}
    grader = core.grader_path(meta, "exercises")
    print("grading ...", flush=True)
    record, output = core.run_stage(grader, stage["id"], timeout)
    status = record.get("status")
    if status == "skipped":
        print(f"Your code compiles. Grading needs an NVIDIA GPU: {record.get('summary', '')}.")
    elif status != "passed":
        text = core.failure_details(output).splitlines()
        print("\n".join(text[-30:]))
        st.record_results(meta["chapter"], {stage["id"]: record})
    else:
        st.record_results(meta["chapter"], {stage["id"]: record})
    print()
    print(status_line(stage, record, meta.get("metric", "GB/s")))
    return record


def command_watch(args) -> int:
    meta = core.load_chapter(args.chapter)
    core.require_configured_build(meta)
    folder = core.ROOT / "exercises" / meta["dir"]
    if not folder.is_dir():
        raise core.UserError(f"{core.shown(folder)} is missing: "
                             f"restore it with `git checkout -- {core.shown(folder)}`.")
    by_path = {core.exercise_path(meta, s): s for s in meta["stages"]}
    if getattr(args, "stage", None) not in (None, ""):
        current = core.find_stage(meta, args.stage)
    else:
        following = progress.next_stage([meta], st.load())
        current = following[1] if following else meta["stages"][-1]
    watcher, note = make_watcher(folder, list(by_path), getattr(args, "poll", False))
    header = (f"make watch-chapter {meta['chapter']}: grading the stage you save in {core.shown(folder)}/ "
              f"({watcher.name}); Ctrl-C stops")
    if note:
        header += "\nnote: " + note
    rounds = getattr(args, "rounds", None)
    graded = 0
    try:
        while True:
            grade_once(meta, current, args.timeout, header)
            graded += 1
            if rounds is not None and graded >= rounds:
                return 0
            print(ui.paint("waiting for you to save a stage file ...", "dim"), flush=True)
            changed = watcher.wait()
            if changed:
                newest = max(changed, key=lambda p: p.stat().st_mtime if p.exists() else 0)
                current = by_path[newest]
    except KeyboardInterrupt:
        print("\nStopped watching. Your results are saved: make progress")
        return 0
    finally:
        watcher.close()
