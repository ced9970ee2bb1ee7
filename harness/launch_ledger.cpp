#include "harness/launch_ledger.hpp"

#include "common/cuda_check.hpp"
#include "harness/device.hpp"
#include "harness/device_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cxxabi.h>
#include <memory>
#include <regex>
#include <sstream>

#if WORKBOOK_EMULATED
#include "emu/grader_api.hpp"
#elif WORKBOOK_HAVE_CUPTI
#include <cupti.h>
#endif

namespace wb {

int LaunchRecord::kernels_on_given_stream() const
{
    int count = 0;
    for (const KernelFacts& k : kernels) count += k.on_given_stream ? 1 : 0;
    return count;
}

namespace {

/// "learner::(anonymous namespace)::reduce_kernel<256>(float const*, float*, long)" ->
/// "learner::(anonymous namespace)::reduce_kernel<256>": demangled, without the parameter list.
[[maybe_unused]] std::string qualified_kernel_name(const std::string& raw)
{
    std::string name = raw;
    int status = 0;
    if (std::unique_ptr<char, void (*)(void*)> demangled{abi::__cxa_demangle(raw.c_str(), nullptr, nullptr, &status),
                                                         std::free};
        status == 0 && demangled) {
        name = demangled.get();
    }
    int depth = 0;
    for (std::size_t i = 0; i < name.size(); ++i) {
        if (name[i] == '<') ++depth;
        if (name[i] == '>') --depth;
        if (name[i] == '(' && depth == 0 && name.compare(i, 11, "(anonymous ") != 0) {
            name.resize(i);
            break;
        }
    }
    // A return type written before the name ("void learner::kernel<...>") is not part of it.
    if (name.compare(0, 5, "void ") == 0) name.erase(0, 5);
    return name;
}

/// "ch02::(anonymous namespace)::reduce_kernel<256>(float const*, float*, long)" -> "reduce_kernel<256>":
/// the qualified name without its namespaces (outside template brackets).
[[maybe_unused]] std::string short_kernel_name(const std::string& raw)
{
    const std::string name = qualified_kernel_name(raw);
    std::size_t start = 0;
    int depth = 0;
    for (std::size_t i = 0; i + 1 < name.size(); ++i) {
        if (name[i] == '<') ++depth;
        if (name[i] == '>') --depth;
        if (depth == 0 && name[i] == ':' && name[i + 1] == ':') start = i + 2;
    }
    return name.substr(start);
}

std::string dims(const dim3& d)
{
    std::string text = std::to_string(d.x);
    if (d.y != 1 || d.z != 1) text += " x " + std::to_string(d.y);
    if (d.z != 1) text += " x " + std::to_string(d.z);
    return text;
}

}   // namespace

std::string describe_kernels(const std::vector<KernelFacts>& kernels)
{
    std::ostringstream text;
    text << kernels.size() << (kernels.size() == 1 ? " kernel" : " kernels");
    for (std::size_t i = 0; i < kernels.size(); ++i) {
        const KernelFacts& k = kernels[i];
        text << (i == 0 ? ": " : "; ") << "`" << k.name << "` grid " << dims(k.grid) << " x block " << dims(k.block)
             << ", " << k.shared_per_block() << " B shared";
        if (k.registers >= 0) text << ", " << k.registers << " registers";
        if (k.local_bytes > 0) text << ", " << k.local_bytes << " B local memory per thread (spills?)";
        if (!k.on_given_stream) text << ", on another stream";
    }
    return text.str();
}

// ---- why a stage is slow ---------------------------------------------------------------------------

namespace {

/// The kernel that does most of the work: the one with the most threads.
const KernelFacts* main_kernel(const std::vector<KernelFacts>& kernels)
{
    const KernelFacts* best = nullptr;
    for (const KernelFacts& k : kernels) {
        if (!best || k.blocks() * k.threads_per_block() > best->blocks() * best->threads_per_block()) best = &k;
    }
    return best;
}

std::int64_t all_threads(const std::vector<KernelFacts>& kernels)
{
    std::int64_t threads = 0;
    for (const KernelFacts& k : kernels) threads += k.blocks() * k.threads_per_block();
    return threads;
}

std::string cell(const std::vector<KernelFacts>& kernels, const std::string& row, double bytes)
{
    const KernelFacts* k = main_kernel(kernels);
    if (!k) return "-";
    std::ostringstream text;
    if (row == "kernels launched") text << kernels.size();
    if (row == "grid (blocks)") text << k->blocks();
    if (row == "threads per block") text << k->threads_per_block();
    if (row == "registers per thread") text << (k->registers >= 0 ? std::to_string(k->registers) : "-");
    if (row == "shared memory per block") text << k->shared_per_block() << " B";
    if (row == "local memory per thread") text << (k->local_bytes >= 0 ? std::to_string(k->local_bytes) + " B" : "-");
    if (row == "theoretical occupancy") {
        if (k->occupancy >= 0) {
            text << static_cast<int>(100.0 * k->occupancy + 0.5) << "%";
        } else {
            text << "-";
        }
    }
    if (row == "bytes moved per thread") {
        const std::int64_t threads = all_threads(kernels);
        if (bytes > 0 && threads > 0) {
            text << static_cast<std::int64_t>(bytes / threads + 0.5);
        } else {
            text << "-";
        }
    }
    return text.str();
}

}   // namespace

std::string occupancy_limit(const KernelFacts& kernel, const SmLimits& sm)
{
    const std::int64_t threads = kernel.threads_per_block();
    if (threads <= 0 || sm.threads <= 0 || sm.blocks <= 0) return "";
    const std::int64_t by_threads = sm.threads / threads;
    std::int64_t by_registers = by_threads;
    if (kernel.registers > 0 && sm.registers > 0) {
        const std::int64_t warps = (threads + 31) / 32;
        const std::int64_t per_warp = (kernel.registers * 32 + 255) / 256 * 256;   // allocated per warp, by 256
        by_registers = sm.registers / per_warp / warps;
    }
    std::int64_t by_shared = by_threads;
    if (kernel.shared_per_block() > 0 && sm.shared > 0) {
        by_shared = static_cast<std::int64_t>(sm.shared / (kernel.shared_per_block() + 1024));   // 1 KiB reserved
    }
    const std::int64_t resident = std::min({by_threads, std::int64_t(sm.blocks), by_registers, by_shared});
    if (resident >= by_threads) return "";   // the SM is as full as its thread limit allows
    const std::string held = std::to_string(resident * threads) + " of its " + std::to_string(sm.threads) + " threads";
    if (resident == sm.blocks) {
        return "blocks of " + std::to_string(threads) + " threads, and an SM holds at most " +
               std::to_string(sm.blocks) + " blocks: " + held;
    }
    if (resident == by_registers) {
        return std::to_string(kernel.registers) + " registers per thread leave room for " + std::to_string(resident) +
               (resident == 1 ? " block" : " blocks") + " of " + std::to_string(threads) + " threads per SM: " + held;
    }
    return std::to_string(kernel.shared_per_block()) + " B of shared memory per block leave room for " +
           std::to_string(resident) + (resident == 1 ? " block" : " blocks") + " per SM: " + held;
}

std::string SlowLaunch::text() const
{
    if (causes.empty() && table.empty()) return "";
    std::string out = "why: " + (causes.empty() ? std::string("-") : causes.front());
    for (std::size_t i = 1; i < causes.size(); ++i) out += (i == 1 ? "\n  also: " : "\n        ") + causes[i];
    return out + table;
}

namespace {

/// One difference between the learner's launch and the reference's, with a rough estimate of how many
/// times slower it makes the kernel (only for ranking: the first sentence names the largest).
struct Cause {
    double cost;
    std::string sentence;
};

std::string percent(double x) { return std::to_string(static_cast<int>(100.0 * x + 0.5)) + "%"; }

std::optional<Cause> idle_sms(const KernelFacts& mine, const KernelFacts& ref, int sm_count,
                              const std::string& ref_name)
{
    if (sm_count <= 0 || mine.blocks() >= sm_count || ref.blocks() < sm_count) return std::nullopt;
    return Cause{double(sm_count) / double(std::max<std::int64_t>(1, mine.blocks())),
                 "your grid is " + std::to_string(mine.blocks()) + " blocks for " + std::to_string(sm_count) +
                     " SMs: " + percent(1.0 - double(mine.blocks()) / sm_count) + " of the SMs have no work (" +
                     ref_name + " launches " + std::to_string(ref.blocks()) + "; size the grid from the SM count)."};
}

std::optional<Cause> spills(const KernelFacts& mine, const KernelFacts& ref, const std::string& ref_name)
{
    if (mine.local_bytes <= 0 || ref.local_bytes != 0) return std::nullopt;
    return Cause{2.0, "your kernel uses " + std::to_string(mine.local_bytes) + " bytes of local memory per thread (" +
                          ref_name +
                          ": none): registers spilled, or an array indexed at run time, each access a trip "
                          "to memory."};
}

std::optional<Cause> low_occupancy(const KernelFacts& mine, const KernelFacts& ref, const std::string& ref_name)
{
    if (mine.occupancy <= 0 || ref.occupancy < 0 || mine.occupancy >= 0.6 * ref.occupancy) return std::nullopt;
    std::string limit = mine.occupancy_limit;
    if (limit.empty()) {
        limit =
            std::to_string(mine.threads_per_block()) + " threads per block" +
            (mine.registers >= 0 ? ", " + std::to_string(mine.registers) + " registers per thread" : std::string()) +
            ", " + std::to_string(mine.shared_per_block()) + " B of shared memory per block";
    }
    return Cause{std::sqrt(ref.occupancy / mine.occupancy), "your kernel's theoretical occupancy is " +
                                                                percent(mine.occupancy) + " against " +
                                                                percent(ref.occupancy) + " for " + ref_name + " (" +
                                                                limit + "): fewer warps to hide memory latency."};
}

std::optional<Cause> more_launches(std::size_t mine, std::size_t ref, const std::string& ref_name)
{
    if (mine <= ref) return std::nullopt;
    return Cause{1.0 + 0.25 * double(mine - ref),
                 std::to_string(mine) + " launches where " + ref_name + " uses " + std::to_string(ref) +
                     ": every launch costs a few microseconds, and every pass between them reads memory again."};
}

std::optional<Cause> less_work_per_thread(std::int64_t mine_threads, std::int64_t ref_threads, double bytes,
                                          const std::string& ref_name)
{
    if (bytes <= 0 || mine_threads <= 0 || ref_threads <= 0) return std::nullopt;
    const double mine = bytes / double(mine_threads), ref = bytes / double(ref_threads);
    if (mine * 1.9 >= ref) return std::nullopt;
    return Cause{1.0 + 0.1 * (ref / mine - 1.0),
                 "each of your threads moves " + std::to_string(static_cast<std::int64_t>(mine + 0.5)) +
                     " bytes, each thread of " + ref_name + " " + std::to_string(static_cast<std::int64_t>(ref + 0.5)) +
                     ": fewer loads in flight per thread, and the index arithmetic and bounds tests paid for fewer "
                     "bytes."};
}

}   // namespace

SlowLaunch explain_launch_difference(const std::vector<KernelFacts>& yours, const std::vector<KernelFacts>& previous,
                                     const std::vector<KernelFacts>& current, int current_id, int sm_count,
                                     double bytes)
{
    const KernelFacts* mine = main_kernel(yours);
    const KernelFacts* ref = main_kernel(current);
    if (!mine || !ref) return {};
    const std::string ref_name = "reference stage " + std::to_string(current_id);
    std::vector<Cause> causes;
    for (const std::optional<Cause>& cause :
         {idle_sms(*mine, *ref, sm_count, ref_name), spills(*mine, *ref, ref_name),
          low_occupancy(*mine, *ref, ref_name), more_launches(yours.size(), current.size(), ref_name),
          less_work_per_thread(all_threads(yours), all_threads(current), bytes, ref_name)}) {
        if (cause) causes.push_back(*cause);
    }
    std::stable_sort(causes.begin(), causes.end(), [](const Cause& a, const Cause& b) { return a.cost > b.cost; });
    SlowLaunch result;
    for (const Cause& cause : causes) result.causes.push_back(cause.sentence);
    if (result.causes.empty()) {
        result.causes.push_back("the launch looks like " + ref_name +
                                "'s; the difference is inside the kernel (access "
                                "pattern, bank conflicts, divergence, extra passes over memory): compare your kernel "
                                "with the stage's idea, or profile it (make profile-chapter).");
    }
    const char* rows[] = {"kernels launched",      "grid (blocks)",           "threads per block",
                          "registers per thread",  "shared memory per block", "local memory per thread",
                          "theoretical occupancy", "bytes moved per thread"};
    std::ostringstream table;
    char line[160];
    std::snprintf(line, sizeof line, "\n    %-26s %-14s %-20s %-20s", "launch (largest kernel)", "yours",
                  ("reference " + std::to_string(current_id - 1)).c_str(), ref_name.c_str());
    table << line;
    for (const char* row : rows) {
        std::snprintf(line, sizeof line, "\n    %-26s %-14s %-20s %-20s", row, cell(yours, row, bytes).c_str(),
                      cell(previous, row, bytes).c_str(), cell(current, row, bytes).c_str());
        table << line;
    }
    result.table = table.str();
    return result;
}

// ---- the verdicts ---------------------------------------------------------------------------------

std::string foreign_kernel_owner(const KernelFacts& kernel, const std::string& candidate_track)
{
    const std::string& origin = kernel.origin;
    if (origin.empty()) return "";
    // On a GPU the origin is the kernel's qualified name; on the emulator the file of its launch.
    const bool reference_name = origin.rfind("reference::", 0) == 0;
    static const std::regex solution_file(R"((^|/)solutions/[0-9][0-9]_[A-Za-z0-9_]+/[^/]+:[0-9]+$)");
    if (candidate_track != "reference" && (reference_name || std::regex_search(origin, solution_file)))
        return "the reference solution's";
    static const std::regex library_name(R"(^(cub|thrust|cutlass|cudnn|cublas[A-Za-z]*)::|^sm[0-9]+_xmma|^cutlass_)");
    static const std::regex emulated_library_file(R"((^|/)emu/include/(cub|thrust)/)");
    if (std::regex_search(origin, library_name) || std::regex_search(origin, emulated_library_file))
        return "a library's";
    return "";
}

void LedgerJudge::add(const LaunchRecord& record)
{
    if (!record.available) return;
    ++calls_;
    for (const KernelFacts& k : record.kernels) {
        const std::string owner = foreign_kernel_owner(k, track_);
        const std::string what = "`" + k.name + "` (" + owner + " kernel)";
        if (!owner.empty() && foreign_.size() < 3 &&
            std::find(foreign_.begin(), foreign_.end(), what) == foreign_.end()) {
            foreign_.push_back(what);
        }
    }
    kernels_on_stream_ += record.kernels_on_given_stream();
    for (const std::string& what : record.elsewhere) {
        if (elsewhere_.size() < 3) elsewhere_.push_back(what);
    }
    if (!record.to_host.empty()) ++calls_copying_to_host_;
    for (const std::string& what : record.to_host) {
        if (to_host_.size() < 3 && std::find(to_host_.begin(), to_host_.end(), what) == to_host_.end())
            to_host_.push_back(what);
    }
    const std::size_t kept_before = kept_.size();
    for (const auto& [address, bytes] : record.allocated) kept_[address] = bytes;
    for (std::uintptr_t address : record.released) kept_.erase(address);
    if (kept_.size() > kept_before) ++calls_that_kept_memory_;
}

namespace {

/// One indented line per item, for a verdict that lists what it saw.
std::string indented_lines(const std::vector<std::string>& items)
{
    std::string text;
    for (const std::string& item : items) text += "\n    " + item;
    return text;
}

}   // namespace

std::optional<std::string> LedgerJudge::verdict() const
{
    if (calls_ == 0) return std::nullopt;
    if (!foreign_.empty()) {
        return std::string("your launcher ran kernels that are not yours:" + indented_lines(foreign_) +
                           "\n  the results may be right, but they are not your work: a call of the reference "
                           "solution's launcher, or of a library (CUB, Thrust, cuBLAS), does the stage for you. "
                           "Write the kernel in your stage file and launch it on the stream you were given.");
    }
    const bool no_kernel_anywhere =
        kernels_on_stream_ == 0 && std::none_of(elsewhere_.begin(), elsewhere_.end(),
                                                [](const std::string& what) { return what.rfind("kernel ", 0) == 0; });
    if (!to_host_.empty() && !no_kernel_anywhere) {
        return std::string(
            "your launcher copies data from the GPU to the host: " + std::to_string(calls_copying_to_host_) +
            " of its " + std::to_string(calls_) + " calls did:" + indented_lines(to_host_) +
            "\n  the results may be right, but the stage's work is a kernel's: a launcher only "
            "launches, asynchronously on the stream it was given. A copy to the host makes the CPU "
            "wait for the GPU, and what the CPU then computes is not your kernel's work.\n  likely "
            "cause: part of the result (a final sum, a row's statistics) computed on the CPU and "
            "handed back to a kernel, or a value read back to decide the next launch. Keep it on "
            "the GPU: compute it in a kernel, and let the next kernel read it from device memory.");
    }
    if (!elsewhere_.empty()) {
        return std::string(
            "your launcher put work on another stream than the one it was given:" + indented_lines(elsewhere_) +
            "\n  likely cause: a launch without its stream, kernel<<<grid, block>>>(...), or a "
            "cudaMemcpy / cudaMemset without the stream, runs on the default stream instead of the "
            "stream it was given: unordered with the grader's work and outside its timing. Pass the "
            "stream you were given: "
            "kernel<<<grid, block, shared_bytes, stream>>>(...), cudaMemsetAsync(..., stream).");
    }
    if (kernels_on_stream_ == 0) {
        return std::string("your launcher launched no kernel: in " + std::to_string(calls_) +
                           " calls not one kernel ran on the stream it was given, although the results came "
                           "out right.\n  likely cause: the result was computed on the host (copied to the CPU "
                           "and back) or by copies alone. The stage is about writing the kernel: launch it "
                           "on the stream you were given.");
    }
    // A launcher may keep one buffer for later calls; memory that grows with the calls is a leak.
    if (calls_that_kept_memory_ >= 3) {
        std::size_t bytes = 0;
        for (const auto& entry : kept_) bytes += entry.second;
        return std::string("your launcher leaks device memory: " + std::to_string(calls_that_kept_memory_) +
                           " of its " + std::to_string(calls_) + " calls allocated memory they never freed (" +
                           std::to_string(kept_.size()) + " allocations, " + std::to_string(bytes) +
                           " bytes still held).\n  likely cause: a cudaMalloc (or cudaMallocAsync) in the "
                           "launcher without its cudaFree (cudaFreeAsync on the stream): in a program that "
                           "calls it in a loop the GPU runs out of memory. Free what you allocate, or "
                           "allocate once and reuse it.");
    }
    return std::nullopt;
}

// ---- the backends ---------------------------------------------------------------------------------

#if WORKBOOK_EMULATED

namespace {
cudaStream_t g_window_stream = nullptr;
}

const std::string& ledger_unavailable_reason()
{
    static const std::string none;
    return none;
}

void ledger_begin(cudaStream_t stream)
{
    g_window_stream = stream;
    emu::ledger_begin();
}

void ledger_abandon() { (void)emu::ledger_end(); }

LaunchRecord ledger_end()
{
    (void)cudaDeviceSynchronize();
    (void)cudaGetLastError();
    const emu::Ledger ledger = emu::ledger_end();
    LaunchRecord record;
    record.available = true;
    auto stream_name = [](cudaStream_t s) {
        return s == nullptr || s == cudaStreamLegacy ? std::string("the legacy default stream")
                                                     : std::string("another stream");
    };
    for (const emu::LedgerKernel& k : ledger.kernels) {
        KernelFacts facts;
        facts.name = k.name;
        facts.origin = k.where;
        facts.grid = k.grid;
        facts.block = k.block;
        facts.static_shared = k.static_shared;
        facts.dynamic_shared = k.dynamic_shared;
        facts.on_given_stream = k.stream == g_window_stream;
        if (!facts.on_given_stream) {
            record.elsewhere.push_back("kernel `" + k.name + "` (launched at " + k.where + ") ran on " +
                                       stream_name(k.stream));
        }
        record.kernels.push_back(facts);
    }
    for (const emu::LedgerOperation& op : ledger.operations) {
        if (op.stream != g_window_stream) record.elsewhere.push_back(op.what + " ran on " + stream_name(op.stream));
        if (op.what.find("device to host") != std::string::npos) record.to_host.push_back(op.what);
    }
    for (const emu::LedgerAllocation& a : ledger.allocated) record.allocated[a.address] = a.bytes;
    record.released = ledger.released;
    return record;
}

#elif WORKBOOK_HAVE_CUPTI

namespace {

#if CUPTI_API_VERSION < 130000
#error "the launch ledger reads CUPTI's records of CUDA 13 (CUpti_ActivityKernel10); build without WORKBOOK_HAVE_CUPTI"
#endif
using KernelActivity = CUpti_ActivityKernel10;
using MemcpyActivity = CUpti_ActivityMemcpy6;
using MemsetActivity = CUpti_ActivityMemset4;
using MemoryActivity = CUpti_ActivityMemory4;

constexpr const char* kMarkerName = "workbook_ledger_marker_kernel";
const CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                     CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_MEMORY2};

struct RawKernel {
    KernelFacts facts;
    std::uint32_t stream_id;
};

/// What the activity buffers delivered since the window opened (CUPTI calls back on this thread
/// inside cuptiActivityFlushAll).
struct Window {
    bool open = false;
    std::vector<RawKernel> kernels;
    std::vector<std::pair<std::string, std::uint32_t>> operations;   // copies and fills with their stream
    std::vector<std::string> to_host;                                // copies from device to host
    LaunchRecord record;
};
Window g_window;

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records)
{
    *size = std::size_t(1) << 20;
    *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, *size));
    *max_records = 0;
}

