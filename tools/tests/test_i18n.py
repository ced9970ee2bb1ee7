"""The learner tools in Chinese (WORKBOOK_LANG=zh or a zh_* locale): the one message table (wbtools/i18n.py),
hints and titles from hints.zh.json, English for whatever is not translated, never a crash."""
from __future__ import annotations

import ast
import os
import re
import shutil
import unittest
from unittest import mock

from support import FIXTURES, REPO, TOOLS, Args, WorkbookTest

from wbtools import check, core, hints, i18n, progress
from wbtools import state as st


class Language(unittest.TestCase):
    def test_choice(self):
        cases = [({"WORKBOOK_LANG": "zh"}, "zh"), ({"WORKBOOK_LANG": "en", "LANG": "zh_CN.UTF-8"}, "en"),
                 ({"LANG": "zh_CN.UTF-8"}, "zh"), ({"LC_ALL": "zh_TW.UTF-8", "LANG": "en_US.UTF-8"}, "zh"),
                 ({"LC_ALL": "C.UTF-8", "LANG": "zh_CN.UTF-8"}, "en"), ({}, "en")]
        for env, expected in cases:
            with mock.patch.dict(os.environ, env, clear=True):
                self.assertEqual(i18n.lang(), expected, env)

    def test_every_message_the_tools_print_is_in_the_table(self):
        missing = []
        for path in sorted((TOOLS / "wbtools").glob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "tr" and node.args:
                    first = node.args[0]
                    texts = [first] if isinstance(first, ast.Constant) else \
                        [first.body, first.orelse] if isinstance(first, ast.IfExp) else []
                    missing += [f"{path.name}: {t.value!r}" for t in texts if t.value not in i18n.ZH]
        self.assertEqual(missing, [])

    def test_every_status_word_has_its_chinese_form(self):
        words = list(core.STATUS_TEXT.values()) + [st.PASSED, st.TOO_SLOW, st.FAILING, st.NOT_STARTED, st.UNTIMED]
        self.assertEqual([w for w in words if w not in i18n.STATUS], [])
        with mock.patch.dict(os.environ, {"WORKBOOK_LANG": "zh"}):
            self.assertEqual(i18n.status("correct, too slow"), "正确但太慢")
            self.assertEqual(i18n.status("a word nobody translated"), "a word nobody translated")
        with mock.patch.dict(os.environ, {"WORKBOOK_LANG": "en"}):
            self.assertEqual(i18n.status("crashed"), "crashed")

    def test_missing_message_falls_back_to_english(self):
        with mock.patch.dict(os.environ, {"WORKBOOK_LANG": "zh"}):
            self.assertEqual(i18n.tr("Not in the table {n}", n=3), "Not in the table 3")
            self.assertEqual(i18n.tr("Chapter {chapter}: {title}", chapter=2, title="归约"), "第 2 章：归约")

    def test_the_status_table_of_the_tools_page_is_this_table(self):
        for page in ("docs/tools.md", "docs/zh/tools.md"):
            text = (REPO / page).read_text(encoding="utf-8")
            section = text[text.index("{#tools_language}"):text.index("## make progress")]
            rows = re.findall(r"^\| ([a-z][^|]*?) \| ([^|]*?) \|$", section, re.M)
            self.assertEqual(len(rows), len(i18n.STATUS) - 1, page)   # all but the bare "wrong"
            for english, chinese in rows:
                self.assertEqual(i18n.STATUS.get(english), chinese, f"{page}: {english}")

    def test_width_counts_cjk_twice(self):
        self.assertEqual(i18n.width("ab归约"), 6)
        self.assertEqual(i18n.clip("归约abc", 3), "归")
        self.assertEqual(i18n.width(i18n.ljust("通过", 6)), 6)


class ChineseTools(WorkbookTest):
    copy_root = True

    def setUp(self):
        super().setUp()
        patcher = mock.patch.dict(os.environ, {"WORKBOOK_LANG": "zh"})
        patcher.start()
        self.addCleanup(patcher.stop)

    def add_translation(self):
        shutil.copy(FIXTURES / "hints.zh.ch01.json", self.root / "chapters/01_elementwise/hints.zh.json")

    def hint(self, stage: str) -> str:
        code, out, _ = self.capture(hints.command_hint, Args(chapter="1", stage=stage, all=False, reset=False))
        self.assertEqual(code, 0)
        return out

    def test_hint_prints_the_chinese_hint_and_title(self):
        self.add_translation()
        out = self.hint("2")
        self.assertIn("第 1 章，第 2 步：float4 加法：16 字节访存，标量收尾", out)
        self.assertIn("提示 1/2：测试提示乙一：用 float4 读取。", out)
        self.assertIn("还剩 1 条提示", out)
        self.assertNotIn("Hint", out)

    def test_a_stage_missing_from_the_translation_shows_english_hints(self):
        self.add_translation()
        out = self.hint("3")
        english = core.find_stage(core.read_meta(self.root / "chapters/01_elementwise"), 3)
        self.assertIn(english["title"], out)
        self.assertIn("提示 1/3：", out)
        self.assertIn(" ".join(english["hints"][0].split()[:3]), " ".join(out.split()))

    def test_no_translation_at_all_is_english_text_with_chinese_labels(self):
        out = self.hint("1")
        self.assertIn("第 1 章，第 1 步：naive add, one thread per element", out)

    def test_progress_is_chinese(self):
        self.add_translation()
        st.record_results(1, {1: {"stage": 1, "status": "passed", "speedup": 1.4, "required": 1.2},
                              2: {"stage": 2, "status": "too-slow", "speedup": 1.0, "required": 1.2}})
        code, out, _ = self.capture(progress.command_progress, Args(chapter=None))
        self.assertEqual(code, 0)
        self.assertIn("CUDA Kernel Workbook：你的进度", out)
        self.assertIn("逐元素运算", out)
        self.assertIn("未开始", out)
        self.assertIn("正确但太慢", out)
        self.assertIn("第 1 章：逐元素运算", out)
        self.assertIn("下一步：第 1 章第", out)

    def test_check_chapter_table_is_chinese(self):
        self.add_translation()
        meta = core.load_chapter(1)
        results = {1: {"stage": 1, "status": "passed", "speedup": 1.3, "required": 1.2, "gbps": 3000.0},
                   2: {"stage": 2, "status": "too-slow", "speedup": 1.0, "required": 1.2},
                   3: {"stage": 3, "status": "wrong"}}
        _, out, _ = self.capture(check.print_table, meta, results)
        lines = out.splitlines()
        self.assertIn("步骤", lines[0])
        self.assertIn("结果", lines[0])
        self.assertIn("朴素加法，每个线程一个元素", out)
        self.assertIn("正确但太慢", out)
        self.assertIn("结果错误", out)
        # CJK characters are two columns wide: the speed-up column still lines up
        ends = {i18n.width(line[:line.index("x1.")]) for line in lines[2:4] if "x1." in line}
        self.assertEqual(len(ends), 1, out)

    def test_the_command_line_follows_the_locale(self):
        self.add_translation()
        env = {"WORKBOOK_LANG": "", "LANG": "zh_CN.UTF-8", "LC_ALL": "", "LC_MESSAGES": ""}
        result = self.cli("hint", "1", "--stage", "2", env=env)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("提示 1/2：测试提示乙一", result.stdout)
        result = self.cli("progress", env=env)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("你的进度", result.stdout)


if __name__ == "__main__":
    unittest.main()
