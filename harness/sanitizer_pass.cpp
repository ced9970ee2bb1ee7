#include "harness/sanitizer_pass.hpp"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace wb {

bool under_sanitizer() { return std::getenv("WORKBOOK_UNDER_SANITIZER") != nullptr; }

int sanitizer_run_limit()
{
    const char* text = std::getenv("WORKBOOK_SANITIZER_RUNS");
    const int runs = text ? std::atoi(text) : 0;
    return runs > 0 ? runs : 8;
}

int sanitizer_calls_for(int stage)
{
    if (const char* text = std::getenv("WORKBOOK_SANITIZER_CALLS")) {
        std::istringstream entries(text);
        std::string entry;
        while (std::getline(entries, entry, ',')) {
            const auto colon = entry.find(':');
            if (colon == std::string::npos || std::atoi(entry.substr(0, colon).c_str()) != stage) continue;
            const int calls = std::atoi(entry.substr(colon + 1).c_str());
            if (calls > 0) return calls;
        }
    }
    return sanitizer_run_limit();
}

namespace {

/// "reference::(anonymous namespace)::k<4>" -> "k<4>": the kernel as its file names it.
std::string short_kernel_name(std::string name)
{
    for (const std::string noise : {"(anonymous namespace)::", "reference::", "learner::"}) {
        for (auto at = name.find(noise); at != std::string::npos; at = name.find(noise)) name.erase(at, noise.size());
    }
    return name;
}

}   // namespace

SanitizerPlan plan_sanitizer_calls(const std::vector<CallRecord>& calls, int minimum, double budget_seconds)
{
    SanitizerPlan plan;
    plan.calls = std::min<int>(minimum, static_cast<int>(calls.size()));
    std::set<std::string> reached;
    for (int i = 0; i < plan.calls; ++i) reached.insert(calls[i].kernels.begin(), calls[i].kernels.end());
    for (int i = plan.calls; i < static_cast<int>(calls.size()); ++i) {
        const bool new_kernel = std::any_of(calls[i].kernels.begin(), calls[i].kernels.end(),
                                            [&](const std::string& k) { return reached.count(k) == 0; });
        if (!new_kernel) continue;
        if (calls[i].seconds > budget_seconds) {   // the later calls end later still
            for (int j = i; j < static_cast<int>(calls.size()); ++j) {
                for (const std::string& k : calls[j].kernels) {
                    const std::string name = short_kernel_name(k);
                    if (reached.count(k) == 0 &&
                        std::find(plan.unreached.begin(), plan.unreached.end(), name) == plan.unreached.end()) {
                        plan.unreached.push_back(name);
                    }
                }
            }
            break;
        }
        for (int j = plan.calls; j <= i; ++j) reached.insert(calls[j].kernels.begin(), calls[j].kernels.end());
        plan.calls = i + 1;
    }
    return plan;
}

namespace {

const char* likely_cause(const std::string& tool)
{
    if (tool == "racecheck") {
        return "two threads of a block touch the same shared-memory word with no barrier between them: a missing "
               "__syncthreads() between writing shared memory and reading it (after a tile is loaded, before a "
               "buffer or scratch array is reused, between the steps of a tree), or a warp-synchronous step "
               "without __syncwarp().";
    }
    if (tool == "synccheck") {
        return "a __syncthreads() (or __syncwarp, or a *_sync shuffle) that not every thread of its block (or "
               "of its mask) reaches: a barrier inside an if, after an early return of some threads, or two "
               "different barriers for two halves of the block.";
    }
    return "an access outside an array, usually at a boundary: a missing or wrong bounds test (the last "
           "block), a read one element past the end of an input, or a vector access over the last partial vector. (In "
           "this run every array lies between two fences that memcheck watches, so even a read one byte past "
           "either end is caught, and one whose bytes are never used.)";
}

/// "/home/x/workbook/exercises/02_reduce/3_x.cu:41" -> "3_x.cu:41"; strips the tool's "=========".
std::string tidy(std::string line)
{
    const std::size_t bar = line.find_first_not_of("= ");
    line = bar == std::string::npos ? std::string() : line.substr(bar);
    static const std::regex path(R"((/[^ :]*/)([^/ :]+\.(cu|cuh|cpp|hpp|h):[0-9]+))");
    return std::regex_replace(line, path, "$2");
}

}   // namespace

