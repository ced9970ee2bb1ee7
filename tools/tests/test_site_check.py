"""tools/site-check.py's judgements on a page's DOM, without a browser: the problems it must report
(unrendered TeX, MathJax errors, broken links and anchors, empty folded answers, literal markup) and
the right pages it must accept. The browser part runs in CI (ctest label docs)."""
from __future__ import annotations

import importlib.util
import shutil
import tempfile
import unittest
from pathlib import Path

from support import REPO

spec = importlib.util.spec_from_file_location("site_check", REPO / "tools" / "site-check.py")
site_check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(site_check)

TYPESET = '<p>Sum <span class="MathJax">x</span><script type="math/tex">\\sum x</script>.</p>'


def page(body: str) -> str:
    return f"<html><head><style>.MathJax .merror {{}}</style></head><body>{body}</body></html>"


class Formulas(unittest.TestCase):
    def test_typeset_page_passes(self):
        self.assertEqual(site_check.formula_problems("\\(x\\)", site_check.read(page(TYPESET))), [])

    def test_raw_tex_is_reported(self):
        problems = site_check.formula_problems("\\(x\\)", site_check.read(page("<p>\\(\\tfrac{1}{2}\\)</p>")))
        self.assertTrue(any("unrendered" in p for p in problems))
        self.assertTrue(any("none was typeset" in p for p in problems))

    def test_mathjax_error_is_reported(self):
        dom = page('<span class="MathJax"><span class="merror">Undefined control sequence</span></span>')
        self.assertTrue(any("MathJax error" in p for p in site_check.formula_problems("", site_check.read(dom))))

    def test_tex_inside_code_is_not_a_formula(self):
        dom = page("<pre>printf(\"\\(\");</pre><code>\\[</code>")
        self.assertEqual(site_check.formula_problems("", site_check.read(dom)), [])


class Links(unittest.TestCase):
    def setUp(self):
        self.site = Path(tempfile.mkdtemp(prefix="site-check-test-")).resolve()
        self.addCleanup(shutil.rmtree, self.site, ignore_errors=True)
        (self.site / "a.html").write_text("<html></html>")
        (self.site / "b.html").write_text('<html><body><a id="here"></a></body></html>')
        self.page = self.site / "a.html"

    def problems(self, body: str) -> list[str]:
        return site_check.link_problems(self.page, site_check.read(page(body)), self.site, {})

    def test_good_links_pass(self):
        self.assertEqual(self.problems('<a href="b.html#here">b</a><a href="https://example.org/x">x</a>'
                                       '<a href="javascript:void(0)">s</a><a id="top"></a><a href="#top">t</a>'), [])

    def test_missing_file_and_anchor_are_reported(self):
        problems = self.problems('<a href="c.html">c</a><a href="b.html#gone">b</a><img src="pic.png">')
        self.assertEqual(len(problems), 3, problems)


class AnswersAndMarkup(unittest.TestCase):
    def test_folded_answers(self):
        raw = '<details class="workbook-answer"><summary>Answer</summary>'
        good = site_check.read(page('<details class="workbook-answer"><summary>Answer</summary><p>Text.</p></details>'))
        self.assertEqual(site_check.answer_problems(raw, good), [])
        empty = site_check.read(
            page('<details class="workbook-answer"><summary>Answer</summary></details><p>Text.</p>'))
        self.assertTrue(site_check.answer_problems(raw, empty))

    def test_literal_markup_is_reported(self):
        self.assertTrue(site_check.markup_problems(site_check.read(page("<p>**`x` is bold**</p>"))))
        self.assertTrue(site_check.markup_problems(site_check.read(page("<p>see \\ref grading</p>"))))
        self.assertEqual(site_check.markup_problems(site_check.read(page("<pre>a ** b</pre><b>fine</b>"))), [])

    def test_text_after_a_code_block_is_still_checked(self):
        code = '<div class="fragment"><div class="line">a ** b;</div><div class="line">c;</div></div>'
        self.assertEqual(site_check.markup_problems(site_check.read(page(code + "<p>fine</p>"))), [])
        after = site_check.read(page(code + "<p>一步要算**通过**，</p>"))
        self.assertTrue(site_check.markup_problems(after))
        self.assertIn("通过", "".join(after.visible_text))


class Chinese(unittest.TestCase):
    """The language switch of a page of either site (the Chinese one in html/zh)."""

    def setUp(self):
        self.site = Path(tempfile.mkdtemp(prefix="site-check-test-")).resolve()
        self.addCleanup(shutil.rmtree, self.site, ignore_errors=True)
        (self.site / "zh").mkdir()
        for name in ("index.html", "zh/index.html", "a.html", "zh/a.html", "only_en.html"):
            (self.site / name).write_text("<html></html>")

    def switch(self, href: str) -> str:
        return f'<div id="workbook-lang"><a href="{href}" hreflang="x">x</a></div><div id="projectname">'

    def test_switch_to_the_same_page(self):
        self.assertEqual(site_check.switch_problems(self.site / "a.html", self.switch("zh/a.html"), self.site), [])
        self.assertEqual(site_check.switch_problems(self.site / "zh/a.html", self.switch("../a.html"), self.site), [])
        self.assertEqual(site_check.switch_problems(self.site / "only_en.html", self.switch("zh/index.html"),
                                                    self.site), [])

    def test_wrong_or_missing_switch_is_reported(self):
        self.assertTrue(site_check.switch_problems(self.site / "a.html", self.switch("zh/index.html"), self.site))
        self.assertTrue(site_check.switch_problems(self.site / "zh/a.html", self.switch("index.html"), self.site))
        self.assertTrue(site_check.switch_problems(self.site / "a.html", "<html></html>", self.site))


if __name__ == "__main__":
    unittest.main()
