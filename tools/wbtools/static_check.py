"""`make selfcheck-static` (`python3 tools/selfcheck.py --static`): the workbook's files against its
metadata, with no build and no GPU, in the spirit of rustlings' `dev check`:

  stages     every stage of stages.json has its template (scaffolds/), exercise and solution file
  unlisted   no .cu file in scaffolds/, exercises/ or solutions/ that stages.json does not list
  skeletons  every exercise holds at least one TODO marker, the place the learner starts writing
             (that an untouched skeleton says "not implemented yet" is checked by running it: the
             ctest tests labelled "skeletons")
  launchers  every launcher is named `<op>_<file stem>` and is declared in the chapter's stages.cuh
  catalog    every catalog entry has a valid name and header (wbtools.catalog) and names a real stage
  paths      no file names a path of the machine it was written on

One sentence per problem; the exit status is 1 when there is any.
"""
from __future__ import annotations

import getpass
import os
import re
import subprocess
from pathlib import Path

from . import catalog, core

TODO_RE = re.compile(r"\bTODO\b")
SKIPPED_FOLDERS = {".git", "drill", "__pycache__", ".backup"}


def stage_files(meta: dict) -> list[str]:
    """Problems of the chapter's stage files: missing, unlisted, skeletons without a TODO."""
    problems = []
    listed = {f"{stage['file']}.cu" for stage in meta["stages"]}
    for track in ("scaffolds", "exercises", "solutions"):
        folder = core.ROOT / track / meta["dir"]
        for stage in meta["stages"]:
            path = folder / f"{stage['file']}.cu"
            if not path.is_file():
                problems.append(f"{track}/{meta['dir']}/{path.name} is missing: stage {stage['id']} of chapter "
                                f"{meta['chapter']} is listed in chapters/{meta['dir']}/stages.json.")
            elif track == "exercises" and not TODO_RE.search(path.read_text(errors="replace")):
                problems.append(f"{track}/{meta['dir']}/{path.name} has no TODO: a skeleton marks where the "
                                "learner writes with at least one TODO comment.")
        for path in sorted(folder.glob("*.cu")) if folder.is_dir() else []:
            if path.name not in listed:
                problems.append(f"{track}/{meta['dir']}/{path.name} is not a stage of chapters/{meta['dir']}/"
                                "stages.json: list it there or remove it.")
    return problems


def launchers(meta: dict) -> list[str]:
    """Problems of the launcher names: the rule `<op>_<file stem>`, and the declaration in stages.cuh."""
    problems = []
    header = core.ROOT / "chapters" / meta["dir"] / "stages.cuh"
    declared = header.read_text(errors="replace") if header.is_file() else ""
    if not meta.get("op") and not all(stage.get("op") for stage in meta["stages"]):
        problems.append(f"chapters/{meta['dir']}/stages.json gives no \"op\" for the chapter: its launchers cannot "
                        "be checked against the rule <op>_<file stem>.")
    for stage in meta["stages"]:
        name = core.launcher(meta, stage)
        op = stage.get("op") or meta.get("op")
        where = f"chapter {meta['chapter']} stage {stage['id']}"
        if op and name != f"{op}_{stage['file']}":
            problems.append(f"{where}: the launcher {name} breaks the rule <op>_<file stem>: it should be "
                            f"{op}_{stage['file']}.")
        if not re.search(rf"\b{re.escape(name)}\s*\(", declared):
            problems.append(f"{where}: the launcher {name} is not declared in chapters/{meta['dir']}/stages.cuh.")
    return problems


def catalog_entries(metas: list[dict]) -> list[str]:
    problems = []
    chapters = {meta["dir"]: meta for meta in metas}
    root = core.ROOT / "catalog"
    for folder in sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []:
        meta = chapters.get(folder.name)
        if meta is None and (core.ROOT / "chapters" / folder.name / "stages.json").exists():
            continue   # a chapter whose stages.json has a problem, said once already
        if meta is None:
            problems.append(f"catalog/{folder.name}/ is not the folder of a chapter (chapters/<NN_name>/stages.json).")
            continue
        ids = [stage["id"] for stage in meta["stages"]]
        for path in sorted(folder.glob("*.cu")):
            try:
                entry = catalog.parse(path)
            except catalog.CatalogError as error:
                problems.append(str(error))
                continue
            if entry.stage not in ids:
                problems.append(f"catalog/{folder.name}/{path.name}: chapter {meta['chapter']} has no stage "
                                f"{entry.stage}.")
    return problems


def workbook_files() -> list[Path]:
    """The files that are (or would be) committed: git's list when there is one, else a walk that skips
    build folders and the learner's drill files."""
    try:
        proc = subprocess.run(["git", "-C", str(core.ROOT), "ls-files", "--cached", "--others", "--exclude-standard"],
                              capture_output=True, text=True, timeout=60)
        if proc.returncode == 0 and proc.stdout.strip():
            return [core.ROOT / line for line in proc.stdout.splitlines() if (core.ROOT / line).is_file()]
    except (OSError, subprocess.SubprocessError):
        pass
    found = []
    for folder, subfolders, files in os.walk(core.ROOT):
        subfolders[:] = [d for d in subfolders if d not in SKIPPED_FOLDERS and not d.startswith("build")]
        found += [Path(folder) / name for name in files]
    return found


def machine_paths() -> list[str]:
    """Paths of this machine that a committed file must not name: the workbook's own folder, the home
    folder, /home/<this user>/ and the shared work folder. (Made-up paths such as /home/someone/... in
    the tests of the path shortening are fine: they name no real place.)"""
    paths = {str(core.ROOT) + "/", "/" + "work/"}   # in two pieces, so that this file does not name it
    home = str(Path.home())
    if home not in ("/", ""):
        paths.add(home.rstrip("/") + "/")
    try:
        paths.add(f"/home/{getpass.getuser()}/")
    except (KeyError, OSError):
        pass
    return sorted(paths)


def local_paths() -> list[str]:
    problems = []
    paths = machine_paths()
    for path in workbook_files():
        if path.suffix in (".png", ".svg", ".pdf", ".jpg", ".ico") or path.name == "progress.json":
            continue
        try:
            text = path.read_text(errors="strict")
        except (OSError, UnicodeDecodeError):
            continue   # binary
        for number, line in enumerate(text.splitlines(), 1):
            found = next((p for p in paths if p in line), None)
            if found:
                problems.append(f"{core.shown(path)}:{number} names {found}, a path of this machine: "
                                "write it relative to the workbook.")
                break
    return problems


def problems() -> list[str]:
    metas, found = [], []
    for folder in core.chapter_dirs():
        try:
            metas.append(core.read_meta(folder))   # the one reader: its checks, one sentence each
        except core.UserError as error:
            found.append(str(error))
    for meta in metas:
        found += stage_files(meta) + launchers(meta)
    return found + catalog_entries(metas) + local_paths()


def main() -> int:
    try:
        found = problems()
    except core.UserError as error:
        found = [str(error)]
    for sentence in found:
        print(sentence)
    chapters = len(core.chapter_dirs()) if (core.ROOT / "chapters").is_dir() else 0
    print(f"selfcheck --static: {chapters} chapters, "
          + ("no problems." if not found else f"{len(found)} problem{'s' if len(found) > 1 else ''}."))
    return 1 if found else 0