std::optional<std::string> describe_sanitizer_findings(const std::string& tool, const std::string& raw_output,
                                                       int chapter)
{
    // The tools name their findings "Invalid ...", "Program hit ...", "Barrier error ..." and
    // "Error: Race reported ...". Any other "Error:" line is the tool saying that it could not run
    // (e.g. "Target application terminated before first instrumented API call", when the grader
    // already runs under a compute-sanitizer, whose child cannot be instrumented a second time):
    // that says nothing about the kernel, and is not counted as a finding.
    static const std::regex cannot_run(R"((^|\n)========= Error: (?!Race )[^\n]*)");
    const std::string output = std::regex_replace(raw_output, cannot_run, "");
    static const std::regex errors(R"((ERROR SUMMARY|RACECHECK SUMMARY): ([0-9]+) (error|hazard))");
    static const std::regex headline(R"((^|\n)========= (Invalid|Error|Warning|Barrier|Program hit|Race)[^\n]*)");
    int count = 0;
    bool summarised = false;
    for (auto it = std::sregex_iterator(output.begin(), output.end(), errors); it != std::sregex_iterator(); ++it) {
        count += std::stoi((*it)[2].str());
        summarised = true;
    }
    if (!summarised) {   // a part of a longer run: count the reports themselves
        count = static_cast<int>(
            std::distance(std::sregex_iterator(output.begin(), output.end(), headline), std::sregex_iterator()));
    }
    if (count == 0) return std::nullopt;
    // The first report: its headline and the lines that say where.
    std::istringstream lines(output);
    std::string line, report;
    int taken = 0;
    bool in_report = false;
    while (std::getline(lines, line) && taken < 4) {
        if (line.rfind("=========", 0) != 0) continue;
        const std::string text = tidy(line);
        if (text.empty() || text.rfind("COMPUTE-SANITIZER", 0) == 0 || text.find("SUMMARY") != std::string::npos) {
            if (in_report) break;
            continue;
        }
        const bool headline = line.rfind("========= ", 0) == 0 && line.rfind("=========  ", 0) != 0;
        if (headline && in_report) break;
        in_report = true;
        report += "\n    " + text;
        ++taken;
    }
    const std::string what = tool == "racecheck" ? "hazard" : "error";
    // Why right results hid it: a stray access reads bytes that are never used (or harmless there); a race
    // or a barrier that not every thread reaches happens to resolve in the right order.
    const std::string why = tool == "memcheck"
                                ? "the bytes it touched out of bounds were never used, or did no harm here"
                                : "by luck of the timing";
    return "compute-sanitizer's " + tool + " found " + std::to_string(count) + " " + what + (count == 1 ? "" : "s") +
           " that the output does not show (the results were right on this GPU: " + why + "):" + report +
           "\n  likely cause: " + likely_cause(tool) + "\n  Run `make memcheck-chapter " + std::to_string(chapter) +
           "` to see every report.";
}

