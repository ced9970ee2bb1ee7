// Tests of the launch ledger's verdicts (no GPU): no kernel, work on another stream, memory that grows
// with the calls, and the launch facts as a learner reads them.
#include "harness/catch.hpp"
#include "harness/launch_ledger.hpp"
#include "harness/stage.hpp"

#include <string>

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

wb::KernelFacts kernel(bool on_given_stream = true)
{
    wb::KernelFacts k;
    k.name = "reduce_kernel<256>";
    k.grid = dim3(528, 1, 1);
    k.block = dim3(256, 1, 1);
    k.static_shared = 1024;
    k.registers = 32;
    k.on_given_stream = on_given_stream;
    return k;
}

wb::LaunchRecord call_with(std::vector<wb::KernelFacts> kernels)
{
    wb::LaunchRecord r;
    r.available = true;
    r.kernels = std::move(kernels);
    return r;
}

}   // namespace

TEST_CASE("ledger: a launcher that launches its kernels on the given stream passes")
{
    wb::LedgerJudge judge;
    for (int i = 0; i < 5; ++i) judge.add(call_with({kernel(), kernel()}));
    CHECK_FALSE(judge.verdict().has_value());
}

TEST_CASE("ledger: no kernel in any call is a wrong result, one call without a kernel is not")
{
    wb::LedgerJudge none;
    for (int i = 0; i < 4; ++i) none.add(call_with({}));
    REQUIRE(none.verdict().has_value());
    CHECK(contains(*none.verdict(), "launched no kernel"));
    CHECK(contains(*none.verdict(), "computed on the host"));

    wb::LedgerJudge some;
    some.add(call_with({}));   // e.g. a size handled by a copy
    some.add(call_with({kernel()}));
    CHECK_FALSE(some.verdict().has_value());
}

TEST_CASE("ledger: a copy from device to host in a launcher that runs kernels is host work; with no kernel, no kernel")
{
    wb::LedgerJudge judge;
    wb::LaunchRecord r = call_with({kernel()});
    r.to_host.push_back("a copy of 4096 bytes from device to host");
    judge.add(r);
    judge.add(call_with({kernel()}));
    REQUIRE(judge.verdict().has_value());
    CHECK(contains(*judge.verdict(), "copies data from the GPU to the host: 1 of its 2 calls did:"));
    CHECK(contains(*judge.verdict(), "a copy of 4096 bytes from device to host"));

    // On another stream too (a synchronous cudaMemcpy): the copy to the host is the reason named.
    wb::LedgerJudge sync_copy;
    r.elsewhere.push_back("cudaMemcpy (device to host) ran on the legacy default stream");
    sync_copy.add(r);
    REQUIRE(sync_copy.verdict().has_value());
    CHECK(contains(*sync_copy.verdict(), "copies data from the GPU to the host"));

    // Copies alone, no kernel anywhere: "launched no kernel", as before.
    wb::LedgerJudge copies_only;
    wb::LaunchRecord c = call_with({});
    c.to_host.push_back("cudaMemcpyAsync (device to host)");
    for (int i = 0; i < 3; ++i) copies_only.add(c);
    REQUIRE(copies_only.verdict().has_value());
    CHECK(contains(*copies_only.verdict(), "launched no kernel"));
}

TEST_CASE("ledger: work on another stream is named, whatever else happened")
{
    wb::LedgerJudge judge;
    wb::LaunchRecord r = call_with({kernel(), kernel(false)});
    r.elsewhere.push_back("kernel `finish` ran on the legacy default stream");
    judge.add(call_with({kernel()}));
    judge.add(r);
    REQUIRE(judge.verdict().has_value());
    CHECK(contains(*judge.verdict(), "another stream than the one it was given"));
    CHECK(contains(*judge.verdict(), "kernel `finish` ran on the legacy default stream"));
}

