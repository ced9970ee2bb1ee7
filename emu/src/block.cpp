// The heart of the CPU backend: running the CUDA threads of one block as fibers.
//
// Every CUDA thread of a block is a fiber (Boost.Context) with its own guarded stack, but a fiber is
// only created when it is needed: a "runner" fiber calls the threads of the block one after another,
// and when a thread reaches a barrier or a warp operation, the runner it is on becomes that thread's
// fiber and a fresh runner carries on with the next thread. A kernel without barriers therefore costs
// one fiber per block, not one per thread.
//
// Scheduling (one of three orders per block, rotated from block to block and launch to launch):
//   forward  lowest thread index first, and a thread runs as far as it can before the next one
//   reverse  highest thread index first
//   random   a random choice among the runnable threads at every step
// A thread only gives up the processor at a barrier, a warp operation or __nanosleep, so between two
// barriers each thread's accesses happen all at once, in that order. A missing __syncthreads() then
// lets a thread read shared memory before the thread that writes it ran: a wrong result in at
// least one of the orders (which is what the GPU may do too, just not reproducibly).
//
// __syncthreads() is a counting barrier: it opens when every thread that has not exited waits at it.
// All of them must wait at the same barrier (same source line); otherwise the block fails with both
// lines. A warp operation waits until every lane named in its mask has called the same operation with
// the same mask. When nothing can run and the barrier cannot open, the block is deadlocked: the
// report names what each side waits for, with source lines, instead of hanging.
#include "engine.hpp"

#include <boost/context/fiber.hpp>

#include <dlfcn.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <climits>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

__thread uint3 emu_tls_threadIdx;
__thread uint3 emu_tls_blockIdx;
__thread uint3 emu_tls_blockDim;
__thread uint3 emu_tls_gridDim;
__thread std::uint64_t emu_tls_shared_generation;
__thread unsigned char* emu_tls_shared_base;
__thread std::uintptr_t emu_tls_watch_lo;     // the shared arena of a block whose accesses are checked
__thread std::uintptr_t emu_tls_watch_span;   // 0: no block of this worker is checked now
extern __thread bool emu_tls_profiling;       // this worker's block is counted (profile.cpp)

namespace emu::detail {

namespace ctx = boost::context;

const char* schedule_name(Schedule schedule)
{
    switch (schedule) {
        case Schedule::forward: return "forward";
        case Schedule::reverse: return "reverse";
        case Schedule::random: return "random";
    }
    return "?";
}

std::string triple(uint3 v)
{
    return "(" + std::to_string(v.x) + "," + std::to_string(v.y) + "," + std::to_string(v.z) + ")";
}

std::string where(const char* file, int line)
{
    std::string path = file ? file : "?";
#ifdef EMU_SOURCE_ROOT
    const std::string root = EMU_SOURCE_ROOT "/";
    if (path.compare(0, root.size(), root) == 0) path = path.substr(root.size());
#endif
    return path + ":" + std::to_string(line);
}

namespace {

std::string hex(unsigned value)
{
    char text[16];
    std::snprintf(text, sizeof text, "0x%08x", value);
    return text;
}

// ---- stacks ------------------------------------------------------------------------------------------

/// Guarded stacks, reused from block to block. A stack overflow hits the guard page below the stack
/// and is reported by the crash handler instead of silently corrupting another thread's stack.
class StackPool {
public:
    static constexpr std::size_t kStackBytes = kThreadStackBytes;
    static constexpr std::size_t kGuardBytes = 4096;

    ctx::stack_context allocate()
    {
        char* base = nullptr;
        if (!free_.empty()) {
            base = free_.back();
            free_.pop_back();
        } else {
            void* memory = mmap(nullptr, kStackBytes + kGuardBytes, PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
            if (memory == MAP_FAILED) throw std::bad_alloc();
            base = static_cast<char*>(memory);
            mprotect(base, kGuardBytes, PROT_NONE);
            all_.push_back(base);
        }
        ctx::stack_context sctx;
        sctx.size = kStackBytes;
        sctx.sp = base + kGuardBytes + kStackBytes;
        return sctx;
    }
    void deallocate(ctx::stack_context& sctx)
    {
        free_.push_back(static_cast<char*>(sctx.sp) - kStackBytes - kGuardBytes);
    }
    bool in_guard(const void* address) const
    {
        const char* a = static_cast<const char*>(address);
        for (const char* base : all_) {
            if (a >= base && a < base + kGuardBytes + 256) return true;
        }
        return false;
    }

private:
    std::vector<char*> free_;
    std::vector<char*> all_;
};

/// What Boost.Context's fiber needs: an allocator it can copy.
struct PoolAllocator {
    StackPool* pool;
    ctx::stack_context allocate() { return pool->allocate(); }
    void deallocate(ctx::stack_context& sctx) { pool->deallocate(sctx); }
};

// ---- shared memory arena ----------------------------------------------------------------------------

/// A block's shared memory: the dynamic part first, then each static array as it is first reached,
/// every one followed by a red zone. Everything starts as the block's fill byte (kUndefinedByte or
/// kUndefinedByteAlternate, see engine.hpp):
/// a value read before any thread wrote it is visible in the result, and a write into a red zone is
/// found at the next barrier or at the end of the block.
class SharedArena {
public:
    static constexpr std::size_t kRedZone = 512;
    static constexpr std::size_t kBytes = kSharedArenaBytes;

    SharedArena()
    {
        void* memory = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (memory == MAP_FAILED) throw std::bad_alloc();
        base_ = static_cast<unsigned char*>(memory);
    }

    struct Region {
        std::size_t offset;
        std::size_t bytes;
        std::string name;
        const char* file;
        int line;
    };

    unsigned char* base() const { return base_; }
    const std::vector<Region>& regions() const { return regions_; }
    std::size_t static_bytes() const { return static_bytes_; }

    void start_block(std::size_t dynamic_bytes, unsigned char fill)
    {
        fill_ = fill;
        std::memset(&fill_word_, fill, sizeof fill_word_);
        regions_.clear();
        static_bytes_ = 0;
        dynamic_offset_ = kRedZone;
        std::memset(base_, fill_, kRedZone + dynamic_bytes + kRedZone);
        regions_.push_back({dynamic_offset_, dynamic_bytes, "", nullptr, 0});
        end_ = dynamic_offset_ + dynamic_bytes + kRedZone;
    }
    std::size_t dynamic_offset() const { return dynamic_offset_; }

    /// Places a static array; returns its offset. Throws std::length_error when the arena is full.
    std::size_t place(std::size_t bytes, std::size_t align, const char* name, const char* file, int line)
    {
        align = std::max<std::size_t>(align, 16);
        const std::size_t offset = (end_ + align - 1) / align * align;
        if (offset + bytes + kRedZone > kBytes) throw std::length_error("shared arena full");
        std::memset(base_ + end_, fill_, offset + bytes + kRedZone - end_);
        regions_.push_back({offset, bytes, name, file, line});
        end_ = offset + bytes + kRedZone;
        static_bytes_ += bytes;
        return offset;
    }

    /// True when every red zone still holds the fill byte (the fast check done at every barrier).
    bool intact() const
    {
        std::size_t from = 0;
        for (std::size_t i = 0; i <= regions_.size(); ++i) {
            const std::size_t to = i < regions_.size() ? regions_[i].offset : end_;
            for (std::size_t b = from; b < to && b % 8 != 0; ++b) {
                if (base_[b] != fill_) return false;
            }
            std::size_t b = (from + 7) / 8 * 8;
            for (; b + 8 <= to; b += 8) {
                std::uint64_t word;
                std::memcpy(&word, base_ + b, 8);
                if (word != fill_word_) return false;
            }
            for (; b < to; ++b) {
                if (base_[b] != fill_) return false;
            }
            if (i < regions_.size()) from = regions_[i].offset + regions_[i].bytes;
        }
        return true;
    }

    unsigned char fill() const { return fill_; }
    std::size_t end() const { return end_; }

    static std::string describe(const Region& r)
    {
        return r.file ? "the shared array `" + r.name + "` (" + std::to_string(r.bytes) + " bytes, declared at " +
                            where(r.file, r.line) + ")"
                      : "the dynamic shared memory (" + std::to_string(r.bytes) + " bytes, the third <<<>>> parameter)";
    }

    /// Where byte @p offset lies, for messages: inside an array, or how far before or past one.
    std::string locate(std::size_t offset, std::size_t bytes) const
    {
        const Region* before = nullptr;
        for (const Region& r : regions_) {
            if (r.offset <= offset) before = &r;
        }
        if (before && offset + bytes <= before->offset + before->bytes) {
            return "bytes " + std::to_string(offset - before->offset) + " to " +
                   std::to_string(offset - before->offset + bytes - 1) + " of " + describe(*before);
        }
        if (before)
            return std::to_string(offset - before->offset - before->bytes) + " bytes past the end of " +
                   describe(*before);
        return std::to_string(regions_.front().offset - offset) + " bytes before the start of " +
               describe(regions_.front());
    }