const char* copy_kind_name(std::uint8_t kind)
{
    switch (kind) {
        case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "a copy from host to device";
        case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "a copy from device to host";
        case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "a copy from device to device";
        default: return "a copy";
    }
}

void CUPTIAPI buffer_completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t, std::size_t valid)
{
    CUpti_Activity* record = nullptr;
    while (g_window.open && cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
        switch (record->kind) {
            case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
            case CUPTI_ACTIVITY_KIND_KERNEL: {
                const auto* k = reinterpret_cast<const KernelActivity*>(record);
                RawKernel raw;
                raw.facts.name = short_kernel_name(k->name ? k->name : "?");
                raw.facts.origin = qualified_kernel_name(k->name ? k->name : "");
                raw.facts.grid = dim3(k->gridX, k->gridY, k->gridZ);
                raw.facts.block = dim3(k->blockX, k->blockY, k->blockZ);
                raw.facts.static_shared = k->staticSharedMemory;
                raw.facts.dynamic_shared = k->dynamicSharedMemory;
                raw.facts.registers = k->registersPerThread;
                raw.facts.local_bytes = static_cast<int>(k->localMemoryPerThread);
                raw.stream_id = k->streamId;
                g_window.kernels.push_back(raw);
                break;
            }
            case CUPTI_ACTIVITY_KIND_MEMCPY: {
                const auto* m = reinterpret_cast<const MemcpyActivity*>(record);
                g_window.operations.emplace_back(copy_kind_name(m->copyKind), m->streamId);
                if (m->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOH)
                    g_window.to_host.push_back("a copy of " + std::to_string(m->bytes) + " bytes from device to host");
                break;
            }
            case CUPTI_ACTIVITY_KIND_MEMSET: {
                const auto* m = reinterpret_cast<const MemsetActivity*>(record);
                g_window.operations.emplace_back("a memset", m->streamId);
                break;
            }
            case CUPTI_ACTIVITY_KIND_MEMORY2: {
                const auto* m = reinterpret_cast<const MemoryActivity*>(record);
                if (m->memoryKind != CUPTI_ACTIVITY_MEMORY_KIND_DEVICE) break;
                if (m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION) {
                    g_window.record.allocated[m->address] = m->bytes;
                } else if (m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE) {
                    g_window.record.released.push_back(m->address);
                }
                break;
            }
            default: break;
        }
    }
    std::free(buffer);
}

