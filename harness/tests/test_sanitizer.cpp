// Tests of the sanitizer pass's reading of compute-sanitizer's output (no GPU needed).
#include "harness/catch.hpp"
#include "harness/sanitizer_pass.hpp"

#include <cstdlib>
#include <string>
#include <vector>

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

const char* kClean =
    "========= COMPUTE-SANITIZER\n"
    "WORKBOOK-RESULT {\"status\": \"passed\"}\n"
    "========= ERROR SUMMARY: 0 errors\n";

const char* kRace =
    "========= COMPUTE-SANITIZER\n"
    "== chapter 2, stage 3 ==\n"
    "========= Error: Race reported between Write access at reduce_kernel(const float *, float *, long)+0x1a0 in "
    "/home/someone/workbook/exercises/02_reduce/3_sequential_addressing.cu:41\n"
    "=========     and Read access at reduce_kernel(const float *, float *, long)+0x220 in "
    "/home/someone/workbook/exercises/02_reduce/3_sequential_addressing.cu:45 [1024 hazards]\n"
    "========= \n"
    "========= Error: Race reported between Write access at x in y.cu:1\n"
    "========= RACECHECK SUMMARY: 2 hazards displayed (2 errors, 0 warnings)\n";

const char* kOutOfBounds =
    "========= COMPUTE-SANITIZER\n"
    "========= Invalid __global__ read of size 4 bytes\n"
    "=========     at add_naive_kernel(const float *, const float *, float *, long)+0x170 in /tmp/w/1_naive.cu:18\n"
    "=========     by thread (31,0,0) in block (3,0,0)\n"
    "=========     Address 0x7f0000001000 is out of bounds\n"
    "========= \n"
    "========= ERROR SUMMARY: 5 errors\n";

}   // namespace

TEST_CASE("sanitizer: clean output is no finding")
{
    CHECK_FALSE(wb::describe_sanitizer_findings("memcheck", kClean, 1).has_value());
    CHECK_FALSE(wb::describe_sanitizer_findings(
                    "racecheck", "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n", 1)
                    .has_value());
}

TEST_CASE("sanitizer: a tool that could not run is no finding")
{
    // The grader run under an outer compute-sanitizer: its own children cannot be instrumented.
    const std::string nested =
        "========= COMPUTE-SANITIZER\n"
        "========= Error: couldn't find exit code.\n"
        "========= Error: Target application terminated before first instrumented API call\n"
        "========= Target application returned an error\n";
    CHECK_FALSE(wb::describe_sanitizer_findings("memcheck", nested, 7).has_value());
}

TEST_CASE("sanitizer: a race names the tool, the lines and the cause")
{
    const auto message = wb::describe_sanitizer_findings("racecheck", kRace, 2);
    REQUIRE(message.has_value());
    CHECK(contains(*message, "compute-sanitizer's racecheck found 2 hazards"));
    CHECK(contains(*message, "3_sequential_addressing.cu:41"));
    CHECK(contains(*message, "3_sequential_addressing.cu:45"));
    CHECK_FALSE(contains(*message, "/home/someone"));
    CHECK_FALSE(contains(*message, "y.cu:1"));   // the first report only
    CHECK(contains(*message, "missing __syncthreads()"));
    CHECK(contains(*message, "make memcheck-chapter 2"));
}

TEST_CASE("sanitizer: an access past the end gives its kernel, thread and address")
{
    const auto message = wb::describe_sanitizer_findings("memcheck", kOutOfBounds, 1);
    REQUIRE(message.has_value());
    CHECK(contains(*message, "memcheck found 5 errors"));
    CHECK(contains(*message, "Invalid __global__ read of size 4 bytes"));
    CHECK(contains(*message, "1_naive.cu:18"));
    CHECK(contains(*message, "by thread (31,0,0) in block (3,0,0)"));
    CHECK(contains(*message, "outside an array, usually at a boundary"));
}