    /// The first red-zone byte that no longer holds the fill byte, described; empty when all are intact.
    std::string damaged() const
    {
        for (std::size_t b = 0; b < regions_.front().offset; ++b) {
            if (base_[b] != fill_) {
                return "a write " + std::to_string(regions_.front().offset - b) + " bytes before the start of " +
                       describe(regions_.front());
            }
        }
        for (std::size_t i = 0; i < regions_.size(); ++i) {
            const Region& r = regions_[i];
            const std::size_t end = r.offset + r.bytes;
            const bool has_next = i + 1 < regions_.size();
            const std::size_t next = has_next ? regions_[i + 1].offset : end + kRedZone;
            for (std::size_t b = end; b < next; ++b) {
                if (base_[b] == fill_) continue;
                if (has_next && next - b < b - end + 1) {
                    return "a write " + std::to_string(next - b) + " bytes before the start of " +
                           describe(regions_[i + 1]);
                }
                return "a write " + std::to_string(b - end) + " bytes past the end of " + describe(r);
            }
        }
        return "";
    }

private:
    unsigned char* base_ = nullptr;
    unsigned char fill_ = kUndefinedByte;
    std::uint64_t fill_word_ = 0;
    std::vector<Region> regions_;
    std::size_t end_ = 0;
    std::size_t dynamic_offset_ = 0;
    std::size_t static_bytes_ = 0;
};

// ---- one block ---------------------------------------------------------------------------------------

enum class State : std::uint8_t { unstarted, running, waiting, ready, exited };

/// A cp.async copy a thread has issued but not waited for yet.
struct AsyncCopy {
    std::size_t dst;   // shared address (offset in the arena)
    const void* src;
    int copy_bytes;
    int src_bytes;
    int group;   // the commit group it belongs to
};

struct ThreadState {
    uint3 idx{};
    int linear = 0;
    State state = State::unstarted;
    bool promoted = false;   // runs on a fiber of its own (it blocked at least once)
    bool at_barrier = false;
    bool in_warp_op = false;
    // what it waits for, and where
    BarrierKind barrier_kind = BarrierKind::plain;
    WarpOp op = WarpOp::sync;
    unsigned mask = 0;
    int param = 0;
    int width = 32;
    int predicate = 0;
    std::uint64_t value = 0;
    std::uint64_t result = 0;
    const char* what = "";
    const char* file = nullptr;
    int line = 0;
    std::vector<AsyncCopy> copies;   // cp.async copies not waited for
    int groups_committed = 0;
    std::uint64_t barrier_sites = 0;   // bit i: has waited at barrier site i of the block (see BlockRun::site_)
    ctx::fiber fiber;
};

/// What the shared-memory checker remembers of one 4-byte word: its last write and its last read
/// (which thread, in which barrier epoch, at which warp clock of that thread, from which code).
struct ShadowWord {
    std::uint32_t write_epoch;
    std::uint32_t write_clock;
    std::uint32_t read_epoch;
    std::uint32_t read_clock;
    std::uint16_t writer;
    std::uint16_t reader;
    const void* write_pc;
    const void* read_pc;
};

/// An array of @p T over lazily committed zero pages: large enough for the whole arena, yet only the
/// words a checked block touches cost memory. Never reset: epochs tell old entries apart.
template <class T>
class LazyArray {
public:
    explicit LazyArray(std::size_t count) : count_(count) {}
    ~LazyArray()
    {
        if (data_) munmap(data_, count_ * sizeof(T));
    }
    T& operator[](std::size_t i)
    {
        if (!data_) {
            void* memory = mmap(nullptr, count_ * sizeof(T), PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
            if (memory == MAP_FAILED) throw std::bad_alloc();
            data_ = static_cast<T*>(memory);
        }
        return data_[i];
    }

private:
    std::size_t count_;
    T* data_ = nullptr;
};

/// "file:line" of a code address in this program (the access that a report is about), or "" when the
/// program has no line table. Asks addr2line once per address; only used while writing a report.
std::string source_line_of(const void* pc)
{
    static std::mutex mutex;
    static std::vector<std::pair<const void*, std::string>> cache;
    std::lock_guard<std::mutex> lock(mutex);
    for (const auto& [address, text] : cache) {
        if (address == pc) return text;
    }
    std::string text;
    Dl_info info{};
    if (pc && dladdr(pc, &info) && info.dli_fname) {
        char exe[4096];
        const ssize_t length = readlink("/proc/self/exe", exe, sizeof exe - 1);
        const std::string file = info.dli_fname[0] && std::strchr(info.dli_fname, '/') ? info.dli_fname
                                 : length > 0 ? std::string(exe, static_cast<std::size_t>(length))
                                              : std::string();
        // A return address points after the call: the access is one byte earlier.
        const auto offset = reinterpret_cast<std::uintptr_t>(pc) - reinterpret_cast<std::uintptr_t>(info.dli_fbase) - 1;
        // -i: the chain of inlined calls, innermost first. An access made inside the emulator's headers or
        // the workbook's device library (an ldmatrix row, a WMMA load) is reported at the first line
        // outside them: the learner's call.
        char command[4400];
        std::snprintf(command, sizeof command, "addr2line -i -e '%s' 0x%lx 2>/dev/null", file.c_str(),
                      static_cast<unsigned long>(offset));
        if (FILE* pipe = popen(command, "r")) {
            char line[4096] = {};
            while (std::fgets(line, sizeof line, pipe)) {
                std::string answer(line);
                while (!answer.empty() && (answer.back() == '\n' || answer.back() == ' ')) answer.pop_back();
                if (const auto paren = answer.find(" ("); paren != std::string::npos) answer.resize(paren);
                const auto colon = answer.rfind(':');
                if (colon == std::string::npos || answer.compare(0, 2, "??") == 0 || answer.substr(colon) == ":0" ||
                    answer.substr(colon) == ":?") {
                    continue;
                }
                const bool library = answer.find("/emu/include/") != std::string::npos ||
                                     answer.find("/chapters/common/") != std::string::npos;
                if (text.empty() || !library)
                    text = where(answer.substr(0, colon).c_str(), std::atoi(answer.c_str() + colon + 1));
                if (!library) break;
            }
            pclose(pipe);
        }
    }
    cache.emplace_back(pc, text);
    return text;
}

std::string at_line(const void* pc)
{
    const std::string line = source_line_of(pc);
    return line.empty() ? std::string() : " at " + line;
}

/// Thrown inside a CUDA thread to end the block with a report.
struct ThreadFailure {};

/// A small, fast random generator (splitmix64) for the random schedule.
struct SplitMix {
    using result_type = std::uint64_t;
    std::uint64_t state = 0;
    void seed(std::uint64_t s) { state = s; }
    static constexpr std::uint64_t min() { return 0; }
    static constexpr std::uint64_t max() { return ~std::uint64_t(0); }
    std::uint64_t operator()()
    {
        std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
};

/// The threads that may run now, as a bitset: lowest, highest and a random member in a few words.
class ReadySet {
public:
    void reset(int n)
    {
        words_.assign(static_cast<std::size_t>((n + 63) / 64), 0);
        count_ = 0;
    }
    bool empty() const { return count_ == 0; }
    void insert(int t)
    {
        std::uint64_t& w = words_[static_cast<std::size_t>(t) / 64];
        const std::uint64_t bit = 1ull << (t % 64);
        if (!(w & bit)) {
            w |= bit;
            ++count_;
        }
    }
    int take_lowest()
    {
        for (std::size_t i = 0; i < words_.size(); ++i) {
            if (words_[i]) return take(static_cast<int>(i * 64) + __builtin_ctzll(words_[i]));
        }
        return -1;
    }
    int take_highest()
    {
        for (std::size_t i = words_.size(); i-- > 0;) {
            if (words_[i]) return take(static_cast<int>(i * 64) + 63 - __builtin_clzll(words_[i]));
        }
        return -1;
    }
    int take_nth(int n)
    {
        for (std::size_t i = 0; i < words_.size(); ++i) {
            const int c = __builtin_popcountll(words_[i]);
            if (n >= c) {
                n -= c;
                continue;
            }
            std::uint64_t w = words_[i];
            while (n-- > 0) w &= w - 1;
            return take(static_cast<int>(i * 64) + __builtin_ctzll(w));
        }
        return -1;
    }
    int size() const { return count_; }

private:
    int take(int t)
    {
        words_[static_cast<std::size_t>(t) / 64] &= ~(1ull << (t % 64));
        --count_;
        return t;
    }
    std::vector<std::uint64_t> words_;
    int count_ = 0;
};

class BlockRun {
public:
    explicit BlockRun(StackPool& stacks) : stacks_(stacks) {}

