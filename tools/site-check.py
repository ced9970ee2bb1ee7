#!/usr/bin/env python3
"""Check the documentation site in a real browser (headless Chromium), the way a learner sees it.

    python3 tools/site-check.py [build/docs]        (after `make docs`; CI runs it as ctest label docs)

One browser opens every page of <docs>/html and, once MathJax has finished, reads the page's DOM:
  - every page loads, and so does everything it loads (scripts, styles, images, MathJax's files);
  - no MathJax error ("Math input error", merror) and no TeX left unrendered in the text;
  - a page whose HTML holds formulas shows them typeset;
  - every local link leads to a file that exists, and to an anchor that exists on it;
  - every interview answer is folded (<details>) and holds its text;
  - no Markdown or Doxygen markup left as text (a literal ** or \\ref).
The Chinese site (<docs>/html/zh/, same page names) gets the same checks and three more:
  - the language switch of every page of either site leads to the same page in the other language
    (its main page when the other has no such page);
  - CJK text renders: the page holds Chinese text, and two different ideographs drawn in the page's
    own font come out as two different full-width glyphs (a missing CJK font draws both as the same
    box, or draws nothing);
  - diagrams with Chinese labels name a CJK font, and the browser draws that font's ideographs.
Then it copies the site to a temporary folder and opens the pages with formulas there: the site must
not depend on where it was built (MathJax is loaded by a relative path). Screenshots of six pages
(two of them Chinese) are kept in <docs>/screenshots/. Exit status: 0 passed, 1 failed, 77 skipped (no
Chromium, no site).

The browser is driven over the DevTools protocol on a pipe (--remote-debugging-pipe): starting
Chromium costs seconds, so it starts once, not once per page. Standard library only.
"""
from __future__ import annotations

import argparse
import base64
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

SKIP = 77
SCREENSHOTS = {"index.html": "main_page.png", "grading.html": "grading.png",
               "chapter02_reduce.html": "chapter02_reduce.png", "chapter07_sgemm.html": "chapter07_sgemm.png",
               "zh/index.html": "zh_main_page.png", "zh/chapter02_reduce.html": "zh_chapter02_reduce.png"}
CJK = re.compile(r"[\u4e00-\u9fff]")
SWITCH = re.compile(r'<div id="workbook-lang"><a href="([^"]+)"')
# Draws two different ideographs in the font of `selector` (or in `family`) and compares them: a
# font that has them gives two different glyphs about 1em wide; without one, the browser draws the
# same "missing glyph" box twice (or nothing). Returns null when the page has no such element.
CJK_GLYPHS = """((selector, family) => {
  const element = selector ? document.querySelector(selector) : null;
  if (selector && !element) return null;
  const style = element ? getComputedStyle(element) : null;
  const font = "32px " + (family || style.fontFamily);
  const draw = text => {
    const canvas = document.createElement("canvas");
    canvas.width = 64; canvas.height = 64;
    const context = canvas.getContext("2d");
    context.font = font;
    context.fillStyle = "#000";
    context.fillText(text, 8, 44);
    return [context.measureText(text).width, Array.from(context.getImageData(0, 0, 64, 64).data).join(",")];
  };
  const [widthA, pixelsA] = draw("\u4e2d"), [widthB, pixelsB] = draw("\u7ebf");
  const inked = pixelsA.split(",").some(v => v !== "0");
  return {font: font, width: widthA, distinct: pixelsA !== pixelsB, inked: inked, sameWidth: widthA === widthB};
})"""
WINDOW = (1280, 2000)
PAGE_TIMEOUT_S = 60.0
# Resolves once MathJax 2 has typeset the page (its queue runs in order); at once without MathJax.
MATHJAX_DONE = """new Promise(resolve => {
  if (window.MathJax && MathJax.Hub && MathJax.Hub.Queue) MathJax.Hub.Queue(() => resolve(true));
  else if (window.MathJax && MathJax.startup && MathJax.startup.promise)
    MathJax.startup.promise.then(() => resolve(true));
  else resolve(false);
})"""


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