namespace {

std::string find_sanitizer()
{
    if (const char* path = std::getenv("PATH")) {
        std::istringstream dirs(path);
        std::string dir;
        while (std::getline(dirs, dir, ':')) {
            const std::string candidate = dir + "/compute-sanitizer";
            if (!dir.empty() && access(candidate.c_str(), X_OK) == 0) return candidate;
        }
    }
#ifdef WORKBOOK_CUDA_BIN_DIR
    const std::string bundled = std::string(WORKBOOK_CUDA_BIN_DIR) + "/compute-sanitizer";
    if (access(bundled.c_str(), X_OK) == 0) return bundled;
#endif
    return "";
}

std::string self_path()
{
    char buffer[4096];
    const ssize_t length = readlink("/proc/self/exe", buffer, sizeof buffer - 1);
    if (length <= 0) return "";
    buffer[length] = '\0';
    return buffer;
}

struct Child {
    std::string tool;
    std::string log;
    pid_t pid = -1;
    bool finished = false;
    bool timed_out = false;
};

bool start(Child& child, const std::string& sanitizer, const std::string& exe, const std::string& spec, int print_limit)
{
    char name[] = "/tmp/workbook-sanitizer-XXXXXX";
    const int fd = mkstemp(name);
    if (fd < 0) return false;
    child.log = name;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fd, STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, fd, STDERR_FILENO);
    std::vector<std::string> args = {
        sanitizer, "--tool", child.tool, "--print-limit", std::to_string(print_limit), "--report-api-errors", "no"};
    if (child.tool == "memcheck") args.insert(args.end(), {"--leak-check", "no"});
    args.insert(args.end(), {exe, spec});
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> env_strings = {"WORKBOOK_UNDER_SANITIZER=1", "WORKBOOK_CORRECTNESS_ONLY=1",
                                            "WORKBOOK_KERNEL_TIMEOUT=600"};
    for (char** e = environ; *e; ++e) {
        const std::string entry = *e;
        if (entry.rfind("WORKBOOK_UNDER_SANITIZER=", 0) == 0 || entry.rfind("WORKBOOK_CORRECTNESS_ONLY=", 0) == 0 ||
            entry.rfind("WORKBOOK_KERNEL_TIMEOUT=", 0) == 0) {
            continue;
        }
        env_strings.push_back(entry);
    }
    std::vector<char*> envp;
    for (std::string& e : env_strings) envp.push_back(e.data());
    envp.push_back(nullptr);
    const int rc = posix_spawn(&child.pid, sanitizer.c_str(), &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    close(fd);
    return rc == 0;
}

double seconds_limit()
{
    const char* text = std::getenv("WORKBOOK_SANITIZER_TIMEOUT");
    const double limit = text ? std::atof(text) : 0.0;
    return limit > 0 ? limit : 120.0;
}

}   // namespace

