// The emulated memory verdict (harness/emulated_profile.hpp) on counters written out by hand: a stage
// that misses its idea is "too slow" naming the counter, the factor and the lesson; a kernel between the
// two references, or one in another style with the same behaviour, passes.
#include "harness/catch.hpp"
#include "harness/emulated_profile.hpp"

#include <string>

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// @p requests warp requests of 32 lanes x @p lane_bytes, each touching @p sectors sectors.
wb::AccessCount global(std::uint64_t requests, std::uint64_t lane_bytes, std::uint64_t sectors)
{
    wb::AccessCount a;
    a.requests = requests;
    a.bytes = requests * 32 * lane_bytes;
    a.sectors = requests * sectors;
    return a;
}

/// @p requests 4-byte shared requests of @p wavefronts wavefronts each.
wb::AccessCount shared(std::uint64_t requests, std::uint64_t wavefronts)
{
    wb::AccessCount a;
    a.requests = requests;
    a.bytes = requests * 128;
    a.wavefronts = requests * wavefronts;
    a.ideal_wavefronts = requests;
    return a;
}

wb::MemoryCounters transpose(std::uint64_t load_sectors, std::uint64_t store_sectors)
{
    wb::MemoryCounters m;
    m.kernels = 1;
    m.launches = 1;
    m.global_load = global(512, 4, load_sectors);
    m.global_store = global(512, 4, store_sectors);
    return m;
}

wb::MemoryCounters tiled(std::uint64_t column_read_wavefronts)
{
    wb::MemoryCounters m = transpose(4, 4);
    m.shared_store = shared(512, 1);
    m.shared_load = shared(512, column_read_wavefronts);
    return m;
}

}   // namespace

TEST_CASE("memory verdict: stage 2 written as stage 1 is too slow, uncoalesced writes", "[memory]")
{
    const wb::MemoryVerdict v = wb::memory_verdict(2, transpose(4, 32), transpose(4, 32), transpose(32, 4));
    CHECK(v.too_slow);
    CHECK(contains(v.sentence, "your global writes use 8.0x the sectors of reference stage 2 for the same bytes"));
    CHECK(contains(v.sentence, "(32.0 sectors per 128 bytes where it needs 4.0): uncoalesced"));
}

TEST_CASE("memory verdict: an unpadded tile at stage 4 is too slow, bank conflicts", "[memory]")
{
    const wb::MemoryVerdict v = wb::memory_verdict(4, tiled(32), tiled(32), tiled(1));
    CHECK(v.too_slow);
    CHECK(contains(v.sentence, "shared-memory reads use 32.0x the wavefronts per request of reference stage 4"));
    CHECK(contains(v.sentence, "bank conflicts"));
}

TEST_CASE("memory verdict: a kernel better than reference k-1 but worse than k passes with a note", "[memory]")
{
    const wb::MemoryVerdict v = wb::memory_verdict(4, tiled(8), tiled(32), tiled(1));
    CHECK_FALSE(v.too_slow);
    CHECK(contains(v.sentence, "better than reference stage 3"));
}

TEST_CASE("memory verdict: wider accesses with contiguous bytes are like the reference", "[memory]")
{
    // float4 lanes: 16 sectors per request, but 4 per 128 bytes, as the scalar reference.
    wb::MemoryCounters vectorised = tiled(1);
    vectorised.global_load = global(128, 16, 16);
    const wb::MemoryVerdict v = wb::memory_verdict(4, vectorised, tiled(32), tiled(1));
    CHECK_FALSE(v.too_slow);
    CHECK(v.sentence == "correct; memory behaviour like reference stage 4 (or better)");
}

TEST_CASE("memory verdict: without a previous reference nothing is too slow", "[memory]")
{
    const wb::MemoryVerdict v = wb::memory_verdict(1, transpose(32, 32), std::nullopt, transpose(4, 32));
    CHECK_FALSE(v.too_slow);
}

TEST_CASE("memory verdict: a counter the reference does not use is not compared", "[memory]")
{
    // A tile kernel where reference k moves data without shared memory: its conflicts are not judged.
    const wb::MemoryVerdict v = wb::memory_verdict(3, tiled(32), transpose(32, 4), transpose(4, 4));
    CHECK_FALSE(v.too_slow);
}

TEST_CASE("memory verdict: the table has the three columns", "[memory]")
{
    const std::string table = wb::memory_table(4, tiled(32), tiled(32), tiled(1));
    CHECK(contains(table, "yours"));
    CHECK(contains(table, "reference 3"));
    CHECK(contains(table, "reference 4"));
    CHECK(contains(table, "32.0"));
}

TEST_CASE("memory verdict: stage 1 worse than its reference is advice, never too slow", "[memory]")
{
    const wb::MemoryVerdict v = wb::memory_verdict(1, transpose(32, 32), std::nullopt, transpose(4, 32));
    CHECK_FALSE(v.too_slow);
    CHECK(v.sentence ==
          "correct, but your global reads use 8.0x the sectors of reference stage 1 for the same bytes (32.0 sectors "
          "per 128 bytes where it needs 4.0): uncoalesced (counted on the CPU emulator)");
    CHECK(contains(v.explanation, "consecutive lanes access consecutive addresses"));
}

namespace {

/// A shared-memory reduction with @p divergent of its 100 requests missing lanes.
wb::MemoryCounters reduction(std::uint64_t divergent)
{
    wb::MemoryCounters m;
    m.kernels = 1;
    m.launches = 1;
    m.global_load = global(10, 4, 4);
    m.shared_load = shared(90, 1);
    m.shared_load.divergent = divergent;
    return m;
}

}   // namespace

TEST_CASE("memory verdict: many more requests with idle lanes than the reference is advice on divergence", "[memory]")
{
    const wb::MemoryVerdict v = wb::memory_verdict(3, reduction(90), reduction(90), reduction(20));
    CHECK_FALSE(v.too_slow);   // advice only, even with the previous stage as bad
    CHECK(v.sentence ==
          "correct, but your warp requests have idle lanes in 90% of the requests where reference "
          "stage 3 has 20%: divergent branches (counted on the CPU emulator)");
    // Twice the share but less than a quarter of the requests more: not clearly worse.
    CHECK(wb::memory_verdict(3, reduction(30), reduction(30), reduction(10)).sentence ==
          "correct; memory behaviour like reference stage 3 (or better)");
    // From none at all: a quarter of the requests is enough.
    CHECK(contains(wb::memory_verdict(3, reduction(25), std::nullopt, reduction(0)).sentence, "divergent branches"));
}
