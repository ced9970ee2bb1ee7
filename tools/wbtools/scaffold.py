"""The three scaffold levels of a stage, generated from its one template in scaffolds/NN_name/<file>.cu.

    outline  the default (what exercises/ holds in a fresh clone): the file header with the pointer to
             the contract, the launcher's signature, and one TODO per kernel that states its goal and
             the stage's idea in a sentence, never a code-level step
    guided   the outline's place taken by the step-by-step skeleton: helpers, kernel signatures and
             TODOs that walk through the solution (for a first pass)
    blank    the header and the launcher's signature only (what `make drill` starts from)

A template is a guided skeleton with markers, each alone on its line (indentation is free):

    //@ guided      the lines up to the next `//@ end` belong to the guided level only
    //@ outline     the lines up to the next `//@ end` belong to the outline level only
    //@ end

Every line outside a marked block belongs to all three levels. Runs of blank lines left by a removed
block become one. So the levels cannot drift apart: the header, the includes and the launchers'
signatures are written once, and whoever changes a template runs
`python3 tools/workbook.py scaffold --write` to regenerate exercises/ (tools.scaffold_sync checks it).

The outline's TODOs must not give the recipe away: `lint` rejects code in them (see RECIPE_PATTERNS).
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

from . import core

LEVELS = ("outline", "guided", "blank")
DEFAULT_LEVEL = "outline"
MARKER_RE = re.compile(r"^\s*//@\s*(\w+)\s*$")


class TemplateError(core.UserError):
    """A template whose markers do not pair up."""


def template_path(meta: dict, stage: dict) -> Path:
    return core.ROOT / "scaffolds" / meta["dir"] / f"{stage['file']}.cu"


def check_level(level: str) -> str:
    if level not in LEVELS:
        raise core.UserError(f"LEVEL={level} is not a scaffold level: use outline (the default: one sentence per "
                             "kernel), guided (step by step) or blank (the contract only).")
    return level


def render(template: str, level: str, where: str = "the template") -> str:
    """The text of one level of a template."""
    check_level(level)
    out: list[str] = []
    block = None
    for number, line in enumerate(template.splitlines(), start=1):
        marker = MARKER_RE.match(line)
        if marker:
            word = marker.group(1)
            if word in ("guided", "outline"):
                if block is not None:
                    raise TemplateError(f"{where}, line {number}: //@ {word} inside a //@ {block} block; close "
                                        "the first with //@ end.")
                block = word
            elif word == "end":
                if block is None:
                    raise TemplateError(f"{where}, line {number}: //@ end without an open //@ guided or "
                                        "//@ outline block.")
                block = None
            else:
                raise TemplateError(f"{where}, line {number}: unknown marker //@ {word}; the markers are "
                                    "//@ guided, //@ outline and //@ end.")
            continue
        if block is None or block == level:
            if not line.strip() and out and not out[-1].strip():
                continue   # a removed block leaves no double blank line
            out.append(line.rstrip())
    if block is not None:
        raise TemplateError(f"{where}: the //@ {block} block is never closed with //@ end.")
    while out and not out[-1].strip():
        out.pop()
    return "\n".join(out) + "\n"


def template_text(meta: dict, stage: dict) -> str:
    path = template_path(meta, stage)
    try:
        return path.read_text()
    except OSError:
        raise core.UserError(f"The template {core.shown(path)} of chapter {meta['chapter']}, stage {stage['id']} "
                             "is missing: restore it with `git checkout -- scaffolds/`.")


def generate(meta: dict, stage: dict, level: str) -> str:
    return render(template_text(meta, stage), level, core.shown(template_path(meta, stage)))


def all_levels(meta: dict, stage: dict) -> dict[str, str]:
    template = template_text(meta, stage)
    where = core.shown(template_path(meta, stage))
    return {level: render(template, level, where) for level in LEVELS}


def level_of(text: str, levels: dict[str, str]) -> str | None:
    """Which level a file's text is (None: changed by the learner)."""
    return next((level for level, generated in levels.items() if generated == text), None)


# ---- the level remembered per chapter (exercises/.scaffold.json, which git ignores) ----------------

def settings_path() -> Path:
    return core.ROOT / "exercises" / ".scaffold.json"


def remembered(chapter: int) -> str:
    try:
        data = json.loads(settings_path().read_text())
        level = data.get(str(chapter)) if isinstance(data, dict) else None
    except (OSError, ValueError):
        return DEFAULT_LEVEL
    return level if level in LEVELS else DEFAULT_LEVEL


def remember(chapter: int, level: str) -> None:
    path = settings_path()
    try:
        data = json.loads(path.read_text())
        data = data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        data = {}
    data[str(chapter)] = level
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


# ---- the lint of the outline level -----------------------------------------------------------------

