"""`make reset-chapter N [STAGE=k]`: puts the original skeletons back, after a backup of your files.

Where the skeleton comes from: git's history of the exercise file. Your own commits must not count
as "the skeleton" (you may have committed your work), so the newest version committed by someone
else (the workbook's authors) is taken; when every commit of the file is yours (for example a copy
you put under git yourself), the version of the commit that added the file. Your current file is
copied to exercises/.backup/<date-time>/<chapter>/ first (git ignores that folder); a stage whose
file already is the skeleton is left alone. Nothing is changed when git cannot answer.
"""
from __future__ import annotations

import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from . import core, ui


@dataclass
class Version:
    commit: str
    email: str
    date: str
    subject: str

    def describe(self) -> str:
        return f"commit {self.commit[:7]} of {self.date}, \"{self.subject[:60]}\""


def git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(core.ROOT), *args], capture_output=True)


def require_git() -> None:
    if shutil.which("git") is None:
        raise core.UserError("reset-chapter finds the original skeletons in git's history, and git is not installed "
                             "(Debian/Ubuntu: sudo apt-get install git); nothing was changed.")
    if git("rev-parse", "--is-inside-work-tree").returncode != 0:
        raise core.UserError("reset-chapter finds the original skeletons in git's history, and this copy of the "
                             "workbook is not a git clone (clone it with git to get them back); nothing was changed.")


def my_email() -> str | None:
    """The e-mail address git puts on commits made here (None when git has no identity)."""
    proc = git("var", "GIT_AUTHOR_IDENT")
    if proc.returncode != 0:
        return None
    ident = proc.stdout.decode(errors="replace")
    if "<" in ident and ">" in ident:
        return ident[ident.index("<") + 1:ident.index(">")].strip().lower()
    return None


def versions(relpath: str) -> list[Version]:
    """Commits that touched the file, newest first."""
    proc = git("log", "--format=%H%x1f%ae%x1f%ad%x1f%s", "--date=short", "--", relpath)
    if proc.returncode != 0:
        return []
    found = []
    for line in proc.stdout.decode(errors="replace").splitlines():
        parts = line.split("\x1f")
        if len(parts) == 4:
            found.append(Version(parts[0], parts[1].strip().lower(), parts[2], parts[3]))
    return found


def original_skeleton(relpath: str) -> tuple[bytes, Version]:
    history = versions(relpath)
    if not history:
        raise core.UserError(f"{relpath} is not in git's history, so its skeleton cannot be found; "
                             "nothing was changed.")
    me = my_email()
    candidates = [v for v in history if me is None or v.email != me]
    candidates.append(history[-1])            # the commit that added the file
    for version in candidates:
        proc = git("show", f"{version.commit}:./{relpath}")
        if proc.returncode == 0:
            return proc.stdout, version
    raise core.UserError(f"git could not show any committed version of {relpath}; nothing was changed.")


def backup_folder() -> Path:
    base = core.ROOT / "exercises" / ".backup"
    stamp = time.strftime("%Y%m%d-%H%M%S")
    folder = base / stamp
    suffix = 2
    while folder.exists():
        folder = base / f"{stamp}-{suffix}"
        suffix += 1
    return folder


def command_reset(args) -> int:
    meta = core.load_chapter(args.chapter)
    wanted = core.stage_ids(meta, getattr(args, "stage", None))
    require_git()
    plan = []
    for stage in meta["stages"]:
        if stage["id"] not in wanted:
            continue
        path = core.exercise_path(meta, stage)
        relpath = path.relative_to(core.ROOT).as_posix()
        skeleton, version = original_skeleton(relpath)
        current = path.read_bytes() if path.exists() else None
        plan.append((stage, path, relpath, skeleton, version, current))

    changed = [p for p in plan if p[5] != p[3]]
    which = f"stage {wanted[0]} of chapter {meta['chapter']}" if len(wanted) == 1 else f"chapter {meta['chapter']}"
    if not changed:
        print(f"Nothing to reset: every file of {which} already is its skeleton.")
        return 0
    backup = backup_folder()
    print(ui.paint(f"Resetting {which} ({meta['title']}):", "bold"))
    for stage, path, relpath, skeleton, version, current in plan:
        if current == skeleton:
            print(f"  stage {stage['id']}: {relpath} already is the skeleton, left alone")
            continue
        if current is not None:
            target = backup / meta["dir"] / path.name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
            if target.read_bytes() != current:
                raise core.UserError(f"The backup of {relpath} could not be verified ({core.shown(target)}); "
                                     "nothing more was changed.")
            saved = f"your version is in {core.shown(target)}"
        else:
            saved = "it was missing"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(skeleton)
        print(f"  stage {stage['id']}: {relpath} restored ({version.describe()}); {saved}")
    if backup.exists():
        exercises = core.shown(core.ROOT / "exercises" / meta["dir"])
        print(f"\nTo undo: cp {core.shown(backup / meta['dir'])}/*.cu {exercises}/")
    return 0
