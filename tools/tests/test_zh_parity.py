"""tools/zh_parity.py: a Chinese page that drifts from its English twin is caught, with file and section."""
from __future__ import annotations

import io
import json
import shutil
import sys
import tempfile
import unittest
from pathlib import Path

TOOLS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TOOLS))

import zh_parity  # noqa: E402

ENGLISH = """# Chapter 9: Scan {#chapter09_scan}

A prefix sum, one block at a time. See \\ref grading "how grading works".

## The ladder

| stage | GB/s | speed-up |
| --- | --- | --- |
| 1. naive | 512.3 | x1.00 |
| 2. shuffles | 1830.5 | x3.57 |

### Stage 1: naive {#scan_stage1}

```
out[i] = out[i - 1] + in[i];   // serial
```

The work is \\f$ O(n \\log n) \\f$.

\\dot
digraph G { a [label="load"]; a -> b; }
\\enddot

## Interview questions

1. Why? \\answer Because. \\endanswer
"""

CHINESE = """# 第 9 章：扫描 {#chapter09_scan}

前缀和，每次一个线程块。见 \\ref grading "评分方式"。

## 优化阶梯

| 阶段 | GB/s | 加速比 |
| --- | --- | --- |
| 1. 朴素实现 | 512.3 | x1.00 |
| 2. 洗牌指令 | 1830.5 | x3.57 |

### 第 1 步：朴素实现 {#scan_stage1}

```
out[i] = out[i - 1] + in[i];   // serial
```

工作量为 \\f$ O(n \\log n) \\f$。

\\dot
digraph G { a [label="加载"]; a -> b; }
\\enddot

## 面试题

1. 为什么？ \\answer 因为。 \\endanswer
"""


class Markdown(unittest.TestCase):
    def problems(self, chinese: str) -> list[str]:
        return zh_parity.compare_markdown(ENGLISH, chinese)

    def test_a_faithful_translation_passes(self):
        self.assertEqual(self.problems(CHINESE), [])

    def test_a_changed_table_number_is_caught(self):
        found = self.problems(CHINESE.replace("1830.5", "1830.6"))
        self.assertEqual(len(found), 1, found)
        self.assertIn("section '## The ladder'", found[0])
        self.assertIn("table 1, row 3", found[0])
        self.assertIn("1830.5", found[0])
        self.assertIn("1830.6", found[0])

    def test_a_changed_speedup_is_caught(self):
        found = self.problems(CHINESE.replace("x3.57", "x3.75"))
        self.assertTrue(any("numbers" in p and "3.57" in p for p in found), found)

    def test_a_missing_table_row_is_caught(self):
        found = self.problems(CHINESE.replace("| 2. 洗牌指令 | 1830.5 | x3.57 |\n", ""))
        self.assertTrue(any("table 1 has 3 rows in English, 2 in Chinese" in p for p in found), found)

    def test_a_changed_code_block_is_caught(self):
        found = self.problems(CHINESE.replace("// serial", "// 串行"))
        self.assertEqual(len(found), 1, found)
        self.assertIn("section '### Stage 1: naive {#scan_stage1}'", found[0])
        self.assertIn("code block 1 differs", found[0])

    def test_a_missing_heading_is_caught(self):
        found = self.problems(CHINESE.replace("## 面试题\n", ""))
        self.assertTrue(any("'## Interview questions'" in p and "missing in Chinese" in p for p in found), found)

    def test_a_changed_heading_level_is_caught(self):
        found = self.problems(CHINESE.replace("### 第 1 步", "## 第 1 步"))
        self.assertTrue(any("level 3 in English, 2 in Chinese" in p for p in found), found)

    def test_a_renamed_anchor_is_caught(self):
        found = self.problems(CHINESE.replace("{#scan_stage1}", "{#scan_step1}"))
        self.assertEqual(len(found), 1, found)
        self.assertIn("scan_stage1", found[0])
        self.assertIn("scan_step1", found[0])

    def test_a_changed_ref_target_is_caught(self):
        found = self.problems(CHINESE.replace("\\ref grading", "\\ref emulation"))
        self.assertTrue(any("Chapter 9: Scan" in p and "\\ref" in p and "grading" in p for p in found),
                        found)

    def test_a_changed_formula_is_caught(self):
        found = self.problems(CHINESE.replace("O(n \\log n)", "O(n)"))
        self.assertTrue(any("formulas differ" in p for p in found), found)

    def test_a_missing_graph_and_answer_are_caught(self):
        without_graph = CHINESE.replace('\\dot\ndigraph G { a [label="加载"]; a -> b; }\n\\enddot\n', "")
        self.assertTrue(any("\\dot graph" in p for p in self.problems(without_graph)))
        without_answer = CHINESE.replace("\\answer 因为。 \\endanswer", "因为。")
        self.assertTrue(any("\\answer block" in p for p in self.problems(without_answer)))

    def test_translated_graph_labels_and_text_are_allowed(self):
        self.assertEqual(self.problems(CHINESE.replace('label="加载"', 'label="读入"').replace("前缀和", "扫描")), [])

    def test_emphasis_touching_chinese_is_caught(self):
        found = self.problems(CHINESE.replace("前缀和，每次", "**前缀和**，每次"))
        self.assertEqual(len(found), 1, found)
        self.assertIn("Doxygen leaves the asterisks", found[0])
        self.assertEqual(self.problems(CHINESE.replace("前缀和，每次", "<b>前缀和</b>，每次")), [])
        self.assertEqual(self.problems(CHINESE.replace("前缀和，每次", "前缀和 **很快** 每次")), [])

    def test_code_inside_a_fence_is_not_a_heading(self):
        english = "# T {#t}\n\n```\n# not a heading\n```\n"
        self.assertEqual(zh_parity.compare_markdown(english, english.replace("# T", "# 标题")), [])
        self.assertTrue(zh_parity.compare_markdown(english, english.replace("# not", "# 不是")))


