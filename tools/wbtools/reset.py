"""`make reset-chapter N [STAGE=k] [LEVEL=outline|guided|blank] [FORCE=1]`: puts skeletons back, or
switches a chapter's stages to another scaffold level.

The skeletons are generated from the stage's template in scaffolds/ (wbtools/scaffold.py), at the
level asked for, else the level this chapter was last reset to (exercises/.scaffold.json, which git
ignores), else outline. No git history is needed.

A stage whose file is one of the levels (untouched) is rewritten at once. A stage you changed:
  - without LEVEL (start over): your file is copied to exercises/.backup/<date-time>/<chapter>/ (git
    ignores that folder) and the skeleton is written;
  - with LEVEL (switching the scaffolding): it is left alone and the reason is printed (it passed, or you
    changed it); FORCE=1 backs it up and replaces it too.
"""
from __future__ import annotations

import shutil
import time
from pathlib import Path

from . import core, scaffold, ui
from . import state as st


def backup_folder() -> Path:
    base = core.ROOT / "exercises" / ".backup"
    stamp = time.strftime("%Y%m%d-%H%M%S")
    folder = base / stamp
    suffix = 2
    while folder.exists():
        folder = base / f"{stamp}-{suffix}"
        suffix += 1
    return folder


def why_kept(meta: dict, stage: dict, progress: dict) -> str:
    record = st.result(progress, meta["chapter"], stage["id"])
    if st.category(record) in (st.PASSED, st.UNTIMED):
        return f"you solved it (passed {record.get('when', '')})".replace(" )", ")")
    return "you changed it"


def command_reset(args) -> int:
    meta = core.load_chapter(args.chapter)
    wanted = core.stage_ids(meta, getattr(args, "stage", None))
    asked = getattr(args, "level", None)
    level = scaffold.check_level(asked) if asked else scaffold.remembered(meta["chapter"])
    force = bool(getattr(args, "force", False))
    plan = []
    for stage in meta["stages"]:
        if stage["id"] not in wanted:
            continue
        path = core.exercise_path(meta, stage)
        levels = scaffold.all_levels(meta, stage)   # a missing or broken template stops before any change
        current = path.read_text() if path.exists() else None
        plan.append((stage, path, levels, current))

    which = f"stage {wanted[0]} of chapter {meta['chapter']}" if len(wanted) == 1 else f"chapter {meta['chapter']}"
    if asked:
        scaffold.remember(meta["chapter"], level)
    if all(current == levels[level] for _, _, levels, current in plan):
        print(f"Nothing to reset: every file of {which} already is its {level} skeleton.")
        return 0
    progress = st.load()
    backup = backup_folder()
    print(ui.paint(f"Resetting {which} ({meta['title']}) to the {level} level:", "bold"))
    kept = []
    for stage, path, levels, current in plan:
        relpath = core.shown(path)
        was = scaffold.level_of(current, levels) if current is not None else None
        if current == levels[level]:
            print(f"  stage {stage['id']}: {relpath} already is the {level} skeleton, left alone")
            continue
        if current is None:
            saved = "it was missing"
        elif was is not None:
            saved = f"it was the untouched {was} skeleton"
        elif asked and not force:
            reason = why_kept(meta, stage, progress)
            print(f"  stage {stage['id']}: {relpath} skipped: {reason}")
            kept.append(stage["id"])
            continue
        else:
            target = backup / meta["dir"] / path.name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
            if target.read_text() != current:
                raise core.UserError(f"The backup of {relpath} could not be verified ({core.shown(target)}); "
                                     "nothing more was changed.")
            saved = f"your version is in {core.shown(target)}"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(levels[level])
        print(f"  stage {stage['id']}: {relpath} is now the {level} skeleton; {saved}")
    if kept:
        stages = ", ".join(str(k) for k in kept)
        one = f" STAGE={kept[0]}" if len(kept) == 1 else ""
        print(f"\nStage{'s' if len(kept) > 1 else ''} {stages} kept your work. To replace "
              f"{'it' if len(kept) == 1 else 'them'} too (after a backup): "
              f"make reset-chapter {meta['chapter']}{one} LEVEL={level} FORCE=1")
    if asked:
        print(f"Later resets of chapter {meta['chapter']} use the {level} level (LEVEL= changes it).")
    if backup.exists():
        exercises = core.shown(core.ROOT / "exercises" / meta["dir"])
        print(f"\nTo undo: cp {core.shown(backup / meta['dir'])}/*.cu {exercises}/")
    return 0