    /// Runs one block to the end; false (and `failure_`) when it failed.
    /// @p check: watch every shared-memory access of this block (races, reads of unwritten or
    /// out-of-bounds shared memory); the rest of the checks apply to every block.
    bool run(const LaunchState& launch, uint3 block_idx, Schedule schedule, std::uint64_t seed, bool check);
    const KernelFailure& failure() const { return failure_; }

    // Called from the running CUDA thread.
    int barrier(BarrierKind kind, int predicate, const char* what, const char* file, int line);
    std::uint64_t warp_op(WarpOp op, unsigned mask, std::uint64_t value, int param, int width, const char* what,
                          const char* file, int line);
    unsigned active_mask() const;
    void yield_thread();
    [[noreturn]] void fail_in_thread(const std::string& report, bool deadlock = false);
    void allocate_shared(SharedSlot& slot, std::size_t bytes, std::size_t align, const char* name, const char* file,
                         int line);
    void* dynamic_shared(std::size_t align);

    std::size_t shared_address(const void* p, const char* what, const char* file, int line);
    void cp_async(std::size_t dst, const void* src, int copy_bytes, int src_bytes, const char* file, int line);
    void cp_async_commit() { ++me().groups_committed; }
    void cp_async_wait(int pending_groups);

    bool describe(char* buffer, std::size_t size, const void* fault_address) const;
    SharedArena& arena() { return arena_; }

    /// An instrumented access of @p bytes at arena offset @p offset by the running thread, from the
    /// code at @p pc. Only called for a checked block.
    void check_shared(std::size_t offset, std::size_t bytes, bool write, const void* pc);
    /// Called by the crash handler on this worker: leaves the crashed CUDA thread for good and goes
    /// back to run(), which ends the block with a report. Returns only when no block runs here.
    void escape_crash(int signal_number, const void* fault_address);
    [[noreturn]] void fail_current_thread(const std::string& report)
    {
        fail_in_thread(thread_name(me()) + " " + report);
    }

private:
    static constexpr int kStartRunner = -1;
    static constexpr int kNothing = -2;

    ThreadState& me() { return *current_; }
    std::string thread_name(const ThreadState& t) const
    {
        std::string text = "thread " + triple(t.idx);
        if (n_ > 32)
            text += " (warp " + std::to_string(t.linear / 32) + ", lane " + std::to_string(t.linear % 32) + ")";
        return text;
    }
    std::string waiting_at(const ThreadState& t) const
    {
        std::string text = t.what;
        if (t.in_warp_op) text += " with mask " + hex(t.mask);
        return text + " at " + where(t.file, t.line);
    }
    void enter(ThreadState& t)
    {
        current_ = &t;
        t.state = State::running;
        emu_tls_threadIdx = t.idx;
    }
    void block_current(State state = State::waiting);
    void runner_loop();
    void start_runner();
    void resume(ThreadState& t);
    int pick();
    void release_barrier();
    void complete_group(int base, unsigned mask);
    void diagnose_stall();
    void fail(const std::string& report, bool deadlock = false);
    void check_red_zones(const ThreadState* at_barrier);
    void complete_copies(ThreadState& t, int before_group);
    void cleanup();
    void on_exit(ThreadState& t);
    int barrier_site(const char* file, int line);

    // the shared-memory checker (see check_shared)
    void start_checking();
    void map_regions(std::size_t from, std::size_t to);
    void join_clocks(int base, unsigned mask);
    bool ordered(int earlier, std::uint32_t clock, int later) const;
    std::uint32_t clock_of(int t) const
    {
        return clocks_[static_cast<std::size_t>(t) * 32 + static_cast<std::size_t>(t % 32)];
    }
    [[noreturn]] void report_race(std::size_t word, bool earlier_wrote, int earlier, const void* earlier_pc,
                                  bool now_writes, const void* pc);
    std::string crash_report(int signal_number, const void* fault_address) const;

    StackPool& stacks_;
    SharedArena arena_;
    const LaunchState* launch_ = nullptr;
    std::vector<ThreadState> threads_;
    std::vector<int> order_;
    ReadySet ready_;
    std::vector<unsigned> warp_waiting_;   // per warp: lanes waiting in a warp operation
    std::vector<unsigned> warp_exited_;    // per warp: lanes that returned
    std::vector<unsigned> warp_exists_;    // per warp: lanes the block has
    int n_ = 0;
    dim3 dims_{0, 0, 0};
    int next_ = 0;
    int live_ = 0;
    int at_barrier_ = 0;
    Schedule schedule_ = Schedule::forward;
    SplitMix rng_;
    uint3 block_idx_{};
    ThreadState* current_ = nullptr;
    ThreadState* yielded_ = nullptr;
    ctx::fiber main_;
    bool failed_ = false;
    KernelFailure failure_;

    // barrier sites met in this block, and those that a thread waited at before it returned
    std::vector<std::pair<const char*, int>> sites_;
    std::uint64_t sites_left_ = 0;
    std::vector<int> site_leaver_;

    bool checking_ = false;
    std::string unwritten_read_;          // the first read of unwritten shared memory in this epoch, described
    std::uint32_t epoch_ = 0;             // barrier epochs of this worker, increasing over blocks
    std::uint32_t block_epoch_ = 0;       // the first epoch of the current block
    std::vector<std::uint32_t> clocks_;   // per thread: the warp clocks of its warp's 32 lanes it has seen
    LazyArray<ShadowWord> shadow_{SharedArena::kBytes / 4};
    LazyArray<std::uint16_t> region_of_word_{SharedArena::kBytes / 4};   // region index + 1; 0 red zone

