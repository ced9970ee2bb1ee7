/// @file harness/emulated_profile.hpp
/// @brief "Why would my kernel be slow?" without a GPU: the emulator's memory-behaviour counters of
/// the learner's stage beside those of reference stages k-1 and k, and the verdict drawn from them.
///
/// On the CPU emulator, once a stage is correct, Stage::compare_memory_behaviour runs the candidate's
/// launcher and the two references once each on one small input while the emulator counts (see
/// emu/profile.hpp: warp requests, 32-byte sectors per request, shared-memory wavefronts per request,
/// requests with idle lanes, barriers), prints a three-column table, and gives a verdict:
///   - "too slow" when a key counter is clearly worse than reference stage k (at least twice the global
///     sectors for the same bytes, or three times the shared-memory wavefronts) and no better than
///     reference stage k-1: the idea of the stage is missing ("your global writes use 8.0x the sectors
///     of reference stage 2 for the same bytes ...: uncoalesced"). Only where the grader asks for it
///     (MemoryCase::graded, chapter 5); elsewhere the same sentence is advice beside a pass;
///   - advice beside a pass when a key counter is clearly worse than reference stage k with no stage
///     k-1 to rank it against, or when the warp requests have idle lanes far more often than reference
///     stage k's ("divergent branches"): "correct, but your ...";
///   - passed otherwise, with the table and a note ("correct; memory behaviour like reference stage k").
/// Counting needs instrumented code: the learner's stages are; the references are counted through an
/// instrumented copy compiled into namespace `counted` (emulated build only, cmake/WorkbookChapter.cmake).
/// On a GPU nothing of this runs (Nsight Compute is the tool there).
#pragma once

#include "harness/stage.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace wb {

/// What one grader asks to compare: launches on one small input, made on the instrumented code.
struct MemoryCase {
    std::string description;     ///< the input, e.g. "256 x 256 floats"
    Launch candidate;            ///< the stage being graded (instrumented: learner code, or `counted`)
    Launch previous_reference;   ///< reference stage k-1 from namespace `counted` (may be empty)
    Launch current_reference;    ///< reference stage k from namespace `counted`
    /// Whether a stage that misses the idea of its stage (see memory_verdict) fails as "too slow". Only
    /// where the counters are the idea itself (chapter 5: coalescing and bank conflicts); elsewhere the
    /// verdict is advice beside a pass, since a different design may legitimately count differently.
    bool graded = false;
};

/// Counters of one kind of access (the sums over the kernels of one launcher call).
struct AccessCount {
    std::uint64_t requests = 0, bytes = 0, sectors = 0, wavefronts = 0, ideal_wavefronts = 0, divergent = 0;
    double sectors_per_request() const { return requests ? double(sectors) / double(requests) : 0.0; }
    double sectors_per_128_bytes() const { return bytes ? 128.0 * double(sectors) / double(bytes) : 0.0; }
    double conflict_degree() const { return ideal_wavefronts ? double(wavefronts) / double(ideal_wavefronts) : 0.0; }
};

/// The counters of one launcher call.
struct MemoryCounters {
    int kernels = 0;
    std::uint64_t launches = 0, blocks = 0, barriers = 0;
    AccessCount global_load, global_store, shared_load, shared_store;
    std::uint64_t requests() const
    {
        return global_load.requests + global_store.requests + shared_load.requests + shared_store.requests;
    }
    std::uint64_t divergent() const
    {
        return global_load.divergent + global_store.divergent + shared_load.divergent + shared_store.divergent;
    }
};

/// The verdict drawn from the counters (pure logic, tested without a GPU).
struct MemoryVerdict {
    bool too_slow = false;
    std::string sentence;      ///< the first line of the verdict: "correct; ..." or "correct, but ..."
    std::string explanation;   ///< for a failure: what the counter means and what the stage does about it
};

/// @p yours against reference stage @p stage_id (@p current) and stage_id - 1 (@p previous, if any).
MemoryVerdict memory_verdict(int stage_id, const MemoryCounters& yours, const std::optional<MemoryCounters>& previous,
                             const MemoryCounters& current);

/// The three-column table (yours, reference k-1, reference k), one counter a row.
std::string memory_table(int stage_id, const MemoryCounters& yours, const std::optional<MemoryCounters>& previous,
                         const MemoryCounters& current);

/// Runs @p launch once on @p stream while the emulator counts; nothing when counting is not possible
/// here (a GPU build). Throws what the launch throws.
std::optional<MemoryCounters> count_memory_behaviour(const Launch& launch, cudaStream_t stream);

/// What Stage::compare_memory_behaviour does with a MemoryCase: the failure to raise (too slow), or the
/// note of a stage that passes; and the numbers for the result line.
struct EmulatedMemoryJudgement {
    std::optional<StageFailure> failure;
    std::string note;
    std::vector<std::pair<std::string, double>> fields;
    std::string record;   ///< the candidate's counters as JSON (the WORKBOOK-MEMORY line), "" when none
};

/// Counts the three launches of @p memory (printing the table and a WORKBOOK-MEMORY line with the
/// candidate's counters) and judges them. Where nothing could be counted, a note says why.
EmulatedMemoryJudgement judge_memory_behaviour(int stage_id, const MemoryCase& memory, cudaStream_t stream);

}   // namespace wb