STAGES = {"chapter": 9, "title": "Scan", "stages": [
    {"id": 1, "file": "1_naive", "title": "naive", "hints": ["a", "b"]},
    {"id": 2, "file": "2_shuffle", "title": "shuffles", "hints": ["c"]}]}
HINTS = {"chapter": 9, "title": "扫描", "stages": [
    {"file": "1_naive", "title": "朴素实现", "hints": ["甲", "乙"]},
    {"file": "2_shuffle", "title": "洗牌指令", "hints": ["丙"]}]}


class Hints(unittest.TestCase):
    def problems(self, hints: dict) -> list[str]:
        return zh_parity.compare_hints(json.dumps(STAGES), json.dumps(hints, ensure_ascii=False))

    def test_matching_hints_pass(self):
        self.assertEqual(self.problems(HINTS), [])

    def test_a_missing_hint_is_caught(self):
        hints = json.loads(json.dumps(HINTS))
        hints["stages"][0]["hints"].pop()
        found = self.problems(hints)
        self.assertEqual(found, ["stage '1_naive': 2 hint(s) in stages.json, 1 in hints.zh.json"])

    def test_stages_out_of_order_are_caught(self):
        hints = json.loads(json.dumps(HINTS))
        hints["stages"].reverse()
        self.assertTrue(any("same stages, same order" in p for p in self.problems(hints)))

    def test_bad_json_says_where(self):
        found = zh_parity.compare_hints(json.dumps(STAGES), '{"chapter": 9,')
        self.assertIn("not valid JSON", found[0])


class Tree(unittest.TestCase):
    """The whole check over a small workbook: missing files fail unless listed, with the file named."""

    def setUp(self):
        self.root = Path(tempfile.mkdtemp(prefix="zh-parity-test-"))
        self.addCleanup(shutil.rmtree, self.root, ignore_errors=True)
        chapter = self.root / "chapters" / "09_scan"
        chapter.mkdir(parents=True)
        (chapter / "README.md").write_text(ENGLISH, encoding="utf-8")
        (chapter / "stages.json").write_text(json.dumps(STAGES), encoding="utf-8")
        (self.root / "docs" / "zh").mkdir(parents=True)

    def run_check(self) -> tuple[int, str]:
        out = io.StringIO()
        return zh_parity.check(self.root, out=out), out.getvalue()

    def test_missing_translation_fails_unless_listed(self):
        code, out = self.run_check()
        self.assertEqual(code, 1)
        self.assertIn("chapters/09_scan/README.zh.md: missing", out)
        (self.root / "docs/zh/untranslated.txt").write_text(
            "chapters/09_scan/README.zh.md in progress\nchapters/09_scan/hints.zh.json in progress\n",
            encoding="utf-8")
        code, out = self.run_check()
        self.assertEqual(code, 0, out)
        self.assertIn("not translated yet: chapters/09_scan/README.zh.md (in progress)", out)

    def test_a_drifted_translation_names_file_and_section(self):
        chapter = self.root / "chapters" / "09_scan"
        (chapter / "README.zh.md").write_text(CHINESE.replace("512.3", "521.3"), encoding="utf-8")
        (chapter / "hints.zh.json").write_text(json.dumps(HINTS, ensure_ascii=False), encoding="utf-8")
        code, out = self.run_check()
        self.assertEqual(code, 1)
        self.assertIn("DIFFERS: chapters/09_scan/README.zh.md: section '## The ladder'", out)
        self.assertIn("numbers 1 512.3 1.00 in English, 1 521.3 1.00 in Chinese", out)

    def test_a_stale_list_entry_fails(self):
        (self.root / "docs/zh/untranslated.txt").write_text("docs/zh/nosuch.md gone\n", encoding="utf-8")
        code, out = self.run_check()
        self.assertEqual(code, 1)
        self.assertIn("'docs/zh/nosuch.md' is not a Chinese file this check knows", out)


if __name__ == "__main__":
    unittest.main()