# What an outline TODO must not hold: each pattern with the reason it is a code-level recipe.
RECIPE_PATTERNS = [
    (re.compile(r"__shfl|_sync\b"), "a shuffle or sync intrinsic"),
    (re.compile(r"\b(threadIdx|blockIdx|blockDim|gridDim|warpSize)\b"), "a thread or block index"),
    (re.compile(r"<<<|>>>"), "a launch configuration"),
    (re.compile(r"\b(for|while|if|switch)\s*\("), "a loop or branch"),
    (re.compile(r"\w\s*\["), "an index expression"),
    (re.compile(r"\w\s*(\+=|-=|\*=|/=|%|\*|/|\+|==|<=|>=|<<|>>)\s*\w"), "index arithmetic"),
    (re.compile(r"\b[A-Za-z_]\w*\("), "a function call"),
    (re.compile(r"::"), "a qualified name"),
    (re.compile(r"\bk[A-Z]\w*"), "a named constant of the solution"),
    (re.compile(r"\b0x[0-9a-fA-F]+\b"), "a mask"),
    (re.compile(r"(?<![\w.])\d+(\.\d+)?\b"), "a number (an offset, a bound or a size)"),
]


def outline_todos(text: str) -> list[tuple[int, str]]:
    """Each TODO comment of a file as (its first line, its text joined over its continuation lines)."""
    todos: list[tuple[int, str]] = []
    current = None
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        comment = stripped[2:].strip() if stripped.startswith("//") else None
        if comment is not None and re.match(r"^TODO\b", comment):
            current = [number, comment]
            todos.append(current)
        elif comment and current is not None and todos and todos[-1] is current and not comment.startswith("@"):
            current[1] += " " + comment
        else:
            current = None
    return [(n, t) for n, t in todos]


def recipe_problems(text: str, where: str) -> list[str]:
    """One sentence per TODO of an outline that holds a code-level recipe."""
    problems = []
    todos = outline_todos(text)
    if not todos:
        problems.append(f"{where} has no TODO: the outline level states each kernel's goal in a TODO.")
    for number, todo in todos:
        body = re.sub(r"`[^`]*stream[^`]*`", "stream", todo)   # the launcher's stream parameter, by name
        body = re.sub(r"\bstages? \d+(, \d+)*( and \d+)?", "stage", body)
        body = re.sub(r"\bchapters? \d+", "chapter", body)
        body = re.sub(r"\b(fp|bf)(16|32)\b|\b\d+-bit\b|\bfloat[24]\b|\bhalf2\b|\bC\+\+\d+\b", "type", body)
        for pattern, reason in RECIPE_PATTERNS:
            found = pattern.search(body)
            if found:
                problems.append(f"{where}:{number}: the outline TODO holds {reason} ({found.group(0).strip()!r}): "
                                "say the goal and the idea in words, leave the code to the learner.")
                break
    return problems


def outline_block_problems(template: str, where: str) -> list[str]:
    """An outline block holds comments only: then the blank level is the outline without its comments, and
    compiles and behaves as the outline does (which exercises/ tests)."""
    problems, inside = [], False
    for number, line in enumerate(template.splitlines(), start=1):
        marker = MARKER_RE.match(line)
        if marker:
            inside = marker.group(1) == "outline"
            continue
        if inside and line.strip() and not line.strip().startswith("//"):
            problems.append(f"{where}:{number}: an //@ outline block holds code; it holds the TODO sentences only "
                            "(code for every level goes outside the blocks).")
    return problems


def kernel_count(meta: dict, stage: dict) -> int:
    try:
        return len(re.findall(r"__global__", core.solution_path(meta, stage).read_text()))
    except OSError:
        return 0


# ---- commands -----------------------------------------------------------------------------------

def stages(chapter_numbers: list[int] | None) -> list[tuple[dict, dict]]:
    metas = core.all_chapters()
    if chapter_numbers:
        metas = [core.load_chapter(n) for n in chapter_numbers]
    return [(meta, stage) for meta in metas for stage in meta["stages"]]


def in_git_clone() -> bool:
    if shutil.which("git") is None:
        return False
    proc = subprocess.run(["git", "-C", str(core.ROOT), "rev-parse", "--is-inside-work-tree"], capture_output=True)
    return proc.returncode == 0


def git_show(revision: str, relpath: str) -> str | None:
    proc = subprocess.run(["git", "-C", str(core.ROOT), "show", f"{revision}:./{relpath}"], capture_output=True)
    return proc.stdout.decode(errors="replace") if proc.returncode == 0 else None


def git_last_commit(relpath: str) -> str | None:
    proc = subprocess.run(["git", "-C", str(core.ROOT), "log", "-1", "--format=%H", "--", relpath],
                          capture_output=True, text=True)
    commit = proc.stdout.strip() if proc.returncode == 0 else ""
    return commit or None


