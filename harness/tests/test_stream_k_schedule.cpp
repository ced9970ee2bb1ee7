// Tests of chapter 7's stream-K schedule (chapters/07_sgemm/stream_k.hpp): every K step of every tile
// is computed exactly once, and the fixup reads exactly the partial sums the shares wrote. No GPU needed.
#include "harness/catch.hpp"

#include "07_sgemm/stream_k.hpp"

#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

namespace {

struct Shape {
    int M, N, K, slots;
};

// Sizes around the cases the grader and the benchmark use, on block-slot counts of several GPUs
// (264: 132 SMs x 2; 216: 108 x 2; 32: the emulator) and a few small ones.
const Shape kShapes[] = {
    {1024, 1024, 1024, 264}, {2048, 2048, 2048, 264}, {3072, 3072, 3072, 264}, {4096, 4096, 4096, 264},
    {8192, 8192, 8192, 264}, {3072, 3072, 3072, 216}, {1000, 999, 1001, 264},  {637, 64, 900, 264},
    {637, 64, 900, 32},      {17, 33, 65, 264},       {5, 4, 1024, 32},        {1, 1, 1, 264},
    {2600, 2604, 67, 264},   {2601, 2599, 45, 216},   {130, 66, 2, 264},       {4096, 4096, 4096, 7},
};

}   // namespace

TEST_CASE("stream-K: the tiles are numbered once each, in groups of rows", "[stream_k]")
{
    for (const Shape& s : kShapes) {
        const ch07::StreamK plan = ch07::StreamK::make(s.M, s.N, s.K, 128, 128, 16, s.slots);
        std::set<std::pair<int, int>> seen;
        for (int tile = 0; tile < plan.tiles_m * plan.tiles_n; ++tile) {
            const ch07::TileOrigin at = plan.origin(tile);
            REQUIRE(at.row >= 0);
            REQUIRE(at.row < plan.tiles_m);
            REQUIRE(at.col >= 0);
            REQUIRE(at.col < plan.tiles_n);
            seen.insert({at.row, at.col});
        }
        CHECK(static_cast<int>(seen.size()) == plan.tiles_m * plan.tiles_n);
    }
}

TEST_CASE("stream-K: whole waves stay whole, every share holds at least one K step", "[stream_k]")
{
    for (const Shape& s : kShapes) {
        CAPTURE(s.M, s.N, s.K, s.slots);
        const ch07::StreamK plan = ch07::StreamK::make(s.M, s.N, s.K, 128, 128, 16, s.slots);
        CHECK(plan.whole_tiles + plan.split_tiles == plan.tiles_m * plan.tiles_n);
        if (plan.split_tiles == 0) {
            CHECK(plan.shares == 0);
            continue;
        }
        CHECK(plan.whole_tiles % s.slots == 0);
        CHECK(plan.shares <= s.slots);
        CHECK(plan.share_begin(0) == 0);
        CHECK(plan.share_begin(plan.shares) == plan.split_steps);
        for (int b = 0; b < plan.shares; ++b) CHECK(plan.share_begin(b + 1) > plan.share_begin(b));
        for (std::int64_t step = 0; step < plan.split_steps; ++step) {
            const int b = plan.share_of_step(step);
            REQUIRE(plan.share_begin(b) <= step);
            REQUIRE(step < plan.share_begin(b + 1));
        }
    }
}

TEST_CASE("stream-K: the fixup reads exactly the partial sums the shares wrote", "[stream_k]")
{
    for (const Shape& s : kShapes) {
        CAPTURE(s.M, s.N, s.K, s.slots);
        const ch07::StreamK plan = ch07::StreamK::make(s.M, s.N, s.K, 128, 128, 16, s.slots);
        // What the shares kernel does: per tile, the K steps it computes, the slots it writes, the
        // tiles it stores whole.
        std::map<int, std::int64_t> steps_of_tile;
        std::map<int, std::set<std::int64_t>> written;
        std::set<int> stored_whole;
        for (int b = 0; b < plan.shares; ++b) {
            const std::int64_t first = plan.share_begin(b), last = plan.share_begin(b + 1);
            for (std::int64_t step = first; step < last;) {
                const int tile = static_cast<int>(step / plan.steps_per_tile);
                const int begin = static_cast<int>(step % plan.steps_per_tile);
                const int end = last - step < plan.steps_per_tile - begin ? begin + static_cast<int>(last - step)
                                                                          : plan.steps_per_tile;
                steps_of_tile[tile] += end - begin;
                if (begin == 0 && end == plan.steps_per_tile) {
                    stored_whole.insert(tile);
                } else {
                    const std::int64_t slot = plan.partial_slot(b, step == first);
                    CHECK(written[tile].count(slot) == 0);
                    for (const auto& other : written) CHECK((other.first == tile || other.second.count(slot) == 0));
                    written[tile].insert(slot);
                }
                step += end - begin;
            }
        }
        // What the fixup kernel does, tile by tile.
        for (int split = 0; split < plan.split_tiles; ++split) {
            CHECK(steps_of_tile[split] == plan.steps_per_tile);
            const std::int64_t tile_begin = static_cast<std::int64_t>(split) * plan.steps_per_tile;
            const std::int64_t tile_end = tile_begin + plan.steps_per_tile;
            int share = plan.share_of_step(tile_begin);
            if (plan.share_begin(share) <= tile_begin && plan.share_begin(share + 1) >= tile_end) {
                CHECK(stored_whole.count(split) == 1);
                CHECK(written[split].empty());
                continue;
            }
            std::set<std::int64_t> read;
            for (; share < plan.shares && plan.share_begin(share) < tile_end; ++share) {
                read.insert(plan.partial_slot(share, plan.share_begin(share) >= tile_begin));
            }
            CHECK(read == written[split]);
            CHECK(stored_whole.count(split) == 0);
        }
    }
}