void disable_kinds()
{
    for (CUpti_ActivityKind kind : kKinds) (void)cuptiActivityDisable(kind);
}

std::string start_cupti()
{
    if (!gpu_unavailable_reason().empty()) return gpu_unavailable_reason();
    if (std::getenv("WORKBOOK_UNDER_SANITIZER")) return "the grader runs under compute-sanitizer";
    if (cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) != CUPTI_SUCCESS) {
        return "CUPTI (the CUDA profiling interface) could not be started";
    }
    for (CUpti_ActivityKind kind : kKinds) {
        const CUptiResult result = cuptiActivityEnable(kind);
        if (result != CUPTI_SUCCESS) {
            const char* text = nullptr;
            cuptiGetResultString(result, &text);
            disable_kinds();
            return std::string("CUPTI refused to record activity (") + (text ? text : "unknown error") + ")";
        }
    }
    disable_kinds();
    return "";
}

}   // namespace

const std::string& ledger_unavailable_reason()
{
    static const std::string reason = start_cupti();
    return reason;
}

void ledger_begin(cudaStream_t stream)
{
    g_window = Window{};
    if (!ledger_unavailable_reason().empty()) return;
    // Flush what older work left in the buffers, then record from here on.
    (void)cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    for (CUpti_ActivityKind kind : kKinds) (void)cuptiActivityEnable(kind);
    g_window.open = true;
    launch_ledger_marker(stream);
}

