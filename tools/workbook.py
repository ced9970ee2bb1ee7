#!/usr/bin/env python3
"""The learner's command line for the CUDA Kernel Workbook (the Makefile calls it; so can you).

    python3 tools/workbook.py check 2        grade chapter 2's exercises, print a table
    python3 tools/workbook.py bench          run every built chapter's benchmark, write build/bench/
    python3 tools/workbook.py chapters       list the chapters and their stages
    python3 tools/workbook.py progress       chapters x stages: where you are (build/progress.json)
    python3 tools/workbook.py hint 2 --stage 3    the next hint of a stage
    python3 tools/workbook.py reset 2 [--stage 3] [--level guided]   restore skeletons or switch their level
    python3 tools/workbook.py scaffold       check exercises/ against scaffolds/ and lint the outlines
                                             (--write regenerates exercises/; --level L --output DIR)
    python3 tools/workbook.py watch 2        re-grade the stage you save, on every save
    python3 tools/workbook.py drill [2]      a timed interview drill on a blank stage (--paper: on paper)
    python3 tools/workbook.py plot 2         the chapter's `make bench` ladder as PNG and SVG
    python3 tools/workbook.py profile 5 --stage 4   Nsight Compute counters: your stage 4 beside references 3, 4

Standard library only (plot needs matplotlib). It never writes outside build/ except where a
command says so: reset writes exercises/ (after a backup), drill writes drill/.
This file is the argument parsing only: every command lives in a module of tools/wbtools/ (the
modules are listed in wbtools/__init__.py); `make help` lists the make targets that call them.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from wbtools import bench, chapters, check, drill, hints, i18n, plot, profile, progress  # noqa: E402
from wbtools import reset, scaffold, tune, watch  # noqa: E402
from wbtools.core import UserError  # noqa: E402


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="workbook", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    command = sub.add_parser("check", help="grade one chapter")
    command.add_argument("chapter")
    command.add_argument("--stage", default=os.environ.get("STAGE"))
    command.add_argument("--solutions", action="store_true", help="grade the reference solutions instead")
    command.add_argument("--correctness-only", action="store_true", help="skip the speed checks")
    command.add_argument("--verbose", "-v", action="store_true")
    command.add_argument("--timeout", type=float, default=float(os.environ.get("WORKBOOK_STAGE_TIMEOUT", 300)))
    command.set_defaults(func=check.command_check)
    command = sub.add_parser("bench", help="benchmark every built chapter's reference stages")
    command.add_argument("chapters", nargs="*")
    command.add_argument("--timeout", type=float, default=900)
    command.set_defaults(func=bench.command_bench)
    command = sub.add_parser("chapters", help="list chapters and stages")
    command.set_defaults(func=chapters.command_chapters)
    command = sub.add_parser("help-zh", help="make help in Chinese when WORKBOOK_LANG=zh (exit 3 otherwise)")
    command.set_defaults(func=i18n.command_help)
    command = sub.add_parser("results", help="summarise the WORKBOOK-RESULT lines of a log on standard input")
    command.set_defaults(func=check.command_results)
    add_learner_commands(sub)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except UserError as error:
        print(error, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130


def add_learner_commands(sub) -> None:
    """The learner's tools (tools/wbtools/): progress, hint, reset, watch, drill, plot."""
    timeout = float(os.environ.get("WORKBOOK_STAGE_TIMEOUT", 300))
    command = sub.add_parser("progress", help="chapters x stages: passed, too slow, failing, not started")
    command.add_argument("chapter", nargs="?", help="show this chapter's details only")
    command.set_defaults(func=progress.command_progress)

    command = sub.add_parser("hint", help="the next unseen hint of a stage")
    command.add_argument("chapter", nargs="?", help="default: the first chapter with a stage that has not passed")
    command.add_argument("--stage", help="default: the chapter's first stage that has not passed")
    command.add_argument("--all", action="store_true", help="show every hint of the stage at once")
    command.add_argument("--reset", action="store_true", help="hide the stage's hints again")
    command.set_defaults(func=hints.command_hint)

    command = sub.add_parser("reset", help="restore a chapter's (or one stage's) skeletons, backing up your files")
    command.add_argument("chapter")
    command.add_argument("--stage")
    command.add_argument("--level", help="outline, guided or blank (default: the chapter's last level, else outline)")
    command.add_argument("--force", action="store_true", help="with --level: also replace the stages you changed "
                         "(after a backup)")
    command.set_defaults(func=reset.command_reset)

    command = sub.add_parser("scaffold", help="the scaffold levels: check exercises/ against scaffolds/, lint, "
                             "regenerate")
    command.add_argument("--chapters", nargs="*", type=int)
    command.add_argument("--check", action="store_true", help="only: exercises/ is the outline level")
    command.add_argument("--strict", action="store_true", help="with --check: compare the working tree (CI)")
    command.add_argument("--lint", action="store_true", help="only: no code-level recipe in an outline TODO")
    command.add_argument("--write", action="store_true", help="rewrite exercises/ as the outline level")
    command.add_argument("--level", help="with --output: the level to write")
    command.add_argument("--output", help="write the --level of every stage into this folder")
    command.set_defaults(func=scaffold.command_scaffold)

    command = sub.add_parser("watch", help="grade the stage you edit on every save")
    command.add_argument("chapter")
    command.add_argument("--stage", help="the stage to grade first (default: the first that has not passed)")
    command.add_argument("--poll", action="store_true", help="look at modification times even if inotifywait exists")
    command.add_argument("--rounds", type=int, help=argparse.SUPPRESS)   # stop after N gradings (tests)
    command.add_argument("--timeout", type=float, default=timeout)
    command.set_defaults(func=watch.command_watch)

    command = sub.add_parser("drill", help="a timed drill: a blank stage with only its contract")
    command.add_argument("chapter", nargs="?", help="default: any chapter")
    command.add_argument("--stage", help="default: a stage you have not mastered")
    command.add_argument("--grade", action="store_true", help="grade the running drill once")
    command.add_argument("--stop", action="store_true", help="give up the running drill (its file is kept)")
    command.add_argument("--paper", action="store_true", help="on paper: no compiling or running for a set time, "
                         "then one grading")
    command.add_argument("--minutes", help="paper mode's time (default 20)")
    command.add_argument("--no-wait", action="store_true", help="start or resume, then return at once")
    command.add_argument("--seed", type=int, help=argparse.SUPPRESS)     # reproducible choice (tests)
    command.add_argument("--timeout", type=float, default=timeout)
    command.set_defaults(func=drill.command_drill)

    command = sub.add_parser("plot", help="bar chart of a chapter's `make bench` results and the roofline of its "
                             "`make profile-chapter` counters (PNG and SVG)")
    command.add_argument("chapter")
    command.add_argument("--results", help="default: build/bench/results.json")
    command.add_argument("--out", help="default: build/plots/")
    command.add_argument("--profile", help="default: build/profile/chNN.json (make profile-chapter N): the roofline")
    command.set_defaults(func=plot.command_plot)

    command = sub.add_parser("profile", help="Nsight Compute counters of a stage beside the reference stages")
    command.add_argument("chapter")
    command.add_argument("--stage", help="your stage k beside references k-1 and k (default: every reference stage)")
    command.add_argument("--solutions", action="store_true", help="profile the reference's stage k as the candidate")
    command.add_argument("--markdown", action="store_true", help="print the chapter's table as Markdown (READMEs)")
    command.add_argument("--timeout", type=float, default=600.0, help="seconds per profiled launcher")
    command.set_defaults(func=profile.command_profile)

    command = sub.add_parser("tune", help="the chapter's autotuner: its candidate tile shapes timed on this GPU, "
                             "the fastest kept for it")
    command.add_argument("chapter")
    command.add_argument("--only", help="comma-separated candidate names (the shipped one is always timed too)")
    command.add_argument("--timeout", type=float, default=300.0, help="seconds per candidate")
    command.set_defaults(func=tune.command_tune)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
