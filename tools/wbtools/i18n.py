"""The learner tools in English or Simplified Chinese: the one message table.

The language is Chinese when WORKBOOK_LANG=zh, or, without WORKBOOK_LANG, when the locale (LC_ALL,
LC_MESSAGES or LANG, in that order) starts with "zh"; WORKBOOK_LANG=en forces English.

`tr(english, **values)` looks the English format string up in ZH and formats the result; a string
missing from the table prints in English, so a new message never breaks the Chinese tools. Hints and
titles come from each chapter's hints.zh.json (localize_chapter), English wherever that file or one of
its entries is missing. The grader's detailed explanation of a failure stays in English (docs/zh/tools.md
says so); its status words (core.STATUS_TEXT) and the progress categories have their Chinese form here.
"""
from __future__ import annotations

import json
import os
import unicodedata
from pathlib import Path


def lang() -> str:
    chosen = os.environ.get("WORKBOOK_LANG", "").strip().lower()
    if chosen:
        return "zh" if chosen.startswith("zh") else "en"
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(name, "")
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"


def chinese() -> bool:
    return lang() == "zh"


# English status words and progress categories -> Chinese (grader verdicts, make progress, make check-chapter).
STATUS = {
    "passed": "通过",
    "wrong result": "结果错误",
    "not implemented yet": "尚未实现",
    "correct, too slow": "正确但太慢",
    "crashed": "崩溃",
    "hung": "卡死（超时）",
    "compiled (no GPU)": "已编译（无 GPU）",
    "not started": "未开始",
    "failing": "未通过",
    "correct, not timed": "正确（未计时）",
    "wrong": "错误",
}