namespace {

/// What the three tools said, for each stage of @p stages; "" in `missing` when they ran.
struct ToolRun {
    std::string missing;                                        ///< why nothing ran ("" when the tools ran)
    std::vector<std::pair<std::string, std::string>> outputs;   ///< (tool, its whole output)
    std::string unfinished;                                     ///< tools stopped at the time limit
    double seconds = 0.0;
};

ToolRun run_tools(const std::vector<int>& stages)
{
    ToolRun run;
    if (const char* off = std::getenv("WORKBOOK_SANITIZE"); off && std::string(off) == "0") {
        run.missing = "WORKBOOK_SANITIZE=0";
        return run;
    }
    const std::string sanitizer = find_sanitizer();
    if (sanitizer.empty()) {
        run.missing =
            "compute-sanitizer was not found (it ships with the CUDA Toolkit, in its bin/ folder: put "
            "that folder on PATH)";
        return run;
    }
    const std::string exe = self_path();
    if (exe.empty()) {
        run.missing = "the grader could not find its own executable";
        return run;
    }
    std::string spec;
    for (int stage : stages) spec += (spec.empty() ? "" : ",") + std::string("[stage") + std::to_string(stage) + "]";
    std::fflush(stdout);
    const auto begin = std::chrono::steady_clock::now();
    std::vector<Child> children(3);
    children[0].tool = "memcheck";
    children[1].tool = "racecheck";
    children[2].tool = "synccheck";
    const int print_limit = 3 * static_cast<int>(stages.size());
    for (Child& child : children) {
        if (!start(child, sanitizer, exe, spec, print_limit)) child.finished = true;
    }
    const double limit = seconds_limit() * static_cast<double>(stages.size() > 1 ? 2 : 1);
    for (;;) {
        bool all = true;
        for (Child& child : children) {
            if (child.finished) continue;
            int status = 0;
            if (waitpid(child.pid, &status, WNOHANG) == child.pid) {
                child.finished = true;
            } else {
                all = false;
            }
        }
        if (all) break;
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
        if (elapsed > limit) {
            for (Child& child : children) {
                if (child.finished) continue;
                kill(child.pid, SIGKILL);
                waitpid(child.pid, nullptr, 0);
                child.finished = child.timed_out = true;
            }
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    for (Child& child : children) {
        std::ifstream in(child.log);
        std::stringstream text;
        text << in.rdbuf();
        std::remove(child.log.c_str());
        if (child.timed_out) {
            run.unfinished += (run.unfinished.empty() ? "" : ", ") + child.tool + " (took longer than " +
                              std::to_string(static_cast<int>(limit)) + " s)";
            continue;
        }
        run.outputs.emplace_back(child.tool, text.str());
    }
    return run;
}


}   // namespace

std::map<int, std::string> output_by_stage(const std::string& output)
{
    static const std::regex header(R"(== chapter [0-9]+, stage ([0-9]+):)");
    std::map<int, std::string> parts;
    std::istringstream lines(output);
    std::string line;
    int stage = 0;
    while (std::getline(lines, line)) {
        std::smatch match;
        if (std::regex_search(line, match, header)) stage = std::stoi(match[1].str());
        // The tool's summary counts the whole run, not the stage it happens to follow: left out.
        if (line.rfind("=========", 0) == 0 && line.find("SUMMARY:") != std::string::npos) continue;
        if (stage != 0) parts[stage] += line + "\n";
    }
    return parts;
}

namespace {

/// "; not reached: `a`, `b` (launched only by larger cases)" for the pass's line, or "".
std::string unreached_note(const std::vector<std::string>& unreached)
{
    if (unreached.empty()) return "";
    std::string text = "; not reached: ";
    for (std::size_t i = 0; i < unreached.size() && i < 3; ++i) text += (i ? ", `" : "`") + unreached[i] + "`";
    if (unreached.size() > 3) text += " and " + std::to_string(unreached.size() - 3) + " more";
    return text + " (launched only by cases too large for the tools)";
}

}   // namespace

std::optional<StageFailure> sanitizer_verdict(const GraderContext& context, const StageInfo& info,
                                              const SanitizerPlan& plan)
{
    if (under_sanitizer()) return std::nullopt;
    setenv("WORKBOOK_SANITIZER_CALLS", (std::to_string(info.id) + ":" + std::to_string(plan.calls)).c_str(), 1);
    const ToolRun run = run_tools({info.id});
    if (!run.missing.empty()) {
        std::printf("  not sanitizer-checked: %s\n", run.missing.c_str());
        return std::nullopt;
    }
    for (const auto& [tool, output] : run.outputs) {
        if (auto message = describe_sanitizer_findings(tool, output, context.chapter)) {
            return StageFailure{Status::wrong, *message};
        }
    }
    std::printf("  compute-sanitizer: memcheck, racecheck and synccheck found nothing in %d calls (%.1f s)%s%s%s\n",
                plan.calls, run.seconds, run.unfinished.empty() ? "" : "; not finished: ", run.unfinished.c_str(),
                unreached_note(plan.unreached).c_str());
    return std::nullopt;
}

int sanitize_stages_command(int chapter, const std::vector<int>& stages)
{
    const ToolRun run = run_tools(stages);
    for (int stage : stages) {
        std::string status = "clean", details;
        if (!run.missing.empty()) {
            status = "not-checked";
            details = run.missing;
        } else {
            for (const auto& [tool, output] : run.outputs) {
                const std::map<int, std::string> parts = output_by_stage(output);
                const auto part = parts.find(stage);
                if (part == parts.end()) continue;
                if (auto message = describe_sanitizer_findings(tool, part->second, chapter)) {
                    status = "wrong";
                    details = *message;
                    break;
                }
            }
            if (status == "clean" && !run.unfinished.empty()) details = "not finished: " + run.unfinished;
        }
        std::printf("WORKBOOK-SANITIZER {\"stage\": %d, \"status\": \"%s\", \"seconds\": %.1f, \"details\": %s}\n",
                    stage, status.c_str(), run.seconds, json_string(details).c_str());
    }
    std::fflush(stdout);
    return 0;
}

}   // namespace wb