TEST_CASE("sanitizer: one run of several stages is split by stage, and each part is judged alone")
{
    const std::string output = std::string("========= COMPUTE-SANITIZER\n") +
                               "== chapter 2, stage 3: sequential addressing (your code) ==\n"
                               "  ok    n = 1\n" +
                               "== chapter 2, stage 5: unroll the last warp (your code) ==\n" +
                               "========= Warning: Race reported between Read access at k+0x10 in /a/b/5_x.cu:30\n"
                               "=========     and Write access at k+0x20 in /a/b/5_x.cu:29 [124 hazards]\n" +
                               "== chapter 2, stage 6: complete unroll (your code) ==\n"
                               "========= RACECHECK SUMMARY: 1 hazard displayed (0 errors, 1 warning)\n";
    const std::map<int, std::string> parts = wb::output_by_stage(output);
    REQUIRE(parts.size() == 3);
    CHECK_FALSE(wb::describe_sanitizer_findings("racecheck", parts.at(3), 2).has_value());
    const auto stage5 = wb::describe_sanitizer_findings("racecheck", parts.at(5), 2);
    REQUIRE(stage5.has_value());
    CHECK(contains(*stage5, "racecheck found 1 hazard that"));
    CHECK(contains(*stage5, "5_x.cu:30"));
    // The summary at the end of the run counts every stage's hazards, not stage 6's: the part of
    // stage 6 holds it, so the whole run's count must not be charged to stage 6 alone.
    CHECK_FALSE(wb::describe_sanitizer_findings("racecheck", parts.at(6), 2).has_value());
}

TEST_CASE("the sanitizer pass runs on to the first call of every kernel the first calls miss", "[sanitizer]")
{
    // Calls 1 to 3 launch the scalar path; call 5 the vector path, call 6 a third kernel too late.
    const std::vector<wb::CallRecord> calls = {{{"scalar"}, 0.1}, {{"scalar"}, 0.2},     {{"scalar"}, 0.3},
                                               {{"scalar"}, 0.4}, {{"vector"}, 0.5},     {{"scalar", "big"}, 3.0},
                                               {{"vector"}, 3.1}, {{"huge", "big"}, 9.0}};
    const wb::SanitizerPlan plan = wb::plan_sanitizer_calls(calls, 3, 2.0);
    CHECK(plan.calls == 5);   // calls 1 to 5: every kernel up to the budget
    REQUIRE(plan.unreached.size() == 2);
    CHECK(plan.unreached[0] == "big");   // each named once, in the order they first ran
    CHECK(plan.unreached[1] == "huge");
    // The first calls always run, however long they took; with nothing new after them, nothing more.
    const wb::SanitizerPlan same = wb::plan_sanitizer_calls({{{"k"}, 5.0}, {{"k"}, 6.0}, {{"k"}, 7.0}}, 2, 2.0);
    CHECK(same.calls == 2);
    CHECK(same.unreached.empty());
    // Unreached kernels are named as their file names them.
    const wb::SanitizerPlan named =
        wb::plan_sanitizer_calls({{{"a"}, 0.1}, {{"reference::(anonymous namespace)::k<float, 4>"}, 5.0}}, 1, 2.0);
    REQUIRE(named.unreached.size() == 1);
    CHECK(named.unreached[0] == "k<float, 4>");
    // No launch records (no CUPTI): the first calls, as before.
    CHECK(wb::plan_sanitizer_calls(std::vector<wb::CallRecord>(20), 8, 2.0).calls == 8);
    CHECK(wb::plan_sanitizer_calls(std::vector<wb::CallRecord>(5), 8, 2.0).calls == 5);
}

TEST_CASE("the grader's plan reaches the child through WORKBOOK_SANITIZER_CALLS", "[sanitizer]")
{
    setenv("WORKBOOK_SANITIZER_CALLS", "3:8,6:21", 1);
    CHECK(wb::sanitizer_calls_for(6) == 21);
    CHECK(wb::sanitizer_calls_for(3) == 8);
    CHECK(wb::sanitizer_calls_for(4) == wb::sanitizer_run_limit());   // a stage it does not name
    unsetenv("WORKBOOK_SANITIZER_CALLS");
    CHECK(wb::sanitizer_calls_for(6) == wb::sanitizer_run_limit());
}