class Browser:
    """Headless Chromium spoken to over the DevTools protocol: JSON messages ended by a NUL byte,
    written to the browser's fd 3 and read from its fd 4."""

    def __init__(self, executable: str, profile: Path):
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        args = [executable, "--headless", "--disable-gpu", "--remote-debugging-pipe", "--no-first-run",
                "--allow-file-access-from-files", "--hide-scrollbars", f"--user-data-dir={profile}",
                f"--window-size={WINDOW[0]},{WINDOW[1]}", "--no-sandbox", "about:blank"]
        # --no-sandbox: Chromium refuses to run as root with its sandbox, and inside many CI
        # containers it cannot set one up; the browser only opens the site's own local files.
        # The child reads the "to browser" pipe as fd 3 and writes the "from browser" pipe as fd 4
        # (copied out of the way first, in case a pipe end already is fd 3 or 4).

        def plumb():
            reading, writing = os.dup(to_browser_r), os.dup(from_browser_w)
            os.dup2(reading, 3)
            os.dup2(writing, 4)
        self._process = subprocess.Popen(args, preexec_fn=plumb, close_fds=False,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict] = []
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self._session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Network", "Runtime"):
            self.call(f"{domain}.enable", session=True)
        self.call("Emulation.setDeviceMetricsOverride", {"width": WINDOW[0], "height": WINDOW[1],
                                                         "deviceScaleFactor": 1, "mobile": False}, session=True)

    def _read_message(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline:
                raise TimeoutError("the browser did not answer in time")
            chunk = os.read(self._from_browser, 1 << 16)
            if not chunk:
                raise RuntimeError("the browser closed its DevTools pipe (did it crash?)")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method: str, params: dict | None = None, session: bool = False,
             timeout: float = PAGE_TIMEOUT_S) -> dict:
        self._next_id += 1
        request = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            request["sessionId"] = self._session
        os.write(self._to_browser, json.dumps(request).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            message = self._read_message(deadline)
            if message.get("id") == self._next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error'].get('message')}")
                return message.get("result", {})
            if "method" in message:
                self.events.append(message)

    def wait_for_event(self, method: str, timeout: float = PAGE_TIMEOUT_S) -> None:
        deadline = time.monotonic() + timeout
        while not any(e["method"] == method for e in self.events):
            self.events.append(self._read_message(deadline))

    def evaluate(self, expression: str, timeout: float = PAGE_TIMEOUT_S):
        result = self.call("Runtime.evaluate", {"expression": expression, "awaitPromise": True,
                                                "returnByValue": True}, session=True, timeout=timeout)
        if "exceptionDetails" in result:
            raise RuntimeError(result["exceptionDetails"].get("text", "exception"))
        return result.get("result", {}).get("value")

    def open(self, url: str) -> tuple[str, list[str]]:
        """The DOM of the page at url once its formulas are typeset, and the loads that failed."""
        self.events.clear()
        answer = self.call("Page.navigate", {"url": url}, session=True)
        if answer.get("errorText"):
            return "", [f"{url}: {answer['errorText']}"]
        self.wait_for_event("Page.loadEventFired")
        self.evaluate(MATHJAX_DONE)
        dom = self.evaluate("document.documentElement.outerHTML")
        requests = {e["params"]["requestId"]: e["params"]["request"]["url"]
                    for e in self.events if e.get("method") == "Network.requestWillBeSent"}
        failed = []
        for event in self.events:
            if event.get("method") == "Network.loadingFailed":
                failed_url = requests.get(event["params"]["requestId"], "?")
                # about:blank and javascript: frames (Doxygen's search box) are no files of the site
                if not failed_url.startswith(("about:", "javascript:", "data:")):
                    failed.append(f"{failed_url}: {event['params'].get('errorText', 'failed')}")
        return dom, failed

    def screenshot(self, path: Path) -> None:
        # MathJax's "Typesetting math: 100%" box fades out a moment after it has finished
        self.evaluate("(m => { if (m) m.style.display = 'none'; })(document.getElementById('MathJax_Message'))")
        data = self.call("Page.captureScreenshot", {"format": "png"}, session=True)["data"]
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        try:
            self.call("Browser.close", timeout=10)
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()


class PageReader(html.parser.HTMLParser):
    """What the checks need from a DOM: links, anchors, the visible text, formulas, answers."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.anchors: set[str] = set()
        self.visible_text: list[str] = []
        self.typeset = 0          # MathJax 2 (span.MathJax, div.MathJax_Display) or 3 (mjx-container)
        self.merrors = 0
        self.answers: list[str] = []
        self._hidden = 0          # depth inside script/style/code-like elements
        self._answer_depth = 0
        self._answer_text: list[str] = []
        self._div_depth = 0
        self._fragment_depths: list[int] = []   # the div depths of the open code fragments

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        for key in ("id", "name"):
            if attributes.get(key):
                self.anchors.add(attributes[key])
        if tag == "a" and attributes.get("href"):
            self.links.append(attributes["href"])
        if tag == "img" and attributes.get("src"):
            self.links.append(attributes["src"])
        classes = (attributes.get("class") or "").split()
        if tag == "mjx-container" or "MathJax" in classes or "MathJax_Display" in classes:
            self.typeset += 1
        if "merror" in classes or tag == "mjx-merror":
            self.merrors += 1
        if tag == "div":
            self._div_depth += 1
        if tag in ("script", "style", "code", "pre", "textarea"):
            self._hidden += 1
        elif "fragment" in classes and tag == "div":   # a code block: hidden until its own </div>
            self._hidden += 1
            self._fragment_depths.append(self._div_depth)
        if tag == "details":
            self._answer_depth += 1
            if self._answer_depth == 1:
                self._answer_text = []

    def handle_endtag(self, tag):
        if tag in ("script", "style", "code", "pre", "textarea") and self._hidden:
            self._hidden -= 1
        if tag == "div":
            if self._fragment_depths and self._fragment_depths[-1] == self._div_depth:
                self._fragment_depths.pop()
                self._hidden -= 1
            self._div_depth = max(0, self._div_depth - 1)
        if tag == "details" and self._answer_depth:
            self._answer_depth -= 1
            if self._answer_depth == 0:
                self.answers.append(" ".join("".join(self._answer_text).split()))

    def handle_data(self, data):
        if not self._hidden:
            self.visible_text.append(data)
        if self._answer_depth:
            self._answer_text.append(data)


def read(dom: str) -> PageReader:
    reader = PageReader()
    reader.feed(dom)
    reader.close()
    return reader


def has_formulas(html_text: str) -> bool:
    """Doxygen writes \\f$..\\f$ as \\(..\\) and \\f[..\\f] as \\[..\\] for MathJax to typeset."""
    return "\\(" in html_text or "\\[" in html_text


def anchors_on_disk(path: Path, cache: dict[Path, set[str]]) -> set[str]:
    if path not in cache:
        try:
            cache[path] = read(path.read_text(encoding="utf-8", errors="replace")).anchors
        except OSError:
            cache[path] = set()
    return cache[path]


def link_problems(page: Path, reader: PageReader, site: Path, anchor_cache: dict) -> list[str]:
    problems = []
    for link in reader.links:
        parsed = urllib.parse.urlsplit(link)
        if parsed.scheme in ("http", "https", "mailto", "javascript", "data") or parsed.netloc:
            continue
        if parsed.scheme == "file":
            target = Path(urllib.parse.unquote(parsed.path))
        elif parsed.path:
            target = (page.parent / urllib.parse.unquote(parsed.path)).resolve()
        else:
            target = page
        if not target.exists():
            problems.append(f"broken link {link!r}: {target.name} does not exist")
            continue
        if site not in target.parents and target != site:
            problems.append(f"link {link!r} leaves the site folder")
            continue
        if parsed.fragment and target.suffix == ".html":
            fragment = urllib.parse.unquote(parsed.fragment)
            anchors = reader.anchors if target == page else anchors_on_disk(target, anchor_cache)
            if fragment not in anchors:
                problems.append(f"broken link {link!r}: no anchor #{fragment} on {target.name}")
    return problems


def formula_problems(raw_html: str, reader: PageReader) -> list[str]:
    problems = []
    text = "".join(reader.visible_text)
    if reader.merrors or "Math input error" in text:
        problems.append(f"MathJax error ({reader.merrors} merror element(s)); see the page for the formula")
    for marker in ("\\(", "\\[", "\\f$", "\\f["):
        at = text.find(marker)
        if at >= 0:
            context = " ".join(text[max(0, at - 40):at + 60].split())
            problems.append(f"TeX left unrendered: ...{context}...")
            break
    if has_formulas(raw_html) and reader.typeset == 0:
        problems.append("the page holds formulas but none was typeset (is MathJax loaded?)")
    return problems


def markup_problems(reader: PageReader) -> list[str]:
    """Markdown or Doxygen markup that reached the page as text: `**` of a bold Doxygen did not
    take (it starts with a code span or a quote), or a \\ref split over two lines."""
    text = "".join(reader.visible_text)
    problems = []
    for marker, what in (("**", "literal ** (bold not rendered)"), ("\\ref ", "literal \\ref (a broken reference)")):
        at = text.find(marker)
        if at >= 0:
            context = " ".join(text[max(0, at - 40):at + 50].split())
            problems.append(f"{what}: ...{context}...")
    return problems


def answer_problems(raw_html: str, reader: PageReader) -> list[str]:
    expected = raw_html.count('class="workbook-answer"')
    problems = []
    if len(reader.answers) < expected:
        problems.append(f"{expected} interview answers in the HTML, {len(reader.answers)} folded in the page")
    for number, text in enumerate(reader.answers, 1):
        if text.strip() in ("", "Answer"):
            problems.append(f"interview answer {number} is empty once folded (the text fell outside <details>)")
    return problems


def switch_problems(page: Path, raw_html: str, site: Path) -> list[str]:
    """The language switch: present, and leading to the same page in the other language (or, when that
    language has no such page, to its main page). site: the English site, the Chinese one in site/zh."""
    found = SWITCH.search(raw_html)
    if not (site / "zh" / "index.html").is_file():
        return []   # a site built without the Chinese edition has no switch
    if not found:
        return ["no language switch (div#workbook-lang) on the page: docs/finish_html.cmake adds it"]
    chinese = page.parent == site / "zh"
    other = site if chinese else site / "zh"
    expected_name = page.name if (other / page.name).is_file() else "index.html"
    target = (page.parent / urllib.parse.unquote(found.group(1))).resolve()
    if target != (other / expected_name).resolve():
        return [f"the language switch leads to {found.group(1)!r}, not to the same page in "
                f"{'English' if chinese else 'Chinese'} ({expected_name})"]
    return []


def cjk_problems(browser: Browser, page: Path, reader: PageReader) -> list[str]:
    """A page of the Chinese site: Chinese text that the browser draws with a CJK font, and diagrams
    whose Chinese labels name a font the browser has the ideographs of."""
    problems = []
    text = "".join(reader.visible_text)
    if not CJK.search(text):
        return ["no Chinese text on a page of the Chinese site"]
    glyphs = browser.evaluate(f"{CJK_GLYPHS}('div.contents', null)") or browser.evaluate(f"{CJK_GLYPHS}('body', null)")
    if not glyphs or not glyphs["inked"] or not glyphs["distinct"] or not 0.8 * 32 <= glyphs["width"] <= 1.2 * 32:
        problems.append(f"Chinese text does not render: two ideographs in {glyphs and glyphs['font']!r} come out "
                        f"{'blank' if glyphs and not glyphs['inked'] else 'identical or not full-width'} "
                        "(install a CJK font: Debian/Ubuntu sudo apt-get install fonts-noto-cjk)")
    for link in set(reader.links):
        if not link.endswith(".svg") or "://" in link:
            continue
        graph = page.parent / urllib.parse.unquote(link)
        try:
            svg = graph.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue   # link_problems reports it
        if not CJK.search(svg):
            continue
        families = set(re.findall(r'font-family="([^"]+)"', svg))
        if not any("CJK" in f or "WenQuanYi" in f or "Hei" in f for f in families):
            problems.append(f"diagram {link}: Chinese labels but no CJK font among {sorted(families)}")
            continue
        for family in families:
            drawn = browser.evaluate(f"{CJK_GLYPHS}(null, {json.dumps(family)})")
            if not drawn or not drawn["inked"] or not drawn["distinct"]:
                problems.append(f"diagram {link}: the browser cannot draw Chinese in {family!r}")
    return problems


def check_site(browser: Browser, site: Path, pages: list[Path], shots: Path | None,
               full: bool) -> dict[str, list[str]]:
    anchor_cache: dict[Path, set[str]] = {}
    report: dict[str, list[str]] = {}
    for page in pages:
        name = page.relative_to(site).as_posix()
        raw = page.read_text(encoding="utf-8", errors="replace")
        dom, failed = browser.open(page.as_uri())
        problems = [f"failed to load {f}" for f in failed]
        if dom:
            reader = read(dom)
            problems += formula_problems(raw, reader)
            if full:
                problems += link_problems(page, reader, site, anchor_cache)
                problems += answer_problems(raw, reader)
                problems += markup_problems(reader)
                problems += switch_problems(page, raw, site)
                if page.parent == site / "zh":
                    problems += cjk_problems(browser, page, reader)
            if shots is not None and name in SCREENSHOTS:
                browser.screenshot(shots / SCREENSHOTS[name])
        if problems:
            report[name] = problems
    return report


def print_report(title: str, report: dict[str, list[str]], count: int) -> bool:
    if not report:
        print(f"{title}: {count} pages, all right")
        return True
    print(f"{title}: {len(report)} of {count} pages have problems")
    for name, problems in sorted(report.items()):
        for problem in problems[:10]:
            print(f"  {name}: {problem}")
        if len(problems) > 10:
            print(f"  {name}: ... and {len(problems) - 10} more")
    return False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("docs", nargs="?", default="build/docs", help="the docs folder of a build (holds html/)")
    parser.add_argument("--pages", default="*.html",
                        help="which pages of html/ and html/zh/ to open (a glob; default all)")
    args = parser.parse_args()
    docs = Path(args.docs).resolve()
    site = docs / "html"
    if not (site / "index.html").is_file():
        print(f"Site check skipped: {site}/index.html does not exist; build the site first with make docs.")
        return SKIP
    chromium = find_chromium()
    if not chromium:
        print("Site check skipped: Chromium is not installed (Debian/Ubuntu: sudo apt-get install chromium).")
        return SKIP
    pages = sorted(site.glob(args.pages)) + sorted((site / "zh").glob(args.pages))
    shots = docs / "screenshots"
    shutil.rmtree(shots, ignore_errors=True)
    shots.mkdir(parents=True)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="workbook-site-") as scratch:
        browser = Browser(chromium, Path(scratch) / "profile")
        try:
            ok = print_report("Site", check_site(browser, site, pages, shots, full=True), len(pages))
            # The same site elsewhere: formulas must still render (no absolute path to MathJax).
            copy = Path(scratch) / "copied-site"
            shutil.copytree(site, copy)
            with_formulas = [copy / p.relative_to(site) for p in pages if has_formulas(p.read_text(errors="replace"))]
            ok &= print_report("Copied site, pages with formulas",
                               check_site(browser, copy, with_formulas, None, full=False), len(with_formulas))
        finally:
            browser.close()
    checked = {p.relative_to(site).as_posix() for p in pages}
    missing = [name for page, name in SCREENSHOTS.items() if page in checked and not (shots / name).is_file()]
    if missing:
        print(f"Screenshots not taken: {', '.join(missing)}")
        ok = False
    taken = sum((shots / name).is_file() for name in SCREENSHOTS.values())
    print(f"Screenshots: {shots} ({taken} pages); {time.monotonic() - started:.0f} s")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