TEST_CASE("ledger: memory freed in the call, or kept once for reuse, is no leak; memory kept by every call is")
{
    wb::LedgerJudge freed;
    for (std::uintptr_t i = 1; i <= 6; ++i) {
        wb::LaunchRecord r = call_with({kernel()});
        r.allocated[i * 4096] = 4096;
        r.released.push_back(i * 4096);
        freed.add(r);
    }
    CHECK_FALSE(freed.verdict().has_value());

    wb::LedgerJudge cached;
    wb::LaunchRecord first = call_with({kernel()});
    first.allocated[4096] = 1 << 20;
    cached.add(first);
    for (int i = 0; i < 6; ++i) cached.add(call_with({kernel()}));
    CHECK_FALSE(cached.verdict().has_value());

    wb::LedgerJudge leaking;
    for (std::uintptr_t i = 1; i <= 6; ++i) {
        wb::LaunchRecord r = call_with({kernel()});
        r.allocated[i * 4096] = 800;
        leaking.add(r);
    }
    REQUIRE(leaking.verdict().has_value());
    CHECK(contains(*leaking.verdict(), "leaks device memory"));
    CHECK(contains(*leaking.verdict(), "6 allocations, 4800 bytes"));
}

TEST_CASE("ledger: records that could not be made give no verdict")
{
    wb::LedgerJudge judge;
    for (int i = 0; i < 4; ++i) judge.add(wb::LaunchRecord{});
    CHECK_FALSE(judge.verdict().has_value());
}

TEST_CASE("ledger: launch facts read as a sentence")
{
    wb::KernelFacts spilling = kernel();
    spilling.local_bytes = 96;
    const std::string text = wb::describe_kernels({kernel(), spilling});
    CHECK(contains(text, "2 kernels: `reduce_kernel<256>` grid 528 x block 256, 1024 B shared, 32 registers"));
    CHECK(contains(text, "96 B local memory per thread"));
}

namespace {

wb::KernelFacts launch_of(unsigned blocks, unsigned threads, int registers = 32, int local = 0, double occupancy = 1.0)
{
    wb::KernelFacts k;
    k.name = "k";
    k.grid = dim3(blocks, 1, 1);
    k.block = dim3(threads, 1, 1);
    k.registers = registers;
    k.local_bytes = local;
    k.occupancy = occupancy;
    return k;
}

}   // namespace

std::string first_cause(const wb::SlowLaunch& why) { return why.causes.empty() ? "" : why.causes.front(); }

TEST_CASE("why slow: a fixed 64-block grid on a 132-SM GPU is named first")
{
    const wb::SlowLaunch why = wb::explain_launch_difference({launch_of(64, 256)}, {launch_of(8192, 256)},
                                                             {launch_of(1056, 256), launch_of(1, 256)}, 7, 132, 1e9);
    CHECK(contains(first_cause(why), "your grid is 64 blocks for 132 SMs: 52% of the SMs have no work"));
    CHECK(contains(why.text(), "why: your grid is 64 blocks"));
    CHECK(contains(why.table, "reference 6"));
    CHECK(contains(why.table, "reference stage 7"));
}

TEST_CASE("why slow: one element per thread where the reference moves four")
{
    const double bytes = 2.0 * 4096 * 4096 * 4;
    const wb::SlowLaunch why = wb::explain_launch_difference({launch_of(16384, 1024)}, {launch_of(16384, 256)},
                                                             {launch_of(16384, 256)}, 4, 132, bytes);
    CHECK(contains(first_cause(why), "each of your threads moves 8 bytes, each thread of reference stage 4 32"));
}

TEST_CASE("why slow: more launches, spills and low occupancy")
{
    const wb::SlowLaunch launches = wb::explain_launch_difference({launch_of(49152, 32), launch_of(49152, 32)}, {},
                                                                  {launch_of(6144, 256)}, 3, 132, 0);
    CHECK(contains(first_cause(launches), "2 launches where reference stage 3 uses 1"));
    const wb::SlowLaunch spills =
        wb::explain_launch_difference({launch_of(4096, 256, 255, 96)}, {}, {launch_of(4096, 256, 128, 0)}, 7, 132, 0);
    CHECK(contains(first_cause(spills), "96 bytes of local memory per thread"));
    const wb::SlowLaunch occupancy = wb::explain_launch_difference({launch_of(4096, 256, 128, 0, 0.25)}, {},
                                                                   {launch_of(4096, 256, 40, 0, 1.0)}, 7, 132, 0);
    CHECK(contains(first_cause(occupancy), "theoretical occupancy is 25% against 100%"));
}

