#!/usr/bin/env python3
"""The parity check of the Chinese edition (ctest tools.zh_parity, part of `make test`).

Every English page has a Simplified Chinese twin, and the two must stay the same lesson:

  chapters/NN_name/README.md    <->  chapters/NN_name/README.zh.md
  chapters/NN_name/stages.json  <->  chapters/NN_name/hints.zh.json
  docs/<page>.md                <->  docs/zh/<page>.md   (mainpage, grading, emulation, tools, occupancy,
                                                          glossary)

For each pair, section by section (a section runs from one heading to the next):
  headings   the same number, levels and order; every anchor {#id}, \\page and \\anchor id identical
  code       every fenced block (```) and \\code ... \\endcode block byte-identical, in the same order
  tables     the same tables with the same rows and columns; the numbers of each row identical and in
             the same order (text is translated, numbers, units like GB/s and x1.31 are not)
  refs       the same \\ref, @ref and \\subpage targets, markdown link targets and images
  formulas   the same \\f$ ... \\f$ and \\f[ ... \\f] formulas
  graphs     the same number of \\dot graphs (their labels may be translated)
  answers    the same number of folded interview answers (\\answer ... \\endanswer)
and for the hints: the same chapter, the same stages in the same order, the same number of hints each.

A difference fails with the file, the section (its English heading) and what differs. A missing Chinese
file fails too, unless docs/zh/untranslated.txt lists it (one line: the path, then the reason); those
are reported. An entry of that list whose file exists is checked all the same.

    python3 tools/zh_parity.py [--root DIR] [PATH ...]   # PATH: only these pairs (either side's path)

Standard library only. Exit status 0 when everything matches, 1 on any difference, 2 on a bad argument.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

DOC_PAGES = ("mainpage", "grading", "emulation", "tools", "occupancy", "glossary")
UNTRANSLATED = Path("docs/zh/untranslated.txt")

HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$")
ANCHOR = re.compile(r"\{#([A-Za-z0-9_.:-]+)\}")
COMMAND_ID = re.compile(r"[\\@](page|anchor|section|subsection|subsubsection)\s+([A-Za-z0-9_.:-]+)")
FENCE = re.compile(r"^\s*(```+|~~~+)")
REF = re.compile(r"[\\@](?:ref|subpage)\s+([A-Za-z0-9_./:#-]+)")
IMAGE_CMD = re.compile(r"[\\@]image\s+\w+\s+(\S+)")
MD_LINK = re.compile(r"!?\[[^\]]*\]\(\s*([^)\s]+)[^)]*\)")
INLINE_MATH = re.compile(r"\\f\$(.*?)\\f\$", re.S)
DISPLAY_MATH = re.compile(r"\\f\[(.*?)\\f\]", re.S)
INLINE_CODE = re.compile(r"(`+)(.+?)\1")
NUMBER = re.compile(r"\d+(?:\.\d+)?")
EMPHASIS = re.compile(r"(?<!\*)\*{1,3}(?!\*)")
TABLE_SEPARATOR = re.compile(r"^\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")


@dataclass
class Section:
    """One heading and what follows it up to the next heading."""
    heading: str                 # the English-side text, as written ("" for what precedes the first)
    level: int
    line: int                    # 1-based line of the heading
    ids: list[str] = field(default_factory=list)
    code: list[str] = field(default_factory=list)
    tables: list[list[tuple[int, list[str]]]] = field(default_factory=list)   # rows: (columns, numbers)
    refs: list[str] = field(default_factory=list)
    images: list[str] = field(default_factory=list)
    formulas: list[str] = field(default_factory=list)
    graphs: int = 0
    answers: int = 0
    prose: list[str] = field(default_factory=list)
    emphasis: list[str] = field(default_factory=list)   # * or ** touching a non-ASCII character


def table_row(line: str) -> tuple[int, list[str]]:
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    cells = re.split(r"(?<!\\)\|", body)
    return len(cells), NUMBER.findall(body)


def parse_markdown(text: str) -> list[Section]:
    """The page cut into sections, with what the parity rules compare in each."""
    sections = [Section(heading="", level=0, line=1)]
    lines = text.splitlines()
    block: list[str] | None = None   # the lines of the code block being read
    block_end = ""                   # the line that closes it: its fence, or \endcode
    in_dot = False
    in_table = False
    for number, line in enumerate(lines, start=1):
        current = sections[-1]
        if block is not None:
            if block_end != "\\endcode" and line.strip() == block_end:
                current.code.append("\n".join(block))
                block = None
            elif block_end == "\\endcode" and "\\endcode" in line:
                block.append(line[:line.index("\\endcode")])   # what precedes it on its line
                current.code.append("\n".join(block))
                block = None
            else:
                block.append(line)
            continue
        if in_dot:
            if re.search(r"\\enddot\b", line):
                in_dot = False
            continue
        fence = FENCE.match(line)
        if fence:
            block, block_end = [line], fence.group(1)
            in_table = False
            continue
        if re.search(r"\\code\b", line):
            start = line.index("\\code")
            rest = line[start + len("\\code"):]
            if "\\endcode" in rest:
                current.code.append(rest[:rest.index("\\endcode")])
            else:
                block, block_end = [rest], "\\endcode"
            continue
        if re.match(r"\s*\\dot\b", line):
            current.graphs += 1
            in_dot = True
            continue
        heading = HEADING.match(line)
        if heading:
            text_part = heading.group(2)
            section = Section(heading=line.strip(), level=len(heading.group(1)), line=number)
            section.ids = ANCHOR.findall(text_part)
            sections.append(section)
            in_table = False
            continue
        current.ids += [f"\\{kind} {ident}" for kind, ident in COMMAND_ID.findall(line)]
        if line.lstrip().startswith("|"):
            if not TABLE_SEPARATOR.match(line.strip()):
                if not in_table:
                    current.tables.append([])
                current.tables[-1].append(table_row(line))
            in_table = True
        else:
            in_table = False
        current.prose.append(line)
    for section in sections:
        prose = "\n".join(section.prose)
        section.formulas = [m.strip() for m in DISPLAY_MATH.findall(prose)] + \
                           [m.strip() for m in INLINE_MATH.findall(prose)]
        prose = INLINE_MATH.sub(" ", DISPLAY_MATH.sub(" ", prose))
        prose = INLINE_CODE.sub(" ", prose)
        section.refs = REF.findall(prose)
        section.images = IMAGE_CMD.findall(prose) + MD_LINK.findall(prose)
        section.answers = len(re.findall(r"\\answer\b", prose))
        for match in EMPHASIS.finditer(prose):
            before = prose[match.start() - 1] if match.start() else " "
            after = prose[match.end()] if match.end() < len(prose) else " "
            # Doxygen opens emphasis only after a space or ASCII punctuation, and closes it only before
            # one: a marker with a Chinese character (or full-width punctuation) on its outside stays text.
            opens = before.isspace() or (before.isascii() and not before.isalnum())
            closes = after.isspace() or (after.isascii() and not after.isalnum())
            if not opens and not closes and not (before.isascii() and after.isascii()):
                line = prose[prose.rfind("\n", 0, match.start()) + 1:prose.find("\n", match.end())]
                if short(line.strip(), 60) not in section.emphasis:
                    section.emphasis.append(short(line.strip(), 60))
    return sections


def describe(section: Section) -> str:
    if not section.heading:
        return "before the first heading"
    return f"section '{section.heading}' (line {section.line})"


def multiset_difference(english: list[str], chinese: list[str]) -> tuple[list[str], list[str]]:
    missing, extra = list(english), []
    for item in chinese:
        if item in missing:
            missing.remove(item)
        else:
            extra.append(item)
    return missing, extra


def short(text: str, width: int = 70) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 3] + "..."


def compare_markdown(english_text: str, chinese_text: str) -> list[str]:
    """The differences between an English page and its Chinese twin, one sentence each."""
    english, chinese = parse_markdown(english_text), parse_markdown(chinese_text)
    problems: list[str] = []
    for section in chinese:
        for line in section.emphasis:
            where = f"section '{section.heading}' (zh line {section.line})" if section.heading else "the top"
            problems.append(f"{where}: * or ** touches a Chinese character in '{line}': Doxygen leaves the "
                            "asterisks as text there; write <b>...</b> or <em>...</em>, or put spaces around")
    for index in range(max(len(english), len(chinese))):
        if index >= len(english):
            extra = chinese[index]
            problems.append(f"heading '{extra.heading}' (zh line {extra.line}) has no English counterpart: "
                            "the Chinese page has more headings than the English one")
            break
        if index >= len(chinese):
            problems.append(f"{describe(english[index])} is missing in Chinese (the Chinese page has "
                            f"{len(chinese) - 1} headings, the English {len(english) - 1})")
            break
        e, z = english[index], chinese[index]
        if e.level != z.level or e.ids != z.ids:
            what = []
            if e.level != z.level:
                what.append(f"level {e.level} in English, {z.level} in Chinese")
            if e.ids != z.ids:
                what.append(f"anchors {e.ids} in English, {z.ids} in Chinese")
            problems.append(f"{describe(e)}: the Chinese heading '{z.heading}' (zh line {z.line}) differs: "
                            + "; ".join(what) + ". Headings must match one for one: later sections not compared")
            break
        problems += compare_sections(e, z)
    return problems


def compare_sections(e: Section, z: Section) -> list[str]:
    where = describe(e)
    problems = []
    if e.ids != z.ids:
        problems.append(f"{where}: ids {e.ids} in English, {z.ids} in Chinese (\\page, \\anchor, \\section ids "
                        "stay identical)")
    if len(e.code) != len(z.code):
        problems.append(f"{where}: {len(e.code)} code block(s) in English, {len(z.code)} in Chinese")
    else:
        for number, (a, b) in enumerate(zip(e.code, z.code), start=1):
            if a != b:
                line = next((i for i, (x, y) in enumerate(zip(a.splitlines(), b.splitlines()), 1) if x != y),
                            min(len(a.splitlines()), len(b.splitlines())) + 1)
                problems.append(f"{where}: code block {number} differs at its line {line} (code blocks stay "
                                "byte-identical, English comments included)")
    if len(e.tables) != len(z.tables):
        problems.append(f"{where}: {len(e.tables)} table(s) in English, {len(z.tables)} in Chinese")
    else:
        for number, (a, b) in enumerate(zip(e.tables, z.tables), start=1):
            if len(a) != len(b):
                problems.append(f"{where}: table {number} has {len(a)} rows in English, {len(b)} in Chinese")
                continue
            for row, ((columns_e, numbers_e), (columns_z, numbers_z)) in enumerate(zip(a, b), start=1):
                if columns_e != columns_z:
                    problems.append(f"{where}: table {number}, row {row}: {columns_e} columns in English, "
                                    f"{columns_z} in Chinese")
                elif numbers_e != numbers_z:
                    problems.append(f"{where}: table {number}, row {row}: numbers {' '.join(numbers_e)} in "
                                    f"English, {' '.join(numbers_z)} in Chinese")
    for what, a, b in (("\\ref/\\subpage targets", e.refs, z.refs), ("images and link targets", e.images, z.images),
                       ("formulas", e.formulas, z.formulas)):
        missing, extra = multiset_difference(a, b)
        if missing or extra:
            parts = []
            if missing:
                parts.append("missing in Chinese: " + ", ".join(short(x) for x in missing))
            if extra:
                parts.append("only in Chinese: " + ", ".join(short(x) for x in extra))
            problems.append(f"{where}: {what} differ; " + "; ".join(parts))
    if e.graphs != z.graphs:
        problems.append(f"{where}: {e.graphs} \\dot graph(s) in English, {z.graphs} in Chinese")
    if e.answers != z.answers:
        problems.append(f"{where}: {e.answers} \\answer block(s) in English, {z.answers} in Chinese")
    return problems


def compare_hints(stages_text: str, hints_text: str) -> list[str]:
    """stages.json against hints.zh.json: the same chapter, stages in the same order, as many hints each."""
    try:
        english = json.loads(stages_text)
    except json.JSONDecodeError as error:
        return [f"stages.json is not valid JSON ({error})"]
    try:
        chinese = json.loads(hints_text)
    except json.JSONDecodeError as error:
        return [f"not valid JSON ({error}): fix the syntax at that line and column"]
    if not isinstance(chinese, dict):
        return ["the top level must be an object: {\"chapter\": N, \"title\": ..., \"stages\": [...]}"]
    problems = []
    if chinese.get("chapter") != english.get("chapter"):
        problems.append(f"\"chapter\" is {chinese.get('chapter')!r}, stages.json says {english.get('chapter')!r}")
    if not isinstance(chinese.get("title"), str) or not chinese.get("title").strip():
        problems.append("\"title\" must be the chapter's title in Chinese (a non-empty string)")
    stages_e = english.get("stages", [])
    stages_z = chinese.get("stages")
    if not isinstance(stages_z, list):
        return problems + ["\"stages\" must be a list, one entry per stage of stages.json, in its order"]
    files_e = [s.get("file") for s in stages_e]
    files_z = [s.get("file") if isinstance(s, dict) else None for s in stages_z]
    if files_e != files_z:
        problems.append(f"the stages differ: stages.json has {files_e}, hints.zh.json has {files_z} "
                        "(same stages, same order)")
        return problems
    for stage_e, stage_z in zip(stages_e, stages_z):
        name = f"stage '{stage_e['file']}'"
        title = stage_z.get("title")
        if not isinstance(title, str) or not title.strip():
            problems.append(f"{name}: \"title\" must be the stage's title in Chinese (a non-empty string)")
        hints_e, hints_z = stage_e.get("hints", []), stage_z.get("hints")
        if not isinstance(hints_z, list) or not all(isinstance(h, str) and h.strip() for h in hints_z):
            problems.append(f"{name}: \"hints\" must be a list of non-empty strings")
        elif len(hints_e) != len(hints_z):
            problems.append(f"{name}: {len(hints_e)} hint(s) in stages.json, {len(hints_z)} in hints.zh.json")
    return problems


def pairs(root: Path) -> list[tuple[Path, Path]]:
    """(English, Chinese) paths relative to root, for every page and chapter."""
    result = []
    for page in DOC_PAGES:
        result.append((Path("docs") / f"{page}.md", Path("docs/zh") / f"{page}.md"))
    for chapter in sorted(p for p in (root / "chapters").iterdir() if (p / "stages.json").is_file()):
        relative = chapter.relative_to(root)
        result.append((relative / "README.md", relative / "README.zh.md"))
        result.append((relative / "stages.json", relative / "hints.zh.json"))
    return result


def read_untranslated(root: Path) -> tuple[dict[str, str], list[str]]:
    """docs/zh/untranslated.txt: {path: reason}, and the problems of the list itself."""
    listed, problems = {}, []
    path = root / UNTRANSLATED
    if not path.is_file():
        return listed, problems
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, _, reason = line.partition(" ")
        if not reason.strip():
            problems.append(f"{UNTRANSLATED}:{number}: '{name}' has no reason: write the path, a space, then why")
        listed[name] = reason.strip()
    return listed, problems


def check(root: Path, only: list[str] | None = None, out=sys.stdout) -> int:
    listed, problems = read_untranslated(root)
    expected = pairs(root)
    known = {str(z) for _, z in expected}
    for name in listed:
        if name not in known:
            problems.append(f"{UNTRANSLATED}: '{name}' is not a Chinese file this check knows "
                            "(a chapter's README.zh.md or hints.zh.json, or docs/zh/<page>.md): remove the line")
    pending, checked = [], 0
    for english, chinese in expected:
        if only and not any(o.rstrip("/") in (str(english), str(chinese)) for o in only):
            continue
        if not (root / english).is_file():
            if (root / chinese).is_file():
                problems.append(f"{chinese}: there is no {english} to compare with: remove it or write the English")
            continue
        if not (root / chinese).is_file():
            if str(chinese) in listed:
                pending.append(f"{chinese} ({listed[str(chinese)]})")
            else:
                problems.append(f"{chinese}: missing: translate {english}, or list it in {UNTRANSLATED} "
                                "with the reason")
            continue
        checked += 1
        english_text = (root / english).read_text(encoding="utf-8")
        chinese_text = (root / chinese).read_text(encoding="utf-8")
        compare = compare_hints if english.suffix == ".json" else compare_markdown
        problems += [f"{chinese}: {p}" for p in compare(english_text, chinese_text)]
    for line in pending:
        print(f"not translated yet: {line}", file=out)
    for line in problems:
        print(f"DIFFERS: {line}", file=out)
    verdict = "OK" if not problems else "FAILED"
    print(f"zh parity {verdict}: {checked} pair(s) checked, {len(pending)} listed as not translated yet, "
          f"{len(problems)} difference(s).", file=out)
    if problems:
        print("Make the Chinese file match the English one where it says (or the English where it changed), "
              "then run `python3 tools/zh_parity.py` again.", file=out)
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=str(Path(__file__).resolve().parent.parent),
                        help="the workbook's root folder (default: this repository)")
    parser.add_argument("paths", nargs="*", help="only the pairs with these files (English or Chinese side)")
    args = parser.parse_args(argv)
    root = Path(args.root)
    if not (root / "chapters").is_dir():
        print(f"{root} has no chapters/ folder: pass the workbook's root with --root.", file=sys.stderr)
        return 2
    return check(root, args.paths)


if __name__ == "__main__":
    sys.exit(main())
