"""The documentation site's chapter pages: each links to its contract, its reference solutions and
its neighbours, with the same line at its top and at its end (docs/CMakeLists.txt builds the site)."""
from __future__ import annotations

import unittest

from support import REPO

from wbtools import core


def chapters() -> list[tuple[str, dict]]:
    """(folder, stages.json) of every chapter, in order."""
    folders = sorted(p for p in (REPO / "chapters").iterdir() if (p / "stages.json").is_file())
    return [(p.name, core.read_meta(p)) for p in folders]


def page_ref(folder: str, meta: dict) -> str:
    return f'\\ref chapter{folder} "Chapter {meta["chapter"]}: {meta["title"]}"'


def navigation_line(index: int, all_chapters: list[tuple[str, dict]]) -> str:
    """The line a chapter's README carries: contract, solutions, previous, next."""
    folder, meta = all_chapters[index]
    parts = [f'Contract: \\ref {folder}/stages.cuh "{folder}/stages.cuh"',
             f'Reference solutions: \\ref solutions_{folder} "Chapter {meta["chapter"]} solutions"']
    parts.append("Previous: " + (page_ref(*all_chapters[index - 1]) if index > 0 else '\\ref index "Overview"'))
    parts.append("Next: " + (page_ref(*all_chapters[index + 1]) if index + 1 < len(all_chapters)
                             else '\\ref benchmark_plots "Benchmark plots"'))
    return " &middot; ".join(parts)


class ChapterNavigation(unittest.TestCase):
    def test_every_chapter_page_links_its_contract_solutions_and_neighbours(self):
        all_chapters = chapters()
        self.assertGreaterEqual(len(all_chapters), 2)
        for index, (folder, _) in enumerate(all_chapters):
            with self.subTest(chapter=folder):
                lines = (REPO / "chapters" / folder / "README.md").read_text().rstrip("\n").split("\n")
                expected = navigation_line(index, all_chapters)
                self.assertEqual(lines[2], expected, f"line 3 of chapters/{folder}/README.md should be:\n{expected}")
                self.assertEqual(lines[-1], expected,
                                 f"the last line of chapters/{folder}/README.md should be:\n{expected}")


if __name__ == "__main__":
    unittest.main()