    // crash recovery (see escape_crash)
    sigjmp_buf crash_jump_;
    bool crash_armed_ = false;
    int crash_signal_ = 0;
    const void* crash_address_ = nullptr;
};

__thread BlockRun* tls_block = nullptr;

bool BlockRun::run(const LaunchState& launch, uint3 block_idx, Schedule schedule, std::uint64_t seed, bool check)
{
    launch_ = &launch;
    block_idx_ = block_idx;
    schedule_ = schedule;
    rng_.seed(seed);
    const dim3 b = launch.block;
    const int n = static_cast<int>(b.x * b.y * b.z);
    if (n != n_ || b.x != dims_.x || b.y != dims_.y) {
        n_ = n;
        dims_ = b;
        threads_.clear();
        threads_.resize(n_);
        for (int i = 0; i < n_; ++i) {
            ThreadState& t = threads_[i];
            t.linear = i;
            t.idx = uint3{static_cast<unsigned>(i) % b.x, static_cast<unsigned>(i) / b.x % b.y,
                          static_cast<unsigned>(i) / (b.x * b.y)};
        }
        const int warps = (n_ + 31) / 32;
        warp_exists_.assign(static_cast<std::size_t>(warps), 0xffffffffu);
        if (n_ % 32 != 0) warp_exists_.back() = (1u << (n_ % 32)) - 1;
        warp_waiting_.assign(static_cast<std::size_t>(warps), 0);
        warp_exited_.assign(static_cast<std::size_t>(warps), 0);
    }
    for (ThreadState& t : threads_) {
        t.state = State::unstarted;
        t.promoted = false;
        t.at_barrier = false;
        t.in_warp_op = false;
        if (!t.copies.empty()) t.copies.clear();
        t.groups_committed = 0;
        t.barrier_sites = 0;
    }
    sites_.clear();
    unwritten_read_.clear();
    site_leaver_.clear();
    sites_left_ = 0;
    std::fill(warp_waiting_.begin(), warp_waiting_.end(), 0u);
    std::fill(warp_exited_.begin(), warp_exited_.end(), 0u);
    order_.resize(n_);
    for (int i = 0; i < n_; ++i) order_[i] = i;
    if (schedule == Schedule::reverse) std::reverse(order_.begin(), order_.end());
    if (schedule == Schedule::random) std::shuffle(order_.begin(), order_.end(), rng_);
    ready_.reset(n_);
    next_ = 0;
    live_ = n_;
    at_barrier_ = 0;
    failed_ = false;
    failure_ = {};
    current_ = nullptr;

    ++emu_tls_shared_generation;
    emu_tls_shared_base = arena_.base();
    arena_.start_block(launch.dynamic_shared, (seed >> 7) & 1 ? kUndefinedByte : kUndefinedByteAlternate);
    emu_tls_blockIdx = block_idx;
    emu_tls_blockDim = uint3{b.x, b.y, b.z};
    emu_tls_gridDim = uint3{launch.grid.x, launch.grid.y, launch.grid.z};
    tls_block = this;
    checking_ = check;
    if (checking_) start_checking();
    if (profiling_requested()) profile_block_start();
    fences_block_begin();
    races_block_begin();

    // A crash in a CUDA thread (see escape_crash) comes back here, on the worker's own stack.
    if (sigsetjmp(crash_jump_, 1) != 0) {
        crash_armed_ = false;
        // The crashed fiber is abandoned (its stack is leaked, never reused) and so is the scheduler
        // context it would have returned to: releasing either would try to resume it.
        new ctx::fiber(std::move(main_));
        fail(crash_report(crash_signal_, crash_address_));
    }
    crash_armed_ = !failed_;

    while (!failed_) {
        const int choice = pick();
        if (choice >= 0) {
            resume(threads_[choice]);
        } else if (choice == kStartRunner) {
            start_runner();
        } else if (live_ == 0) {
            break;
        } else if (at_barrier_ == live_) {
            release_barrier();
        } else {
            diagnose_stall();
        }
    }
    crash_armed_ = false;
    if (!failed_ && !unwritten_read_.empty()) fail(unwritten_read_);
    if (!failed_) check_red_zones(nullptr);
    if (emu_tls_profiling) profile_block_end(launch.site.name);
    fences_block_end();
    races_block_end();
    cleanup();
    emu_tls_watch_span = 0;
    checking_ = false;
    tls_block = nullptr;
    current_ = nullptr;
    return !failed_;
}

int BlockRun::pick()
{
    if (ready_.empty()) return next_ < n_ ? kStartRunner : kNothing;
    switch (schedule_) {
        case Schedule::forward: return ready_.take_lowest();
        case Schedule::reverse: return ready_.take_highest();
        case Schedule::random: {
            const int choices = ready_.size() + (next_ < n_ ? 1 : 0);
            const int chosen = static_cast<int>(rng_() % static_cast<std::uint64_t>(choices));
            if (chosen == ready_.size()) return kStartRunner;
            return ready_.take_nth(chosen);
        }
    }
    return kNothing;
}

void BlockRun::start_runner()
{
    ctx::fiber runner(std::allocator_arg, PoolAllocator{&stacks_}, [this](ctx::fiber&& scheduler) {
        main_ = std::move(scheduler);
        runner_loop();
        return std::move(main_);
    });
    yielded_ = nullptr;
    runner = std::move(runner).resume();
    if (runner) {
        // A thread blocked on this runner: the fiber is that thread's from now on.
        yielded_->fiber = std::move(runner);
    }
}

void BlockRun::runner_loop()
{
    while (next_ < n_ && ready_.empty() && !failed_) {
        ThreadState& t = threads_[order_[next_++]];
        enter(t);
        try {
            launch_->body->run_thread();
        } catch (const ctx::detail::forced_unwind&) {
            throw;
        } catch (const ThreadFailure&) {
            return;
        } catch (const std::exception& error) {
            fail(thread_name(t) + " threw an exception: " + error.what());
        } catch (...) {
            fail(thread_name(t) + " threw an exception");
        }
        if (!t.copies.empty() && !failed_) complete_copies(t, INT_MAX);   // a returning thread's copies land
        on_exit(t);
        if (t.promoted) return;   // this fiber was t's own; the runner's job went on elsewhere
    }
}

void BlockRun::resume(ThreadState& t)
{
    enter(t);
    yielded_ = nullptr;
    t.fiber = std::move(t.fiber).resume();
    // Back here when t blocked again (t.fiber holds it) or finished (t.fiber is empty).
}

void BlockRun::block_current(State state)
{
    ThreadState& t = me();
    t.state = state;
    t.promoted = true;
    yielded_ = &t;
    main_ = std::move(main_).resume();
    // Resumed by the scheduler, which set current_ and the thread-local indices.
}

void BlockRun::fail(const std::string& report, bool deadlock)
{
    if (failed_) return;
    failed_ = true;
    failure_.deadlock = deadlock;
    failure_.report = "in block " + triple(block_idx_) + " (" + schedule_name(schedule_) + " schedule): " + report;
}

void BlockRun::fail_in_thread(const std::string& report, bool deadlock)
{
    fail(report, deadlock);
    throw ThreadFailure{};
}

void BlockRun::cleanup()
{
    // Destroying a suspended fiber unwinds its stack (Boost.Context throws forced_unwind inside it).
    for (ThreadState& t : threads_) {
        if (t.fiber) t.fiber = ctx::fiber{};
    }
}

// ---- barriers ----------------------------------------------------------------------------------------

void BlockRun::on_exit(ThreadState& t)
{
    t.state = State::exited;
    warp_exited_[static_cast<std::size_t>(t.linear / 32)] |= 1u << (t.linear % 32);
    --live_;
    // Remember the barriers this thread waited at: if the others wait at one of them again, it
    // skipped a __syncthreads() that they reach (see release_barrier).
    for (std::uint64_t sites = t.barrier_sites & ~sites_left_; sites != 0; sites &= sites - 1) {
        site_leaver_[static_cast<std::size_t>(__builtin_ctzll(sites))] = t.linear;
    }
    sites_left_ |= t.barrier_sites;
}

int BlockRun::barrier_site(const char* file, int line)
{
    for (std::size_t i = 0; i < sites_.size(); ++i) {
        if (sites_[i].second == line && (sites_[i].first == file || std::strcmp(sites_[i].first, file) == 0)) {
            return static_cast<int>(i);
        }
    }
    sites_.emplace_back(file, line);
    site_leaver_.push_back(-1);
    return static_cast<int>(sites_.size() - 1);
}

int BlockRun::barrier(BarrierKind kind, int predicate, const char* what, const char* file, int line)
{
    ThreadState& t = me();
    if (const int site = barrier_site(file, line); site < 64) t.barrier_sites |= 1ull << site;
    t.at_barrier = true;
    t.barrier_kind = kind;
    t.predicate = predicate;
    t.what = what;
    t.file = file;
    t.line = line;
    ++at_barrier_;
    block_current();
    return static_cast<int>(t.result);
}

void BlockRun::release_barrier()
{
    const ThreadState* first = nullptr;
    int count = 0;
    for (const ThreadState& t : threads_) {
        if (!t.at_barrier) continue;
        if (!first) {
            first = &t;
        } else if (t.line != first->line || std::strcmp(t.file, first->file) != 0 ||
                   t.barrier_kind != first->barrier_kind) {
            fail("barrier divergence (divergent barrier): " + thread_name(*first) + " waits at " + waiting_at(*first) +
                     ", while " + thread_name(t) + " waits at " + waiting_at(t) +
                     ". Every thread of a block must reach the same __syncthreads(); one inside an `if` that "
                     "not every thread takes hangs or corrupts results on a GPU. Move the barrier out of the "
                     "branch (let threads without work skip the work, not the barrier).",
                 true);
            return;
        }
        count += t.predicate;
    }
    // A thread that waited here before and has returned since skipped this barrier at least once while
    // the others reach it again: a __syncthreads() inside a loop or branch that is not uniform across
    // the block (`if (tid < s) { ...; __syncthreads(); }`). Undefined on a GPU even when it happens to work.
    if (const int site = barrier_site(first->file, first->line); site < 64 && ((sites_left_ >> site) & 1u)) {
        const ThreadState& leaver = threads_[static_cast<std::size_t>(site_leaver_[static_cast<std::size_t>(site)])];
        fail("barrier divergence: " + thread_name(leaver) + " waited at " + waiting_at(*first) +
                 " and returned from the kernel, while " + thread_name(*first) +
                 " waits there again. Every thread of a block must reach a __syncthreads() the same number of "
                 "times: a barrier inside `if (tid < s)` or in a loop whose trip count differs between threads "
                 "is undefined on a GPU (it hangs or lets threads past each other). Keep the barrier where "
                 "every thread reaches it, and put only the work under the condition.",
             true);
        return;
    }
    int result = 0;
    switch (first->barrier_kind) {
        case BarrierKind::plain: break;
        case BarrierKind::count: result = count; break;
        case BarrierKind::all: result = count == at_barrier_; break;
        case BarrierKind::any: result = count > 0; break;
    }
    check_red_zones(first);
    if (!unwritten_read_.empty()) fail(unwritten_read_);
    if (failed_) return;
    if (checking_) ++epoch_;   // everything before the barrier is ordered before everything after it
    if (emu_tls_profiling) profile_barrier();
    for (ThreadState& t : threads_) {
        if (!t.at_barrier) continue;
        t.at_barrier = false;
        t.result = static_cast<std::uint64_t>(result);
        t.state = State::ready;
        ready_.insert(t.linear);
    }
    at_barrier_ = 0;
}

// ---- warp operations ---------------------------------------------------------------------------------

std::uint64_t BlockRun::warp_op(WarpOp op, unsigned mask, std::uint64_t value, int param, int width, const char* what,
                                const char* file, int line)
{
    ThreadState& t = me();
    const int lane = t.linear % 32;
    const int base = t.linear - lane;
    if (!((mask >> lane) & 1u)) {
        fail_in_thread(thread_name(t) + " called " + what + " at " + where(file, line) + " with mask " + hex(mask) +
                       ", which does not name its own lane " + std::to_string(lane) +
                       ". Every lane that calls a *_sync operation must be in its mask (and every lane in the "
                       "mask must call it).");
    }
    if (width < 1 || width > 32 || (width & (width - 1)) != 0) {
        fail_in_thread(thread_name(t) + " called " + what + " at " + where(file, line) + " with width " +
                       std::to_string(width) + ": the width must be a power of 2 from 1 to 32.");
    }
    t.in_warp_op = true;
    t.op = op;
    t.mask = mask;
    t.value = value;
    t.param = param;
    t.width = width;
    t.what = what;
    t.file = file;
    t.line = line;
    const std::size_t warp = static_cast<std::size_t>(t.linear / 32);
    if (const unsigned missing = mask & ~warp_exists_[warp]) {
        const int l = __builtin_ctz(missing);
        const int lanes = n_ - base;
        fail_in_thread(thread_name(t) + " called " + what + " at " + where(file, line) + " with mask " + hex(mask) +
                       ", which names lane " + std::to_string(l) + ", but this warp has only " + std::to_string(lanes) +
                       " lane" + (lanes == 1 ? "" : "s") + " (the block has " + std::to_string(n_) +
                       " threads). Use a block size that is a multiple of 32, or a mask "
                       "of the lanes that exist.");
    }
    if (const unsigned gone = mask & warp_exited_[warp]) {
        const int l = __builtin_ctz(gone);
        fail_in_thread(thread_name(t) + " called " + what + " at " + where(file, line) + " with mask " + hex(mask) +
                       ", but lane " + std::to_string(l) + " (" + thread_name(threads_[base + l]) +
                       ") had already returned from the kernel. Every lane named in the mask must call the "
                       "operation: return after the warp operations, or build the mask with __ballot_sync.");
    }
    warp_waiting_[warp] |= 1u << lane;
    bool complete = (warp_waiting_[warp] & mask) == mask;
    if (complete) {
        for (unsigned m = mask & ~(1u << lane); m != 0; m &= m - 1) {
            const ThreadState& other = threads_[base + __builtin_ctz(m)];
            if (other.mask != mask || other.op != op) {
                complete = false;
                break;
            }
            // Lanes of a shuffle or vote must be converged at one call, not meet from two branches (only
            // __syncwarp may be called from different places on Volta and later).
            if (op != WarpOp::sync && (other.line != line || std::strcmp(other.file, file) != 0)) {
                fail_in_thread("divergent warp operation: " + thread_name(t) + " calls " + what + " with mask " +
                               hex(mask) + " at " + where(file, line) + ", while " + thread_name(other) +
                               ", named in the mask, is not converged with it: it calls " + other.what + " at " +
                               where(other.file, other.line) +
                               ". The lanes named in the mask must be active at "
                               "the same call: move the operation out of the divergent branch, or use a mask of "
                               "the lanes that take the branch (__ballot_sync / __activemask()).");
            }
        }
    }
    if (complete) {
        complete_group(base, mask);
    } else {
        block_current();
    }
    t.in_warp_op = false;
    return t.result;
}

void BlockRun::complete_group(int base, unsigned mask)
{
    const ThreadState& caller = me();
    warp_waiting_[static_cast<std::size_t>(base / 32)] &= ~mask;
    if (checking_) join_clocks(base, mask);
    const WarpOp op = caller.op;
    std::uint64_t ballot = 0, sum = 0, all_and = ~std::uint64_t(0), all_or = 0, all_xor = 0;
    std::uint64_t min_u = ~std::uint64_t(0), max_u = 0;
    std::int64_t min_s = INT64_MAX, max_s = INT64_MIN;
    bool all_equal = true;
    for (unsigned m = mask; m != 0; m &= m - 1) {
        const int l = __builtin_ctz(m);
        const ThreadState& t = threads_[base + l];
        const std::uint32_t v32 = static_cast<std::uint32_t>(t.value);
        if (t.value != 0) ballot |= 1ull << l;
        sum += v32;
        all_and &= v32;
        all_or |= v32;
        all_xor ^= v32;
        min_u = std::min<std::uint64_t>(min_u, v32);
        max_u = std::max<std::uint64_t>(max_u, v32);
        min_s = std::min<std::int64_t>(min_s, static_cast<std::int32_t>(v32));
        max_s = std::max<std::int64_t>(max_s, static_cast<std::int32_t>(v32));
        if (t.value != threads_[base + __builtin_ctz(mask)].value) all_equal = false;
    }
    for (unsigned m = mask; m != 0; m &= m - 1) {
        const int l = __builtin_ctz(m);
        ThreadState& t = threads_[base + l];
        const int w = t.width;
        const int segment = l & ~(w - 1);
        int source = l;
        switch (op) {
            case WarpOp::shfl: source = segment + (t.param & (w - 1)); break;
            case WarpOp::shfl_up: source = (l - segment) >= t.param ? l - t.param : l; break;
            case WarpOp::shfl_down: source = (l - segment) + t.param < w ? l + t.param : l; break;
            case WarpOp::shfl_xor: {
                const int target = l ^ t.param;
                source = (target >= 0 && target < 32 && (target & ~(w - 1)) <= segment) ? target : l;
                break;
            }
            default: break;
        }
        switch (op) {
            case WarpOp::shfl:
            case WarpOp::shfl_up:
            case WarpOp::shfl_down:
            case WarpOp::shfl_xor:
                // A lane outside the mask holds no defined value: hand out undefined bytes.
                t.result = ((mask >> source) & 1u) ? threads_[base + source].value : 0x7F7F7F7F7F7F7F7Full;
                break;
            case WarpOp::sync: t.result = 0; break;
            case WarpOp::ballot: t.result = ballot; break;
            case WarpOp::any: t.result = ballot != 0; break;
            case WarpOp::all: t.result = ballot == mask; break;
            case WarpOp::reduce_add: t.result = static_cast<std::uint32_t>(sum); break;
            case WarpOp::reduce_min: t.result = min_u; break;
            case WarpOp::reduce_max: t.result = max_u; break;
            case WarpOp::reduce_min_signed:
                t.result = static_cast<std::uint32_t>(static_cast<std::int32_t>(min_s));
                break;
            case WarpOp::reduce_max_signed:
                t.result = static_cast<std::uint32_t>(static_cast<std::int32_t>(max_s));
                break;
            case WarpOp::reduce_and: t.result = static_cast<std::uint32_t>(all_and); break;
            case WarpOp::reduce_or: t.result = static_cast<std::uint32_t>(all_or); break;
            case WarpOp::reduce_xor: t.result = static_cast<std::uint32_t>(all_xor); break;
            case WarpOp::match_any: {
                std::uint64_t same = 0;
                for (unsigned k = mask; k != 0; k &= k - 1) {
                    const int other = __builtin_ctz(k);
                    if (threads_[base + other].value == t.value) same |= 1ull << other;
                }
                t.result = same;
                break;
            }
            case WarpOp::match_all: t.result = all_equal ? mask : 0; break;
        }
        if (&t != &caller) {
            t.in_warp_op = false;
            t.state = State::ready;
            ready_.insert(t.linear);
        }
    }
}

unsigned BlockRun::active_mask() const
{
    const int base = current_->linear - current_->linear % 32;
    unsigned mask = 0;
    for (int l = 0; l < 32 && base + l < n_; ++l) {
        if (threads_[base + l].state != State::exited) mask |= 1u << l;
    }
    return mask;
}

void BlockRun::yield_thread()
{
    ThreadState& t = me();
    ready_.insert(t.linear);
    block_current(State::ready);
}

void BlockRun::diagnose_stall()
{
    // Nothing can run and the barrier cannot open. Explain one wait that can never end.
    for (const ThreadState& t : threads_) {
        if (t.state != State::waiting || !t.in_warp_op) continue;
        const int base = t.linear - t.linear % 32;
        for (unsigned m = t.mask; m != 0; m &= m - 1) {
            const int l = __builtin_ctz(m);
            const ThreadState& other = threads_[base + l];
            if (&other == &t) continue;
            const std::string head = "deadlock: " + thread_name(t) + " waits at " + waiting_at(t) + " for lane " +
                                     std::to_string(l) + ", but ";
            if (other.state == State::exited) {
                fail(head + thread_name(other) +
                     " returned from the kernel without calling it. Every lane named "
                     "in the mask must call the operation.");
                return;
            }
            if (other.at_barrier) {
                fail(head + thread_name(other) + " waits at " + waiting_at(other) +
                         ". A warp operation and __syncthreads() wait for each other: make every thread take the "
                         "same path through both.",
                     true);
                return;
            }
            if (other.in_warp_op && (other.mask != t.mask || other.op != t.op)) {
                fail(head + thread_name(other) + " waits at " + waiting_at(other) +
                         ". All lanes named in a mask must call the same operation with the same mask.",
                     true);
                return;
            }
        }
    }
    // Only barriers are waited at, yet not every live thread is there: cannot happen, but say so.
    for (const ThreadState& t : threads_) {
        if (t.at_barrier) {
            fail("deadlock: " + thread_name(t) + " waits at " + waiting_at(t) +
                     ", but not every thread of the block can reach it.",
                 true);
            return;
        }
    }
    fail("deadlock: no thread of the block can continue.", true);
}

void BlockRun::check_red_zones(const ThreadState* at_barrier)
{
    if (arena_.intact()) return;
    const std::string when = at_barrier ? "found at the " + waiting_at(*at_barrier) : "found at the end of the block";
    fail(arena_.damaged() + " (" + when +
         "). An index past the end of a shared array: check the bounds and the array "
         "size (and that the launch asks for enough dynamic shared memory).");
}

void BlockRun::allocate_shared(SharedSlot& slot, std::size_t bytes, std::size_t align, const char* name,
                               const char* file, int line)
{
    std::size_t offset = 0;
    try {
        offset = arena_.place(bytes, align, name, file, line);
    } catch (const std::length_error&) {
        fail_in_thread("the shared array `" + std::string(name) + "` declared at " + where(file, line) + " (" +
                       std::to_string(bytes) + " bytes) does not fit in shared memory.");
    }
    if (arena_.static_bytes() > kSharedPerBlock) {
        fail_in_thread("the kernel's static __shared__ arrays need " + std::to_string(arena_.static_bytes()) +
                       " bytes (the last one, `" + name + "`, declared at " + where(file, line) +
                       "); a GPU allows 48 KB of static shared memory per block. Use dynamic shared memory "
                       "(extern __shared__) and cudaFuncSetAttribute for more.");
    }
    if (arena_.static_bytes() + launch_->dynamic_shared > kSharedPerBlockOptin) {
        fail_in_thread("static (" + std::to_string(arena_.static_bytes()) + " bytes) and dynamic (" +
                       std::to_string(launch_->dynamic_shared) + " bytes) shared memory together exceed the " +
                       std::to_string(kSharedPerBlockOptin) + " bytes a block may have.");
    }
    slot.offset = static_cast<std::uint32_t>(offset);
    slot.generation = emu_tls_shared_generation;
    if (checking_) map_regions(0, arena_.end());
}

void* BlockRun::dynamic_shared(std::size_t align)
{
    (void)align;   // the dynamic region starts 512-byte aligned
    return arena_.base() + arena_.dynamic_offset();
}

std::size_t BlockRun::shared_address(const void* p, const char* what, const char* file, int line)
{
    const auto* bytes = static_cast<const unsigned char*>(p);
    if (bytes < arena_.base() || bytes >= arena_.base() + SharedArena::kBytes) {
        fail_in_thread(thread_name(me()) + " passed a pointer that is not shared memory to " + std::string(what) +
                       " at " + where(file, line) + ".");
    }
    return static_cast<std::size_t>(bytes - arena_.base());
}

void BlockRun::cp_async(std::size_t dst, const void* src, int copy_bytes, int src_bytes, const char* file, int line)
{
    ThreadState& t = me();
    const std::string at = " (cp.async at " + where(file, line) + ")";
    if (copy_bytes != 4 && copy_bytes != 8 && copy_bytes != 16) {
        fail_in_thread(thread_name(t) + ": a cp.async copies 4, 8 or 16 bytes, not " + std::to_string(copy_bytes) + at +
                       ".");
    }
    if (src_bytes < 0 || src_bytes > copy_bytes) {
        fail_in_thread(thread_name(t) + ": the source size " + std::to_string(src_bytes) +
                       " of a cp.async must be 0 to " + std::to_string(copy_bytes) + at + ".");
    }
    if (dst % static_cast<std::size_t>(copy_bytes) != 0 ||
        reinterpret_cast<std::uintptr_t>(src) % static_cast<std::uintptr_t>(copy_bytes) != 0) {
        fail_in_thread(thread_name(t) + ": a " + std::to_string(copy_bytes) + "-byte cp.async needs " +
                       std::to_string(copy_bytes) + "-byte aligned addresses" + at +
                       " (a misaligned address error on a GPU).");
    }
    if (dst + static_cast<std::size_t>(copy_bytes) > SharedArena::kBytes) {
        fail_in_thread(thread_name(t) + ": a cp.async writes outside shared memory" + at + ".");
    }
    if (src_bytes > 0) check_copy_source(src, static_cast<std::size_t>(src_bytes), at);
    t.copies.push_back({dst, src, copy_bytes, src_bytes, t.groups_committed});
}

void BlockRun::cp_async_wait(int pending_groups)
{
    ThreadState& t = me();
    complete_copies(t, t.groups_committed - pending_groups);
}

void BlockRun::complete_copies(ThreadState& t, int before_group)
{
    std::size_t kept = 0;
    for (std::size_t i = 0; i < t.copies.size(); ++i) {
        const AsyncCopy& c = t.copies[i];
        if (c.group < before_group) {
            if (checking_) check_shared(c.dst, static_cast<std::size_t>(c.copy_bytes), true, nullptr);
            unsigned char* dst = arena_.base() + c.dst;
            if (c.src_bytes > 0) std::memcpy(dst, c.src, static_cast<std::size_t>(c.src_bytes));
            std::memset(dst + c.src_bytes, 0, static_cast<std::size_t>(c.copy_bytes - c.src_bytes));
        } else {
            t.copies[kept++] = c;
        }
    }
    t.copies.resize(kept);
}

bool BlockRun::describe(char* buffer, std::size_t size, const void* fault_address) const
{
    if (!current_ || !launch_) return false;
    const char* cause = stacks_.in_guard(fault_address)
                            ? "a stack overflow: this thread's local variables need more than 128 KiB (a large "
                              "local array?)"
                            : "an access to memory that no array owns: an index far outside its array, a host "
                              "pointer used in the kernel, or a misaligned vector access";
    std::snprintf(buffer, size,
                  "\nThe CPU emulator caught a crash in kernel `%s` launched at %s, block (%u,%u,%u), thread "
                  "(%u,%u,%u), at address %p.\nLikely cause: %s.\n",
                  launch_->site.name, where(launch_->site.file, launch_->site.line).c_str(), block_idx_.x, block_idx_.y,
                  block_idx_.z, current_->idx.x, current_->idx.y, current_->idx.z, fault_address, cause);
    return true;
}

// ---- the shared-memory checker -----------------------------------------------------------------------
//
// In a checked block every load and store of the kernel's code that lands in the shared arena comes here
// (the kernel files are compiled with the thread sanitizer's instrumentation: emu/src/checks.cpp).
// Each 4-byte word remembers its last write and its last read: thread, barrier epoch (incremented when a
// __syncthreads() opens) and the thread's warp clock. Two accesses of one word by different threads in
// the same epoch, one of them a write, are a race unless the threads are lanes of one warp and a warp
// operation that both took part in (__syncwarp, a shuffle, a vote) lies between them: each lane keeps a
// vector clock over its warp's lanes, joined at every completed warp operation. Races between two
// writes are not reported (threads storing the same flag value is common and harmless); atomics are
// not seen (the emulator's atomics are not instrumented), so they never race.

void BlockRun::start_checking()
{
    ++epoch_;
    block_epoch_ = epoch_;
    clocks_.assign(static_cast<std::size_t>(n_) * 32, 0u);
    for (int i = 0; i < n_; ++i) clocks_[static_cast<std::size_t>(i) * 32 + static_cast<std::size_t>(i % 32)] = 1;
    map_regions(0, arena_.end());
    emu_tls_watch_lo = reinterpret_cast<std::uintptr_t>(arena_.base());
    emu_tls_watch_span = SharedArena::kBytes;
}

void BlockRun::map_regions(std::size_t from, std::size_t to)
{
    for (std::size_t w = from / 4; w < (to + 3) / 4; ++w) region_of_word_[w] = 0;
    const auto& regions = arena_.regions();
    for (std::size_t i = 0; i < regions.size(); ++i) {
        const auto& r = regions[i];
        if (r.offset + r.bytes <= from || r.offset >= to) continue;
        for (std::size_t w = r.offset / 4; w < (r.offset + r.bytes + 3) / 4; ++w) {
            region_of_word_[w] = static_cast<std::uint16_t>(i + 1);
        }
    }
}

void BlockRun::join_clocks(int base, unsigned mask)
{
    std::uint32_t joined[32] = {};
    for (unsigned m = mask; m != 0; m &= m - 1) {
        const std::uint32_t* row = &clocks_[static_cast<std::size_t>(base + __builtin_ctz(m)) * 32];
        for (int k = 0; k < 32; ++k) joined[k] = std::max(joined[k], row[k]);
    }
    for (unsigned m = mask; m != 0; m &= m - 1) {
        const int lane = __builtin_ctz(m);
        std::uint32_t* row = &clocks_[static_cast<std::size_t>(base + lane) * 32];
        std::memcpy(row, joined, sizeof joined);
        row[lane] = joined[lane] + 1;   // what the lane does from now on comes after the operation
    }
}

bool BlockRun::ordered(int earlier, std::uint32_t clock, int later) const
{
    return earlier / 32 == later / 32 &&
           clocks_[static_cast<std::size_t>(later) * 32 + static_cast<std::size_t>(earlier % 32)] >= clock;
}

void BlockRun::check_shared(std::size_t offset, std::size_t bytes, bool write, const void* pc)
{
    if (!current_ || failed_ || bytes == 0) return;
    const int me = current_->linear;
    if (offset + bytes > arena_.end()) offset = std::min(offset, arena_.end());
    const std::size_t first = offset / 4, last = (offset + bytes - 1) / 4;
    if (!write) {
        // A read outside every array (its red zone) or across an array's end. Writes there are reported
        // at the next barrier, as without the checker.
        const std::uint16_t region = offset + bytes <= arena_.end() ? region_of_word_[first] : 0;
        const auto* r = region ? &arena_.regions()[region - 1u] : nullptr;
        if (!r || offset < r->offset || offset + bytes > r->offset + r->bytes) {
            fail_in_thread(thread_name(*current_) + " made a read out of bounds of shared memory" + at_line(pc) + ": " +
                           std::to_string(bytes) + " bytes at " + arena_.locate(offset, bytes) +
                           ". An index past the end of a shared array: check the bounds, the array size and that "
                           "the launch asks for enough dynamic shared memory.");
        }
    }
    for (std::size_t w = first; w <= last; ++w) {
        ShadowWord& word = shadow_[w];
        if (write) {
            if (word.read_epoch == epoch_ && word.reader != me && !ordered(word.reader, word.read_clock, me)) {
                report_race(w, false, word.reader, word.read_pc, true, pc);
            }
            word.write_epoch = epoch_;
            word.writer = static_cast<std::uint16_t>(me);
            word.write_clock = clock_of(me);
            word.write_pc = pc;
            continue;
        }
        if (word.write_epoch < block_epoch_) {
            // Never written by an instrumented store: unwritten if it still holds the fill bytes (code the
            // checker does not see, such as a memset, may have written it).
            const std::size_t lo = std::max(offset, w * 4), hi = std::min(offset + bytes, w * 4 + 4);
            bool fill = true;
            for (std::size_t b = lo; b < hi; ++b) fill = fill && arena_.base()[b] == arena_.fill();
            if (fill && unwritten_read_.empty()) {
                // Reported when the epoch ends, unless another thread writes the word before that: then
                // the read came too early, a race (reported as such, the clearer diagnosis).
                unwritten_read_ = thread_name(*current_) + " read shared memory that no thread wrote" + at_line(pc) +
                                  ": " + arena_.locate(lo, hi - lo) +
                                  " still holds the emulator's fill bytes (garbage on a GPU). A missing load into "
                                  "shared memory (a tail or padding element no thread stores), or an index that "
                                  "reaches a part of the array no thread fills.";
            }
        } else if (word.write_epoch == epoch_ && word.writer != me && !ordered(word.writer, word.write_clock, me)) {
            report_race(w, true, word.writer, word.write_pc, false, pc);
        }
        word.read_epoch = epoch_;
        word.reader = static_cast<std::uint16_t>(me);
        word.read_clock = clock_of(me);
        word.read_pc = pc;
    }
}

void BlockRun::report_race(std::size_t word, bool earlier_wrote, int earlier, const void* earlier_pc, bool now_writes,
                           const void* pc)
{
    const ThreadState& other = threads_[static_cast<std::size_t>(earlier)];
    const ThreadState& t = *current_;
    const bool same_warp = other.linear / 32 == t.linear / 32;
    fail_in_thread(
        "shared memory race on " + arena_.locate(word * 4, 4) + ": " + thread_name(other) +
        (earlier_wrote ? " wrote it" : " read it") + at_line(earlier_pc) + " and " + thread_name(t) +
        (now_writes ? " wrote it" : " read it") + at_line(pc) + " with no __syncthreads() between them" +
        (same_warp ? " (nor a __syncwarp() or warp operation: they are lanes of one warp)" : "") +
        ". The result depends on the order in which the threads run: put a __syncthreads() between writing "
        "shared memory and reading it, and between the last read of a tile and the next write over it (e.g. at "
        "the end of each iteration of a tile loop).");
}

// ---- crashes ------------------------------------------------------------------------------------------

void BlockRun::escape_crash(int signal_number, const void* fault_address)
{
    if (!crash_armed_) return;
    crash_armed_ = false;
    crash_signal_ = signal_number;
    crash_address_ = fault_address;
    siglongjmp(crash_jump_, 1);
}

std::string BlockRun::crash_report(int signal_number, const void* fault_address) const
{
    std::string cause;
    if (signal_number == SIGFPE) {
        cause =
            "an integer division or remainder by zero (a GPU returns garbage instead; either way the divisor "
            "must not be 0)";
    } else if (signal_number == SIGABRT) {
        cause = "an abort: a failed assert() in the kernel, or an error inside the emulator";
    } else if (signal_number == SIGILL || signal_number == SIGTRAP) {
        // Kernel code is compiled with -fsanitize=bounds and traps (cmake/WorkbookBackend.cmake): si_addr is
        // the trapping instruction itself, so one byte on is inside it for the line lookup.
        cause =
            "an index outside an array whose size the compiler knows (a local or __shared__ array read or "
            "written past its end, e.g. a loop bound one too far: a GPU would read or overwrite whatever "
            "lies beside it)" +
            at_line(static_cast<const char*>(fault_address) + 1) +
            "; or a __builtin_trap(), or code the compiler proved unreachable";
    } else if (stacks_.in_guard(fault_address)) {
        cause =
            "a stack overflow: this thread's local variables need more than 128 KiB (a large local array?) "
            "or a recursion does not end";
    } else {
        char where_text[64];
        std::snprintf(where_text, sizeof where_text, "%p", fault_address);
        cause = std::string("an access to memory at ") + where_text +
                " that no array owns: an index far outside its array, a host pointer used in the kernel, or a "
                "misaligned vector access";
    }
    const std::string who = current_ ? thread_name(*current_) : std::string("a thread");
    return "crash in " + who + ": " + cause + ".";
}

// ---- the worker's state ------------------------------------------------------------------------------

struct Worker {
    StackPool stacks;
    BlockRun block{stacks};
};

Worker& worker()
{
    static thread_local Worker* w = new Worker();   // lives as long as the worker thread (never freed)
    return *w;
}

std::atomic<int> schedule_override{-1};
std::atomic<std::uint64_t> blocks_started_count{0};   ///< every block of every launch, as it starts

Schedule schedule_for(std::uint64_t launch_index, std::uint64_t block_index)
{
    static const int fixed = [] {
        const char* env = std::getenv("WORKBOOK_EMU_SCHEDULE");
        if (!env || !*env || std::strcmp(env, "mixed") == 0) return -1;
        if (std::strcmp(env, "forward") == 0) return 0;
        if (std::strcmp(env, "reverse") == 0) return 1;
        if (std::strcmp(env, "random") == 0) return 2;
        std::fprintf(stderr, "WORKBOOK_EMU_SCHEDULE=%s is not one of forward, reverse, random, mixed: using mixed\n",
                     env);
        return -1;
    }();
    const int forced = schedule_override.load() >= 0 ? schedule_override.load() : fixed;
    const std::uint64_t choice = forced >= 0 ? static_cast<std::uint64_t>(forced) : (launch_index + block_index) % 3;
    return choice == 0 ? Schedule::forward : (choice == 1 ? Schedule::reverse : Schedule::random);
}

}   // namespace

void set_schedule_override(int schedule) { schedule_override = schedule; }

namespace {

uint3 block_coordinates(std::uint64_t index, dim3 grid)
{
    return uint3{static_cast<unsigned>(index % grid.x), static_cast<unsigned>(index / grid.x % grid.y),
                 static_cast<unsigned>(index / (static_cast<std::uint64_t>(grid.x) * grid.y))};
}

/// Whether the shared-memory checker watches block @p index of @p total (WORKBOOK_EMU_CHECK): by
/// default ("sample") the first two and the last block of every launch, which keeps its cost small
/// (a race or a bad index shows in any block that runs the code: the edge blocks carry the tails);
/// "all" checks every block, "off" none.
std::atomic<int> check_override{-1};

bool checks_block(std::uint64_t index, std::uint64_t total)
{
    static const int configured = [] {
        const char* env = std::getenv("WORKBOOK_EMU_CHECK");
        if (!env || !*env || std::strcmp(env, "sample") == 0) return 1;
        if (std::strcmp(env, "all") == 0) return 2;
        if (std::strcmp(env, "off") == 0) return 0;
        std::fprintf(stderr, "WORKBOOK_EMU_CHECK=%s is not one of sample, all, off: using sample\n", env);
        return 1;
    }();
    const int mode = check_override.load() >= 0 ? check_override.load() : configured;
    return mode == 2 || (mode == 1 && (index < 2 || index + 1 == total));
}

/// Runs block @p index of @p launch on the calling thread; false when it failed.
bool run_block(const LaunchState& launch, std::uint64_t index)
{
    const Schedule schedule = schedule_for(launch.index, index);
    const std::uint64_t seed = (launch.index * 0x9E3779B97F4A7C15ull) ^ (index * 0xBF58476D1CE4E5B9ull);
    const dim3 g = launch.grid;
    const bool check = checks_block(index, static_cast<std::uint64_t>(g.x) * g.y * g.z);
    BlockRun& block = worker().block;
    const bool ok = block.run(launch, block_coordinates(index, launch.grid), schedule, seed, check);
    // For the ledger (emu/ledger.hpp): the static shared memory a block of this launch placed.
    const std::size_t placed = block.arena().static_bytes();
    std::size_t seen = launch.static_shared_seen.load(std::memory_order_relaxed);
    while (placed > seen && !launch.static_shared_seen.compare_exchange_weak(seen, placed)) {}
    return ok;
}

/// Blocks are independent, so the blocks of a launch are shared among a few threads (the device's
/// worker and WORKBOOK_EMU_THREADS - 1 helpers; default: the machine's cores, at most 8). Each block
/// still runs its threads in its own schedule, so results do not depend on the number of threads
/// (only the order of atomic updates from different blocks does, as on a GPU).
class BlockPool {
public:
    static BlockPool& get()
    {
        static BlockPool* pool = new BlockPool();   // never destroyed: its threads wait for work forever
        return *pool;
    }