def git_unchanged(relpath: str) -> bool:
    proc = subprocess.run(["git", "-C", str(core.ROOT), "diff", "--quiet", "HEAD", "--", relpath],
                          capture_output=True)
    return proc.returncode == 0


def sync_problems(meta: dict, stage: dict, strict: bool) -> tuple[list[str], str | None]:
    """Does exercises/ hold the template's outline? Returns (problems, a note on a stage left unchecked).

    strict (CI): the file in the working tree must be the outline. Otherwise the learner's edits are
    not errors: the exercise as committed together with the template's last change must be the outline
    (whoever changes a template regenerates exercises/ in the same commit); a template changed but not
    yet committed is compared with the working tree."""
    template_rel = template_path(meta, stage).relative_to(core.ROOT).as_posix()
    exercise = core.exercise_path(meta, stage)
    exercise_rel = exercise.relative_to(core.ROOT).as_posix()
    outline = generate(meta, stage, "outline")
    current = exercise.read_text() if exercise.exists() else None
    fix = "regenerate it with `python3 tools/workbook.py scaffold --write`"
    if strict or current == outline:
        if current != outline:
            return [f"{exercise_rel} is not the outline level of {template_rel}: {fix}."], None
        return [], None
    level = level_of(current or "", all_levels(meta, stage))
    if not in_git_clone():
        return [], f"{exercise_rel}: {'level ' + level if level else 'changed by you'} (not a git clone)"
    commit = git_last_commit(template_rel) if git_unchanged(template_rel) else None
    if commit is None:
        if level is not None:
            return [], f"{exercise_rel}: level {level}"
        return [f"{exercise_rel} is not the outline level of {template_rel} (changed but not committed): {fix}."], None
    committed = git_show(commit, exercise_rel)
    if committed != outline:
        return [f"{exercise_rel} as committed with {template_rel} (commit {commit[:7]}) is not its outline level: "
                f"{fix}, and commit both together."], None
    return [], f"{exercise_rel}: {'level ' + level if level else 'changed by you'}, the committed file is checked"


def command_scaffold(args) -> int:
    """`python3 tools/workbook.py scaffold [--write | --check [--strict] | --lint] [--chapters ...]`,
    or `--level L --output DIR`: write every stage's level L into DIR/NN_name/<file>.cu."""
    todo = stages(args.chapters or None)
    if args.output:
        level = check_level(args.level or DEFAULT_LEVEL)
        written = 0
        for meta, stage in todo:
            target = Path(args.output) / meta["dir"] / f"{stage['file']}.cu"
            text = generate(meta, stage, level)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)   # always: the build's rule that runs this sees its outputs newer
            written += 1
        print(f"scaffold: the {level} level of {written} stages is in {args.output}.")
        return 0
    if args.write:
        changed = 0
        for meta, stage in todo:
            path = core.exercise_path(meta, stage)
            text = generate(meta, stage, "outline")
            if not path.exists() or path.read_text() != text:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
                changed += 1
                print(f"  wrote {core.shown(path)}")
        print(f"scaffold: {changed} of {len(todo)} exercise files rewritten to their outline level.")
        return 0
    problems: list[str] = []
    notes: list[str] = []
    for meta, stage in todo:
        try:
            levels = all_levels(meta, stage)
        except core.UserError as error:
            problems.append(str(error))
            continue
        where = f"{core.shown(template_path(meta, stage))} (outline level)"
        if args.lint or not args.check:
            problems += recipe_problems(levels["outline"], where)
            problems += outline_block_problems(template_text(meta, stage), core.shown(template_path(meta, stage)))
            kernels = kernel_count(meta, stage)
            todos = len(outline_todos(levels["outline"]))
            if todos < kernels:
                problems.append(f"{where} has {todos} TODOs for the {kernels} kernels of the solution: one TODO "
                                "per kernel states its goal.")
            for level in ("blank",):
                if "TODO" in levels[level]:
                    problems.append(f"{core.shown(template_path(meta, stage))}: the {level} level holds a TODO; "
                                    "mark that line //@ guided or //@ outline.")
        if args.check or not args.lint:
            found, note = sync_problems(meta, stage, args.strict)
            problems += found
            if note:
                notes.append(note)
    for note in notes:
        print(f"  not compared (working tree): {note}")
    for problem in problems:
        print(problem)
    what = "lint" if args.lint and not args.check else "check" if args.check and not args.lint else "check and lint"
    if problems:
        print(f"scaffold {what}: {len(problems)} problem(s) in {len(todo)} stages.")
        return 1
    print(f"scaffold {what}: {len(todo)} stages, no problem.")
    return 0