ZH = {
    # make hint
    "Chapter {chapter}, stage {stage}: {title}": "第 {chapter} 章，第 {stage} 步：{title}",
    "your file: {file}   the contract: {contract} ({launcher})": "你的文件：{file}   接口约定：{contract}（{launcher}）",
    "Stage {stage} has no hints yet: the chapter's lesson ({lesson}) explains the idea.":
        "第 {stage} 步还没有提示：本章讲义（{lesson}）讲解了思路。",
    "The hints of stage {stage} are hidden again: `make hint CH={chapter} STAGE={stage}` shows the first.":
        "第 {stage} 步的提示已重新隐藏：`make hint CH={chapter} STAGE={stage}` 会再显示第一条。",
    "Hint {index} of {total} (seen): ": "提示 {index}/{total}（已看过）：",
    "Hint {index} of {total}: ": "提示 {index}/{total}：",
    "{left} more {hints} left: run the same command again (make hint CH={chapter} STAGE={stage}).":
        "还剩 {left} 条提示：再运行一次同样的命令（make hint CH={chapter} STAGE={stage}）。",
    "You have seen every hint of this stage. Still stuck? Re-read the stage's section in {lesson}; the "
    "reference is {solution} (make hint CH={chapter} STAGE={stage} RESET=1 hides the hints again).":
        "这一步的提示已全部看过。还是卡住？重读 {lesson} 中这一步的小节；参考解答在 {solution}"
        "（make hint CH={chapter} STAGE={stage} RESET=1 可重新隐藏提示）。",
    "That was the last hint. Then there is the chapter's lesson, and the reference solution ({solution}) once "
    "you have tried.": "这是最后一条提示。接下来可以读本章讲义，自己尝试之后再看参考解答（{solution}）。",
    "STAGE={stage} needs a chapter too, e.g. make hint CH=1 STAGE={stage}.":
        "STAGE={stage} 还需要指定章节，例如 make hint CH=1 STAGE={stage}。",
    "Every stage passes already: name one, e.g. make hint CH=1 STAGE=2.":
        "所有步骤都已通过：请指定一个，例如 make hint CH=1 STAGE=2。",
    # make progress
    "CUDA Kernel Workbook: your progress": "CUDA Kernel Workbook：你的进度",
    "{passed} of {total} stages passed ({percent}%)": "已通过 {passed}/{total} 步（{percent}%）",
    "chapter": "章节",
    "passed": "通过",
    "interview": "面试",
    "interview: how often interviews ask for it (high, medium, low); by hand: written from memory on a blank "
    "page (docs: Tools, interview tags)":
        "面试：面试中被问到的频率（高、中、低）；手写：在白纸上凭记忆写出（文档：学习工具，面试标签）",
    "high": "高", "medium": "中", "low": "低", ", by hand": "，手写",
    "Chapter {chapter}: {title}": "第 {chapter} 章：{title}",
    "stage": "步骤", "state": "状态", "speed-up": "加速比", "needed": "要求", "drill best": "练习最佳",
    "graded": "评分时间", "result": "结果", "% copy": "% 拷贝", "% cuBLAS": "% cuBLAS",
    " * edited since it was graded: `make check-chapter {chapter}` grades it again.":
        " * 评分后又修改过：`make check-chapter {chapter}` 重新评分。",
    " last message of stage {stage}: {message}": " 第 {stage} 步最近的消息：{message}",
    "Nothing graded yet: start with `make check-chapter 1`; results appear here as you go.":
        "还没有评分记录：从 `make check-chapter 1` 开始，结果会随进度显示在这里。",
    "Next: chapter {chapter}, stage {stage} ({title}), in {file}.": "下一步：第 {chapter} 章第 {stage} 步（{title}），文件 {file}。",
    "      Grade it: make check-chapter {chapter} STAGE={stage}   stuck? make hint CH={chapter} STAGE={stage}":
        "      评分：make check-chapter {chapter} STAGE={stage}   卡住了？make hint CH={chapter} STAGE={stage}",
    "Every stage of chapter {chapter} passes. Time yourself: make drill CH={chapter}":
        "第 {chapter} 章的所有步骤都已通过。限时练习：make drill CH={chapter}",
    "Every stage of every chapter passes. Time yourself on them: make drill":
        "所有章节的所有步骤都已通过。限时练习：make drill",
    "today": "今天", "yesterday": "昨天",
    # make check-chapter
    "Chapter {chapter}: {title}  ({graded})": "第 {chapter} 章：{title}（{graded}）",
    "reference solutions": "参考解答", "your exercises": "你的练习",
    "\nYour code compiles. Grading needs an NVIDIA GPU: {summary}.": "\n代码可以编译。评分需要 NVIDIA GPU：{summary}。",
    "  (emulated on the CPU: correctness only, speed needs a GPU)": "  （在 CPU 上模拟：只检查正确性，速度需要 GPU）",
    " (correctness)": "（正确性）",
    "  {mark}stage {stage}: {status}{note}": "  {mark}第 {stage} 步：{status}{note}",
    "\nNext: stage {stage}, {title}: {file}  (hints: make hint CH={chapter} STAGE={stage})":
        "\n下一步：第 {stage} 步，{title}：{file}（提示：make hint CH={chapter} STAGE={stage}）",
    "\nEvery stage of chapter {chapter} passes.": "\n第 {chapter} 章的所有步骤都已通过。",
    "\nEvery stage of chapter {chapter} is correct on the CPU emulator; speed needs a GPU.":
        "\n第 {chapter} 章的所有步骤在 CPU 模拟器上都正确；速度需要 GPU 来测。",
    "Emulated on the CPU: correctness only, speed needs a GPU (see docs/emulation.md).":
        "在 CPU 上模拟：只检查正确性，速度需要 GPU（见 docs/zh/emulation.md）。",
    "(the grader's explanations below are in English)": "（以下评分器的详细说明为英文）",
    # make drill
    "Drill: chapter {chapter}, stage {stage}: {title}": "限时练习：第 {chapter} 章，第 {stage} 步：{title}",
    "Asked in interviews: {asked}": "面试中被问到的频率：{asked}",
    "; expected written by hand, from memory": "；通常要求凭记忆手写",
    ".": "。",
    "On paper: write it in {file} without compiling or running it. At {at} ({minutes}) it is built and graded "
    "once.": "纸上作答：在 {file} 中写出来，不要编译或运行。到 {at}（{minutes}）时会编译并评分一次。",
    "Write it in {file}: it holds only the contract. Kernel, launch configuration, tail handling: all yours.":
        "在 {file} 中作答：文件里只有接口约定。kernel、启动配置、尾部处理，全都由你来写。",
    "Your best time on this stage: {time}.": "你在这一步的最好成绩：{time}。",
    "Passed in {time} ({how}{extra}).": "用时 {time} 通过（{how}{extra}）。",
    "Your best on this stage: {time} over {count} drills.": "你在这一步 {count} 次练习中的最好成绩：{time}。",
    "Your file is kept in {file}; `make progress` shows the time.": "你的文件保存在 {file}；`make progress` 会显示用时。",
    "No drill is running.": "当前没有进行中的限时练习。",
    "Resuming the drill started {time} ago.": "继续 {time} 前开始的限时练习。",
    "Hand it in with `make drill-grade` when the time is up (it is graded once).":
        "时间到了用 `make drill-grade` 交卷（只评分一次）。",
    "Grade it with `make drill-grade` when you are ready; the clock is running.":
        "写好后用 `make drill-grade` 评分；计时已开始。",
    "\nThe drill is still running: `make drill` resumes it, `make drill-grade` hands it in, `make drill-stop` "
    "gives it up.": "\n限时练习仍在进行：`make drill` 继续，`make drill-grade` 交卷，`make drill-stop` 放弃。",
    "Time is up: building and grading your drill once.": "时间到：编译并评分一次。",
    "Handed in: building and grading your drill once.": "已交卷：编译并评分一次。",
}