void ledger_abandon()
{
    if (!g_window.open) return;
    disable_kinds();
    g_window.open = false;
}

LaunchRecord ledger_end()
{
    if (!g_window.open) return LaunchRecord{};
    (void)cudaDeviceSynchronize();
    (void)cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    disable_kinds();
    g_window.open = false;
    LaunchRecord record = std::move(g_window.record);
    std::uint32_t given = 0;
    bool found_marker = false;
    for (const RawKernel& k : g_window.kernels) {
        if (k.facts.name == kMarkerName) {
            given = k.stream_id;
            found_marker = true;
        }
    }
    if (!found_marker) return LaunchRecord{};   // the records are incomplete: no verdict
    record.available = true;
    for (RawKernel& k : g_window.kernels) {
        if (k.facts.name == kMarkerName) continue;
        k.facts.on_given_stream = k.stream_id == given;
        if (!k.facts.on_given_stream)
            record.elsewhere.push_back("kernel `" + k.facts.name + "` ran on another stream (the default stream?)");
        record.kernels.push_back(k.facts);
    }
    for (const auto& [what, stream_id] : g_window.operations) {
        if (stream_id != given) record.elsewhere.push_back(what + " ran on another stream (the default stream?)");
    }
    record.to_host = std::move(g_window.to_host);
    return record;
}