TEST_CASE("why slow: the causes are ranked, the costliest first, the others follow")
{
    // 64 blocks of 32 threads with spills: idle SMs (132 / 64) outrank spills, which outrank occupancy.
    wb::KernelFacts mine = launch_of(64, 32, 64, 48, 0.5);
    const wb::SlowLaunch why = wb::explain_launch_difference({mine}, {}, {launch_of(1056, 256, 32, 0, 1.0)}, 7, 132, 0);
    REQUIRE(why.causes.size() == 3);
    CHECK(contains(why.causes[0], "your grid is 64 blocks for 132 SMs"));
    CHECK(contains(why.causes[1], "48 bytes of local memory"));
    CHECK(contains(why.causes[2], "theoretical occupancy is 50%"));
    CHECK(contains(why.text(), "\n  also: your kernel uses 48 bytes"));
}

TEST_CASE("why slow: launches that look alike point inside the kernel")
{
    const wb::SlowLaunch why =
        wb::explain_launch_difference({launch_of(4096, 256)}, {}, {launch_of(4096, 256)}, 4, 132, 0);
    CHECK(contains(first_cause(why), "the launch looks like reference stage 4's"));
    CHECK(wb::explain_launch_difference({}, {}, {launch_of(4096, 256)}, 4, 132, 0).text().empty());
}

TEST_CASE("why slow: 32-thread blocks are limited by the blocks an SM holds")
{
    const wb::SmLimits hopper{2048, 32, 65536, 228 * 1024};
    wb::KernelFacts warp_blocks = launch_of(49152, 32, 30, 0, 0.5);
    warp_blocks.occupancy_limit = wb::occupancy_limit(warp_blocks, hopper);
    CHECK(warp_blocks.occupancy_limit ==
          "blocks of 32 threads, and an SM holds at most 32 blocks: 1024 of its 2048 threads");
    const wb::SlowLaunch why =
        wb::explain_launch_difference({warp_blocks}, {}, {launch_of(12288, 128, 30, 0, 1.0)}, 3, 132, 0);
    CHECK(contains(first_cause(why),
                   "theoretical occupancy is 50% against 100% for reference stage 3 (blocks of 32 "
                   "threads, and an SM holds at most 32 blocks"));
    // Registers: 128 per thread leave 2 blocks of 256 threads (512 of 2048); shared memory: 100 KB per block, 2.
    CHECK(contains(wb::occupancy_limit(launch_of(100, 256, 128), hopper),
                   "128 registers per thread leave room for 2 "
                   "blocks of 256 threads per SM: 512 of its"));
    wb::KernelFacts big_tile = launch_of(100, 256, 32);
    big_tile.static_shared = 100 * 1024;
    CHECK(
        contains(wb::occupancy_limit(big_tile, hopper), "102400 B of shared memory per block leave room for 2 blocks"));
    CHECK(wb::occupancy_limit(launch_of(100, 256, 32), hopper).empty());   // full: nothing to explain
}

TEST_CASE("too slow: the first line names the cause, then the speed-up")
{
    wb::SlowLaunch why;
    why.causes = {"your grid is 64 blocks for 132 SMs: 52% of the SMs have no work.", "3 launches where ..."};
    why.table = "\n    launch (largest kernel) ...";
    const std::string message =
        wb::too_slow_message("x0.15 over reference stage 6 (1.000 ms); required x1.80 (...)", why);
    CHECK(message.substr(0, message.find('\n')) ==
          "correct, but too slow: your grid is 64 blocks for 132 SMs: 52% of the SMs have no work.");
    CHECK(contains(message, "\n  speed: x0.15 over reference stage 6"));
    CHECK(contains(message, "\n  also: 3 launches"));
    const std::string bare = wb::too_slow_message("x0.90 over reference stage 1 (1.000 ms); required x2.00 (...)", {});
    CHECK(bare.rfind("correct, but too slow: x0.90 over reference stage 1", 0) == 0);
}