# `make help` in Chinese (the Makefile prints its English text itself when this is not asked for).
HELP_ZH = """CUDA Kernel Workbook

  make check-chapter N     为第 N 章的练习评分（也可 N=2；STAGE=3 只评一步）
  make memcheck-chapter N  在 compute-sanitizer 下运行第 N 章的评分器（查找越界访问）
  make chapters            列出所有章节及其步骤
  make test                构建全部内容，检查参考解答和评测框架
  make selfcheck           GPU：参考解答通过，骨架代码报告 'not implemented yet'，catalog/ 中每个
                           已知错误的 kernel 都因预期原因失败；输出一张表
  make selfcheck-static    无需构建和 GPU：核对 stages.json 与文件、每个骨架中的 TODO、
                           launcher 命名规则、catalog 的文件头（make test 也会运行）
  make bench               为每个参考步骤和库基线计时：build/bench/results.md
  make docs                构建文档网站：build/docs/html/index.html（中文版：build/docs/html/zh/index.html）
  make emu-profile-chapter N  CPU 模拟器：每个参考步骤的访存行为计数（Markdown）
  make clean               删除构建目录（你的练习永远不会被动到）

  学习过程中：
  make progress            章节 x 步骤：通过、太慢、未通过、未开始；加速比
  make hint CH=2 STAGE=3   某一步的下一条提示，每次多给一条（不写 STAGE：你当前的步骤）
  make watch-chapter N     每次保存时重新评分你正在编辑的步骤（STAGE=k：从它开始）
  make reset-chapter N     恢复第 N 章的骨架代码（STAGE=k：只恢复一步）；你的文件会先备份
                           LEVEL=outline|guided|blank：切换脚手架级别（outline：每个 kernel 一句话；
                           guided：逐步引导；blank：只有接口约定）；你改过的步骤保持不动，除非 FORCE=1。
                           级别会被记住，供以后的 reset 使用。
  make drill [CH=n]        限时面试练习：drill/ 中一个只有接口约定的空白步骤
                           PAPER=1：纸上作答，PAPER_MINUTES（20）分钟内不编译，之后评分一次
  make drill-grade         为进行中的练习评分；make drill-stop 放弃它（文件会保留）
  make plot-chapter N      把第 N 章 make bench 的结果画成柱状图，并用 make profile-chapter N 的结果画 roofline：
                           build/plots/（需要 matplotlib）
  make profile-chapter N STAGE=k   我的步骤为什么慢？你的第 k 步与参考第 k-1、k 步并排的
                           Nsight Compute 计数（不写 STAGE：所有参考步骤）：build/profile/
  make tune-chapter 7      自动调优：在你的 GPU 上把第 9 步的候选分块形状与 cuBLAS 对比计时；
                           最快的为这块 GPU 保留（chapters/07_sgemm/tune/results/），此后按它构建

  选项：CUDA_ARCH=90 为该计算能力构建（默认：本机 GPU）。
        BACKEND=cpu 在 CPU 模拟器上运行 kernel：只检查正确性，不需要 GPU
        （docs/zh/emulation.md；请在新的构建目录上设置，例如 make clean 之后）。
        WORKBOOK_LANG=zh 让学习工具输出中文（zh_* 的 LANG/LC_ALL 也可以）；WORKBOOK_LANG=en 输出英文。
"""


def command_help(args) -> int:
    """`make help` in Chinese: prints HELP_ZH and returns 0; returns 3, printing nothing, in English."""
    if not chinese():
        return 3
    print(HELP_ZH, end="")
    return 0


def tr(english: str, **values) -> str:
    """The message in the learner's language, formatted with values; English when not translated."""
    text = ZH.get(english, english) if chinese() else english
    return text.format(**values) if values else text


def status(word: str) -> str:
    """A grader status word or progress category in the learner's language."""
    return STATUS.get(word, word) if chinese() else word


def width(text: str) -> int:
    """Columns the text takes in a terminal: CJK characters are two wide."""
    return sum(2 if unicodedata.east_asian_width(c) in ("W", "F") else 1 for c in text)


def clip(text: str, columns: int) -> str:
    """The text cut to at most `columns` terminal columns."""
    out, used = "", 0
    for character in text:
        step = 2 if unicodedata.east_asian_width(character) in ("W", "F") else 1
        if used + step > columns:
            break
        out, used = out + character, used + step
    return out


def ljust(text: str, columns: int) -> str:
    return text + " " * max(0, columns - width(text))


def rjust(text: str, columns: int) -> str:
    return " " * max(0, columns - width(text)) + text


def localize_chapter(meta: dict, folder: Path) -> dict:
    """In Chinese: the chapter's and stages' titles and hints from folder/hints.zh.json, each one
    English where the file or the entry is missing (meta["title_en"], stage["title_en"] keep English)."""
    meta["title_en"] = meta.get("title")
    for stage in meta.get("stages", []):
        stage["title_en"] = stage.get("title")
    if not chinese():
        return meta
    try:
        table = json.loads((folder / "hints.zh.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return meta   # not translated yet (or broken: tools/zh_parity.py says where): English
    if not isinstance(table, dict):
        return meta
    if isinstance(table.get("title"), str) and table["title"].strip():
        meta["title"] = table["title"]
    entries = {e.get("file"): e for e in table.get("stages", []) if isinstance(e, dict)}
    for stage in meta.get("stages", []):
        entry = entries.get(stage.get("file"), {})
        if isinstance(entry.get("title"), str) and entry["title"].strip():
            stage["title"] = entry["title"]
        hints = entry.get("hints")
        if isinstance(hints, list) and hints and all(isinstance(h, str) and h.strip() for h in hints):
            stage["hints"] = hints
    return meta