#else

const std::string& ledger_unavailable_reason()
{
    static const std::string reason = "this build has no CUPTI (CUDA 13's profiling interface, libcupti)";
    return reason;
}
void ledger_begin(cudaStream_t) {}
void ledger_abandon() {}
LaunchRecord ledger_end() { return LaunchRecord{}; }

#endif

std::vector<KernelFacts> launch_facts(const Launch& launch, cudaStream_t stream)
{
#if WORKBOOK_EMULATED
    ledger_begin(stream);
    try {
        launch(stream);
    } catch (...) {
        ledger_abandon();
        throw;
    }
    return ledger_end().kernels;
#else
    std::vector<KernelFacts> kernels;
    if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed) != cudaSuccess) {
        (void)cudaGetLastError();
        return kernels;
    }
    try {
        launch(stream);
    } catch (...) {}
    cudaGraph_t graph = nullptr;
    (void)cudaStreamEndCapture(stream, &graph);
    (void)cudaGetLastError();
    if (!graph) return kernels;
    std::size_t count = 0;
    if (cudaGraphGetNodes(graph, nullptr, &count) == cudaSuccess && count > 0) {
        std::vector<cudaGraphNode_t> nodes(count);
        (void)cudaGraphGetNodes(graph, nodes.data(), &count);
        for (cudaGraphNode_t node : nodes) {
            cudaGraphNodeType type{};
            if (cudaGraphNodeGetType(node, &type) != cudaSuccess || type != cudaGraphNodeTypeKernel) continue;
            cudaKernelNodeParams params{};
            if (cudaGraphKernelNodeGetParams(node, &params) != cudaSuccess) continue;
            KernelFacts facts;
            facts.grid = params.gridDim;
            facts.block = params.blockDim;
            facts.dynamic_shared = params.sharedMemBytes;
            cudaFuncAttributes attributes{};
            if (cudaFuncGetAttributes(&attributes, params.func) == cudaSuccess) {
                facts.static_shared = attributes.sharedSizeBytes;
                facts.registers = attributes.numRegs;
                facts.local_bytes = static_cast<int>(attributes.localSizeBytes);
            }
            int resident = 0;
            const int threads = static_cast<int>(facts.threads_per_block());
            if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, params.func, threads, facts.dynamic_shared) ==
                    cudaSuccess &&
                device_info().max_threads_per_sm > 0) {
                facts.occupancy = double(resident) * threads / device_info().max_threads_per_sm;
            }
            const DeviceInfo& gpu = device_info();
            facts.occupancy_limit = occupancy_limit(facts, SmLimits{gpu.max_threads_per_sm, gpu.max_blocks_per_sm,
                                                                    gpu.registers_per_sm, gpu.shared_per_sm});
            facts.name = "kernel " + std::to_string(kernels.size() + 1);
#if CUDART_VERSION >= 12030
            const char* name = nullptr;
            if (cudaFuncGetName(&name, params.func) == cudaSuccess && name) {
                facts.name = short_kernel_name(name);
                facts.origin = qualified_kernel_name(name);
            }
#endif
            kernels.push_back(facts);
        }
    }
    cudaGraphDestroy(graph);
    (void)cudaGetLastError();
    return kernels;
#endif
}

}   // namespace wb
