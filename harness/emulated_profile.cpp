// The emulated verdict on memory behaviour (see emulated_profile.hpp).
#include "harness/emulated_profile.hpp"

#include "harness/device.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

#if WORKBOOK_EMULATED
#include "emu/profile.hpp"
#endif

namespace wb {

namespace {

/// What a key counter measures, which decides how its comparison reads and what it teaches.
enum class Kind { sectors, wavefronts, idle_lanes, traffic };

/// A key counter of the verdict: what it measures, for whom, and how much worse is "clearly worse".
struct KeyCounter {
    Kind kind;
    const char* what;       ///< "global writes"
    const char* measure;    ///< how the value reads, after the number
    const char* lesson;     ///< the word the chapters teach it by
    double clearly_worse;   ///< the factor over reference stage k that fails a stage missing its idea
    double margin;          ///< and the least difference that counts (for counters the reference may have at 0)
    double (*value)(const MemoryCounters&);
    bool (*present)(const MemoryCounters&);
};

/// The 32-byte sectors all global requests moved: the traffic of the launch (before any cache).
double global_sectors(const MemoryCounters& m) { return double(m.global_load.sectors + m.global_store.sectors); }

double idle_fraction(const MemoryCounters& m)
{
    return m.requests() ? double(m.divergent()) / double(m.requests()) : 0.0;
}

const KeyCounter kKeyCounters[] = {
    {Kind::sectors, "global writes", "sectors per 128 bytes", "uncoalesced", 2.0, 0.0,
     [](const MemoryCounters& m) { return m.global_store.sectors_per_128_bytes(); },
     [](const MemoryCounters& m) { return m.global_store.requests > 0; }},
    {Kind::sectors, "global reads", "sectors per 128 bytes", "uncoalesced", 2.0, 0.0,
     [](const MemoryCounters& m) { return m.global_load.sectors_per_128_bytes(); },
     [](const MemoryCounters& m) { return m.global_load.requests > 0; }},
    {Kind::wavefronts, "shared-memory reads", "wavefronts per ideal wavefront", "bank conflicts", 3.0, 0.0,
     [](const MemoryCounters& m) { return m.shared_load.conflict_degree(); },
     [](const MemoryCounters& m) { return m.shared_load.requests > 0; }},
    {Kind::wavefronts, "shared-memory writes", "wavefronts per ideal wavefront", "bank conflicts", 3.0, 0.0,
     [](const MemoryCounters& m) { return m.shared_store.conflict_degree(); },
     [](const MemoryCounters& m) { return m.shared_store.requests > 0; }},
    // Idle lanes: a warp whose lanes take different paths runs both, one after the other. Clearly worse
    // means twice the reference's share of such requests and at least a quarter of all requests more.
    {Kind::idle_lanes, "warp requests", "of the requests with idle lanes", "divergent branches", 2.0, 0.25,
     idle_fraction, [](const MemoryCounters& m) { return m.requests() > 0; }},
    // Traffic: the same work moving twice the sectors (a pass more over the data, or operands read again
    // from global memory instead of a shared-memory tile or registers).
    {Kind::traffic, "global loads and stores", "sectors in all", "more passes over global memory", 2.0, 0.0,
     global_sectors, [](const MemoryCounters& m) { return m.global_load.requests + m.global_store.requests > 0; }},
};

std::string fixed(double value, int digits = 1)
{
    std::ostringstream text;
    text.setf(std::ios::fixed);
    text.precision(digits);
    text << value;
    return text.str();
}

std::string percent(double fraction) { return fixed(100.0 * fraction, 0) + "%"; }

/// "use 8.0x the sectors of reference stage 2 for the same bytes (32.0 sectors per 128 bytes where it needs
/// 4.0)", or for idle lanes "have idle lanes in 95% of the requests where reference stage 3 has 38%".
std::string comparison(const KeyCounter& key, double yours, double reference, int stage_id)
{
    const std::string ref = "reference stage " + std::to_string(stage_id);
    if (key.kind == Kind::idle_lanes) {
        return "have idle lanes in " + percent(yours) + " of the requests where " + ref + " has " + percent(reference);
    }
    if (key.kind == Kind::traffic) {
        return "move " + fixed(yours / reference) + "x the sectors of " + ref + " (" + fixed(yours, 0) + " " +
               key.measure + " where it needs " + fixed(reference, 0) + ")";
    }
    const std::string factor = "use " + fixed(yours / reference) + "x ";
    const std::string head = key.kind == Kind::sectors ? factor + "the sectors of " + ref + " for the same bytes"
                                                       : factor + "the wavefronts per request of " + ref;
    return head + " (" + fixed(yours) + " " + key.measure + " where it needs " + fixed(reference) + ")";
}

std::string why(const KeyCounter& key)
{
    switch (key.kind) {
        case Kind::sectors:
            return "The lanes of a warp touch bytes far apart, so each request moves many 32-byte sectors for few "
                   "useful bytes: make consecutive lanes access consecutive addresses (a shared-memory tile turns a "
                   "strided side into a coalesced one).";
        case Kind::wavefronts:
            return "Lanes of a warp hit different words of the same bank, and the hardware serves them one after "
                   "another: pad the array (e.g. [32][33]) or change the index so that the lanes of a warp spread over "
                   "the 32 banks.";
        case Kind::traffic:
            return "Your kernels move more data through global memory than the reference for the same result: data "
                   "read (or written and read back) more than once. Keep what a block reuses in shared memory or "
                   "registers, and fuse passes that read the same data.";
        case Kind::idle_lanes: break;
    }
    return "Many of your loads and stores run with part of the warp idle: the lanes of a warp took different "
           "branches, and the hardware runs each branch with the other lanes masked off. Give the work to whole "
           "warps (e.g. threads 0 to s-1 rather than every (2s)-th thread).";
}

/// Whether @p mine is clearly worse than @p theirs for @p key.
bool clearly_worse(const KeyCounter& key, double mine, double theirs)
{
    if (key.kind != Kind::idle_lanes && theirs <= 0.0) return false;
    return mine >= key.clearly_worse * theirs && mine - theirs >= key.margin && mine > theirs;
}

}   // namespace

MemoryVerdict memory_verdict(int stage_id, const MemoryCounters& yours, const std::optional<MemoryCounters>& previous,
                             const MemoryCounters& current)
{
    const std::string reference = "reference stage " + std::to_string(stage_id);
    const KeyCounter* worst = nullptr;   // clearly worse than stage k and no better than stage k-1
    double worst_factor = 0.0;
    const KeyCounter* worse = nullptr;      // clearly worse than stage k, but better than stage k-1
    const KeyCounter* unranked = nullptr;   // clearly worse than stage k, with no stage k-1 to compare with
    for (const KeyCounter& key : kKeyCounters) {
        if (!key.present(yours) || !key.present(current)) continue;
        const double mine = key.value(yours), theirs = key.value(current);
        if (!clearly_worse(key, mine, theirs)) continue;
        // Idle lanes and traffic are advice only: a bounds check, a last warp that reduces alone or another
        // way of caching is no missing idea.
        if (!previous || !key.present(*previous) || key.kind == Kind::idle_lanes || key.kind == Kind::traffic) {
            if (!unranked) unranked = &key;
            continue;
        }
        // The idea of the stage is missing only when the stage before did no worse: a kernel between
        // the two references (or one in another style that is better than the previous stage) passes.
        if (mine < 0.9 * key.value(*previous)) {
            if (!worse) worse = &key;
            continue;
        }
        const double factor = mine / theirs;
        if (factor > worst_factor) {
            worst = &key;
            worst_factor = factor;
        }
    }
    if (worst) {
        return {true,
                "correct, but your " + std::string(worst->what) + " " +
                    comparison(*worst, worst->value(yours), worst->value(current), stage_id) + ": " + worst->lesson +
                    " (counted on the CPU emulator)",
                why(*worst)};
    }
    if (unranked) {
        return {false,
                "correct, but your " + std::string(unranked->what) + " " +
                    comparison(*unranked, unranked->value(yours), unranked->value(current), stage_id) + ": " +
                    unranked->lesson + " (counted on the CPU emulator)",
                why(*unranked)};
    }
    if (worse) {
        return {false,
                "correct; your " + std::string(worse->what) + " " +
                    comparison(*worse, worse->value(yours), worse->value(current), stage_id) +
                    ", better than reference stage " + std::to_string(stage_id - 1) + " (" + worse->lesson + ")",
                ""};
    }
    return {false, "correct; memory behaviour like " + reference + " (or better)", ""};
}

std::string memory_table(int stage_id, const MemoryCounters& yours, const std::optional<MemoryCounters>& previous,
                         const MemoryCounters& current)
{
    struct Row {
        const char* name;
        std::string (*cell)(const MemoryCounters&);
    };
    static const Row rows[] = {
        {"kernels / launches",
         [](const MemoryCounters& m) { return std::to_string(m.kernels) + " / " + std::to_string(m.launches); }},
        {"global load requests", [](const MemoryCounters& m) { return std::to_string(m.global_load.requests); }},
        {"  sectors per request", [](const MemoryCounters& m) { return fixed(m.global_load.sectors_per_request()); }},
        {"  sectors per 128 bytes",
         [](const MemoryCounters& m) { return fixed(m.global_load.sectors_per_128_bytes()); }},
        {"global store requests", [](const MemoryCounters& m) { return std::to_string(m.global_store.requests); }},
        {"  sectors per request", [](const MemoryCounters& m) { return fixed(m.global_store.sectors_per_request()); }},
        {"  sectors per 128 bytes",
         [](const MemoryCounters& m) { return fixed(m.global_store.sectors_per_128_bytes()); }},
        {"shared load requests", [](const MemoryCounters& m) { return std::to_string(m.shared_load.requests); }},
        {"  conflict degree", [](const MemoryCounters& m) { return fixed(m.shared_load.conflict_degree()); }},
        {"shared store requests", [](const MemoryCounters& m) { return std::to_string(m.shared_store.requests); }},
        {"  conflict degree", [](const MemoryCounters& m) { return fixed(m.shared_store.conflict_degree()); }},
        {"global sectors in all",
         [](const MemoryCounters& m) { return std::to_string(m.global_load.sectors + m.global_store.sectors); }},
        {"requests with idle lanes", [](const MemoryCounters& m) { return std::to_string(m.divergent()); }},
        {"barriers per block",
         [](const MemoryCounters& m) { return fixed(m.blocks ? double(m.barriers) / double(m.blocks) : 0.0); }},
    };
    char line[160];
    std::string text;
    const std::string prev = "reference " + std::to_string(stage_id - 1);
    const std::string cur = "reference " + std::to_string(stage_id);
    std::snprintf(line, sizeof line, "  %-26s %12s %12s %12s\n", "counted on the emulator", "yours",
                  previous ? prev.c_str() : "", cur.c_str());
    text += line;
    for (const Row& row : rows) {
        std::snprintf(line, sizeof line, "  %-26s %12s %12s %12s\n", row.name, row.cell(yours).c_str(),
                      previous ? row.cell(*previous).c_str() : "", row.cell(current).c_str());
        text += line;
    }
    return text;
}

std::optional<MemoryCounters> count_memory_behaviour(const Launch& launch, cudaStream_t stream)
{
#if WORKBOOK_EMULATED
    emu::profile_begin();
    try {
        launch(stream);
        (void)cudaStreamSynchronize(stream);
    } catch (...) {
        emu::profile_end();
        throw;
    }
    const std::vector<emu::KernelCounters> kernels = emu::profile_end();
    if (cudaGetLastError() != cudaSuccess) return std::nullopt;
    MemoryCounters m;
    auto add = [](AccessCount& to, const emu::AccessCounters& from) {
        to.requests += from.requests;
        to.bytes += from.bytes;
        to.sectors += from.sectors;
        to.wavefronts += from.wavefronts;
        to.ideal_wavefronts += from.ideal_wavefronts;
        to.divergent += from.divergent;
    };
    for (const emu::KernelCounters& k : kernels) {
        ++m.kernels;
        m.launches += k.launches;
        m.blocks += k.blocks;
        m.barriers += k.barriers;
        add(m.global_load, k.global_load);
        add(m.global_store, k.global_store);
        add(m.shared_load, k.shared_load);
        add(m.shared_store, k.shared_store);
    }
    return m;
#else
    (void)launch;
    (void)stream;
    return std::nullopt;
#endif
}

}   // namespace wb

