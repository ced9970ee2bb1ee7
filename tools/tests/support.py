"""What the tools' tests share: a private copy of chapter 1 to write into, a private build folder,
recorded grader output, and a way to run the command line the way the Makefile does.

No test touches the workbook's own build/, exercises/ or drill/ folders.
"""
from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

TESTS = Path(__file__).resolve().parent
TOOLS = TESTS.parent
REPO = TOOLS.parent
FIXTURES = TESTS / "fixtures"
sys.path.insert(0, str(TOOLS))

from wbtools import core  # noqa: E402

CHAPTER = "01_elementwise"


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text()


def make_root(parent: Path) -> Path:
    """A minimal workbook: chapter 1's metadata, contract, templates, skeletons and solutions."""
    root = parent / "workbook"
    for folder in ("chapters", "scaffolds", "exercises", "solutions"):
        shutil.copytree(REPO / folder / CHAPTER, root / folder / CHAPTER)
    return root


class WorkbookTest(unittest.TestCase):
    """Each test gets a temporary folder, core.ROOT (a copy of chapter 1 when `copy_root`, else the
    repository read-only) and core.BUILD (always a fresh empty folder)."""

    copy_root = False

    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="wbtools-test-"))
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        self.root = make_root(self.tmp) if self.copy_root else REPO
        self.build = self.tmp / "build"
        self.build.mkdir()
        saved = (core.ROOT, core.BUILD)
        core.ROOT, core.BUILD = self.root, self.build
        self.addCleanup(lambda: setattr(core, "ROOT", saved[0]) or setattr(core, "BUILD", saved[1]))
        os.environ["NO_COLOR"] = "1"

    def capture(self, function, *args, **kwargs) -> tuple[object, str, str]:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            value = function(*args, **kwargs)
        return value, out.getvalue(), err.getvalue()

    def cli(self, *args: str, env: dict | None = None, stdin: str | None = None,
            python: str = sys.executable) -> subprocess.CompletedProcess:
        """Runs tools/workbook.py in its own process, as `make` does."""
        full_env = dict(os.environ, WORKBOOK_ROOT=str(self.root), WORKBOOK_BUILD=str(self.build), NO_COLOR="1",
                        PYTHONIOENCODING="utf-8")
        full_env.update(env or {})
        return subprocess.run([python, str(TOOLS / "workbook.py"), *args], capture_output=True, text=True,
                              env=full_env, input=stdin, timeout=120)


class Args:
    """A stand-in for argparse's namespace."""

    def __init__(self, **values):
        self.timeout = 60.0
        self.__dict__.update(values)
