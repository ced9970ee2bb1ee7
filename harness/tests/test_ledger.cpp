// Tests of the launch ledger's verdicts (no GPU): no kernel, work on another stream, memory that grows
// with the calls, and the launch facts as a learner reads them.
#include "harness/catch.hpp"
#include "harness/launch_ledger.hpp"

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

}  // namespace

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

}  // namespace

TEST_CASE("why slow: a fixed 64-block grid on a 132-SM GPU is named first")
{
    const std::string why = wb::explain_launch_difference({launch_of(64, 256)}, {launch_of(8192, 256)},
                                                          {launch_of(1056, 256), launch_of(1, 256)}, 7, 132, 1e9);
    CHECK(contains(why, "why: your grid is 64 blocks for 132 SMs: 52% of the SMs have no work"));
    CHECK(contains(why, "reference 6"));
    CHECK(contains(why, "reference stage 7"));
}

TEST_CASE("why slow: one element per thread where the reference moves four")
{
    const double bytes = 2.0 * 4096 * 4096 * 4;
    const std::string why = wb::explain_launch_difference({launch_of(16384, 1024)}, {launch_of(16384, 256)},
                                                          {launch_of(16384, 256)}, 4, 132, bytes);
    CHECK(contains(why, "each of your threads moves 8 bytes, each thread of reference stage 4 32"));
}

TEST_CASE("why slow: more launches, spills and low occupancy")
{
    const std::string launches = wb::explain_launch_difference({launch_of(49152, 32), launch_of(49152, 32)}, {},
                                                               {launch_of(6144, 256)}, 3, 132, 0);
    CHECK(contains(launches, "2 launches where reference stage 3 uses 1"));
    const std::string spills = wb::explain_launch_difference({launch_of(4096, 256, 255, 96)}, {},
                                                             {launch_of(4096, 256, 128, 0)}, 7, 132, 0);
    CHECK(contains(spills, "96 bytes of local memory per thread"));
    const std::string occupancy = wb::explain_launch_difference({launch_of(4096, 256, 128, 0, 0.25)}, {},
                                                                {launch_of(4096, 256, 40, 0, 1.0)}, 7, 132, 0);
    CHECK(contains(occupancy, "theoretical occupancy is 25% against 100%"));
}