    std::optional<KernelFailure> run(const LaunchState& launch)
    {
        const dim3 g = launch.grid;
        const std::uint64_t total = static_cast<std::uint64_t>(g.x) * g.y * g.z;
        if (helpers_.empty() || total < 2) {
            for (std::uint64_t b = 0; b < total; ++b) {
                if (!run_block(launch, b)) return worker().block.failure();
            }
            return std::nullopt;
        }
        {
            std::lock_guard<std::mutex> lock(mutex_);
            job_ = &launch;
            total_ = total;
            next_ = 0;
            failed_ = false;
            failure_.reset();
            failure_block_ = UINT64_MAX;
            active_ = static_cast<int>(helpers_.size());
            ++generation_;
        }
        start_.notify_all();
        work_on(launch);
        std::unique_lock<std::mutex> lock(mutex_);
        done_.wait(lock, [&] { return active_ == 0; });
        job_ = nullptr;
        return failure_;
    }

private:
    BlockPool()
    {
        int threads = static_cast<int>(std::min(8u, std::max(1u, std::thread::hardware_concurrency())));
        if (const char* env = std::getenv("WORKBOOK_EMU_THREADS"); env && *env) threads = std::max(1, std::atoi(env));
        for (int i = 1; i < threads; ++i) helpers_.emplace_back([this] { help(); });
        for (std::thread& t : helpers_) t.detach();
    }