TEST_CASE("profile mode: one launcher's launch facts as a WORKBOOK-PROFILE line")
{
    wb::KernelFacts k = launch_of(64, 256, 32, 0, 0.5);
    k.name = "reduce_kernel<256>";
    const std::string line = wb::profile_line(7, "learner", "your stage", {k});
    CHECK(line ==
          "WORKBOOK-PROFILE {\"stage\": 7, \"which\": \"learner\", \"label\": \"your stage\", \"kernels\": "
          "[{\"name\": \"reduce_kernel<256>\", \"blocks\": 64, \"threads_per_block\": 256, \"registers\": 32, "
          "\"shared_bytes\": 0, \"local_bytes\": 0, \"occupancy\": 0.5, \"occupancy_limit\": \"\"}]}");
}

TEST_CASE("ledger: a learner's launcher that runs the reference solution's or a library's kernels is rejected")
{
    auto from = [](const std::string& origin) {
        wb::KernelFacts k = kernel();
        k.origin = origin;
        return k;
    };
    // On a GPU the origin is the qualified name; on the emulator the file:line of the launch.
    CHECK(wb::foreign_kernel_owner(from("reference::(anonymous namespace)::add_kernel"), "learner") ==
          "the reference solution's");
    CHECK(wb::foreign_kernel_owner(from("/home/me/workbook/solutions/02_reduce/8_warp_shuffle.cu:41"), "learner") ==
          "the reference solution's");
    CHECK(wb::foreign_kernel_owner(from("cub::CUB_300000_SM_900::detail::reduce::DeviceReduceKernel<Policy>"),
                                   "learner") == "a library's");
    CHECK(wb::foreign_kernel_owner(from("sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32"), "learner") ==
          "a library's");
    CHECK(wb::foreign_kernel_owner(from("emu/include/cub/device/device_reduce.cuh:88"), "learner") == "a library's");
    CHECK(wb::foreign_kernel_owner(from("solutions/01_elementwise/2_vectorized.cu:30"), "learner") ==
          "the reference solution's");
    // The learner's own kernels, wherever they live in the file, and the references graded as themselves.
    CHECK(wb::foreign_kernel_owner(from("learner::(anonymous namespace)::add_kernel"), "learner").empty());
    CHECK(wb::foreign_kernel_owner(from("add_kernel"), "learner").empty());   // a static kernel outside the namespace
    CHECK(wb::foreign_kernel_owner(from("/home/me/workbook/exercises/02_reduce/8_warp_shuffle.cu:41"), "learner")
              .empty());
    CHECK(wb::foreign_kernel_owner(from("reference::(anonymous namespace)::add_kernel"), "reference").empty());
    CHECK(wb::foreign_kernel_owner(from("/w/solutions/02_reduce/8_warp_shuffle.cu:41"), "reference").empty());
    CHECK(wb::foreign_kernel_owner(from(""), "learner").empty());   // origin unknown: no verdict

    wb::LedgerJudge judge("learner");
    judge.add(call_with({kernel(), from("reference::(anonymous namespace)::reduce_kernel<256>")}));
    REQUIRE(judge.verdict().has_value());
    CHECK(contains(*judge.verdict(), "ran kernels that are not yours"));
    CHECK(contains(*judge.verdict(), "the reference solution's kernel"));

    wb::LedgerJudge itself("reference");
    itself.add(call_with({from("reference::(anonymous namespace)::reduce_kernel<256>")}));
    CHECK_FALSE(itself.verdict().has_value());
}