namespace wb {

namespace {

/// The candidate's counters as the JSON of a WORKBOOK-MEMORY line, which tools/emu_profile_table.py collects.
std::string memory_record(int stage_id, const MemoryCounters& m)
{
    char line[1024];
    std::snprintf(
        line, sizeof line,
        "{\"stage\": %d, \"kernels\": %d, \"launches\": %llu, "
        "\"global_load_requests\": %llu, \"global_load_sectors_per_request\": %s, "
        "\"global_load_sectors_per_128B\": %s, \"global_store_requests\": %llu, "
        "\"global_store_sectors_per_request\": %s, \"global_store_sectors_per_128B\": %s, "
        "\"global_sectors\": %llu, "
        "\"shared_load_requests\": %llu, \"shared_load_conflict_degree\": %s, "
        "\"shared_store_requests\": %llu, \"shared_store_conflict_degree\": %s, "
        "\"requests\": %llu, \"divergent_requests\": %llu, \"barriers_per_block\": %s}",
        stage_id, m.kernels, static_cast<unsigned long long>(m.launches),
        static_cast<unsigned long long>(m.global_load.requests), fixed(m.global_load.sectors_per_request(), 2).c_str(),
        fixed(m.global_load.sectors_per_128_bytes(), 2).c_str(),
        static_cast<unsigned long long>(m.global_store.requests),
        fixed(m.global_store.sectors_per_request(), 2).c_str(),
        fixed(m.global_store.sectors_per_128_bytes(), 2).c_str(),
        static_cast<unsigned long long>(m.global_load.sectors + m.global_store.sectors),
        static_cast<unsigned long long>(m.shared_load.requests), fixed(m.shared_load.conflict_degree(), 2).c_str(),
        static_cast<unsigned long long>(m.shared_store.requests), fixed(m.shared_store.conflict_degree(), 2).c_str(),
        static_cast<unsigned long long>(m.requests()), static_cast<unsigned long long>(m.divergent()),
        fixed(m.blocks ? double(m.barriers) / double(m.blocks) : 0.0, 2).c_str());
    return line;
}

}   // namespace

EmulatedMemoryJudgement judge_memory_behaviour(int stage_id, const MemoryCase& memory, cudaStream_t stream)
{
    EmulatedMemoryJudgement judgement;
    const std::optional<MemoryCounters> current = count_memory_behaviour(memory.current_reference, stream);
    if (!current) return judgement;   // a GPU build: nothing is counted
    if (current->requests() == 0) {
        // The instrumented copy of the references was not built (WORKBOOK_EMU_CHECKS=OFF): nothing to compare.
        std::printf("  memory behaviour not counted: it needs the emulator's access checks (WORKBOOK_EMU_CHECKS=ON)\n");
        return judgement;
    }
    const std::optional<MemoryCounters> yours = count_memory_behaviour(memory.candidate, stream);
    if (!yours) return judgement;
    std::optional<MemoryCounters> previous;
    if (memory.previous_reference) previous = count_memory_behaviour(memory.previous_reference, stream);

    std::printf("  memory behaviour on %s (counted on the CPU emulator, per warp request):\n%s",
                memory.description.c_str(), memory_table(stage_id, *yours, previous, *current).c_str());
    judgement.record = memory_record(stage_id, *yours);
    std::printf("WORKBOOK-MEMORY %s\n", judgement.record.c_str());
    judgement.fields = {{"emu_global_load_sectors_per_128B", yours->global_load.sectors_per_128_bytes()},
                        {"emu_global_store_sectors_per_128B", yours->global_store.sectors_per_128_bytes()},
                        {"emu_shared_load_conflict_degree", yours->shared_load.conflict_degree()},
                        {"emu_shared_store_conflict_degree", yours->shared_store.conflict_degree()}};
    if (yours->requests() == 0) {
        judgement.note =
            "correct; no memory access of your kernels was counted (no kernel, or code the emulator "
            "does not instrument)";
        return judgement;
    }
    const MemoryVerdict verdict = memory_verdict(stage_id, *yours, previous, *current);
    std::printf("  %s\n", verdict.sentence.c_str());
    if (!verdict.explanation.empty()) std::printf("  %s\n", verdict.explanation.c_str());
    if (verdict.too_slow && memory.graded) {
        judgement.failure = StageFailure{Status::too_slow, verdict.sentence + ".\n  " + verdict.explanation + "\n" +
                                                               memory_table(stage_id, *yours, previous, *current)};
    } else if (verdict.too_slow) {
        judgement.note = verdict.sentence + "; advice only: the speed itself is graded on a GPU";
    } else {
        judgement.note = verdict.sentence;
    }
    return judgement;
}

}   // namespace wb