    void help()
    {
        prepare_worker_thread();
        std::uint64_t seen = 0;
        for (;;) {
            const LaunchState* job = nullptr;
            {
                std::unique_lock<std::mutex> lock(mutex_);
                start_.wait(lock, [&] { return generation_ != seen; });
                seen = generation_;
                job = job_;
            }
            work_on(*job);
            {
                std::lock_guard<std::mutex> lock(mutex_);
                --active_;
            }
            done_.notify_all();
        }
    }

    void work_on(const LaunchState& launch)
    {
        for (;;) {
            const std::uint64_t b = next_++;
            if (b >= total_ || failed_) return;
            blocks_started_count.fetch_add(1, std::memory_order_relaxed);
            if (!run_block(launch, b)) {
                std::lock_guard<std::mutex> lock(failure_mutex_);
                if (b < failure_block_) {   // the first failing block is the one reported
                    failure_block_ = b;
                    failure_ = worker().block.failure();
                }
                failed_ = true;
            }
        }
    }

    std::vector<std::thread> helpers_;
    std::mutex mutex_;
    std::condition_variable start_, done_;
    const LaunchState* job_ = nullptr;
    std::uint64_t generation_ = 0;
    int active_ = 0;
    std::uint64_t total_ = 0;
    std::atomic<std::uint64_t> next_{0};
    std::atomic<bool> failed_{false};
    std::mutex failure_mutex_;
    std::optional<KernelFailure> failure_;
    std::uint64_t failure_block_ = UINT64_MAX;
};

}   // namespace

std::uint64_t blocks_started() { return blocks_started_count.load(std::memory_order_relaxed); }

std::optional<KernelFailure> run_grid(const LaunchState& launch)
{
    if (profiling_requested()) profile_launch(launch.site.name);
    fences_launch_begin(launch.site);
    races_launch_begin();
    std::optional<KernelFailure> failure = BlockPool::get().run(launch);
    fences_launch_end();
    return failure;
}

bool describe_running_thread(char* buffer, std::size_t size, const void* fault_address)
{
    return tls_block && tls_block->describe(buffer, size, fault_address);
}

void escape_crash(int signal_number, const void* fault_address)
{
    if (tls_block) tls_block->escape_crash(signal_number, fault_address);
}

void check_shared_access(std::uintptr_t address, std::size_t bytes, bool write, const void* pc)
{
    if (tls_block) tls_block->check_shared(address - emu_tls_watch_lo, bytes, write, pc);
}

std::string source_line(const void* pc) { return source_line_of(pc); }

void set_check_override(int mode) { check_override = mode; }

void fail_running_thread(const std::string& report)
{
    if (tls_block) tls_block->fail_current_thread(report);
}

// ---- entry points for device code --------------------------------------------------------------------

namespace {
BlockRun& block_or_die(const char* what)
{
    if (!tls_block) {
        std::fprintf(stderr, "%s was called outside a kernel (from host code); it only works in device code.\n", what);
        std::abort();
    }
    return *tls_block;
}
}   // namespace

std::uint64_t warp_op(WarpOp op, unsigned mask, std::uint64_t value, int param, int width, const char* what,
                      const char* file, int line)
{
    return block_or_die(what).warp_op(op, mask, value, param, width, what, file, line);
}

int block_barrier(BarrierKind kind, int predicate, const char* what, const char* file, int line)
{
    return block_or_die(what).barrier(kind, predicate, what, file, line);
}

unsigned active_mask() { return block_or_die("__activemask()").active_mask(); }

void yield_thread() { block_or_die("__nanosleep()").yield_thread(); }

void trap(const char* what, const char* file, int line)
{
    block_or_die(what).fail_in_thread(std::string("the kernel called ") + what + " at " + where(file, line) + ".");
}

void shared_allocate(SharedSlot& slot, std::size_t bytes, std::size_t align, const char* name, const char* file,
                     int line)
{
    block_or_die("a __shared__ declaration").allocate_shared(slot, bytes, align, name, file, line);
}

std::size_t shared_address(const void* p, const char* what, const char* file, int line)
{
    return block_or_die(what).shared_address(p, what, file, line);
}

void cp_async(std::size_t dst, const void* src, int copy_bytes, int src_bytes, const char* file, int line)
{
    block_or_die("cp.async").cp_async(dst, src, copy_bytes, src_bytes, file, line);
}

void cp_async_commit() { block_or_die("cp.async.commit_group").cp_async_commit(); }

void cp_async_wait(int pending_groups) { block_or_die("cp.async.wait_group").cp_async_wait(pending_groups); }

void* shared_dynamic_base(std::size_t align, const char*, int)
{
    return block_or_die("extern __shared__").dynamic_shared(align);
}

}   // namespace emu::detail
