// The CUDA runtime API on the CPU: one emulated device whose work runs on a worker thread.
//
// Device work (kernels, device-side copies and fills, event records) is queued in submission order
// and run by one worker thread, so launches return at once and a kernel that never ends shows up
// as a hang in the harness's timed wait, exactly as on a GPU. Copies from or to pageable host
// memory wait for the queue first and then copy at once (as cudaMemcpyAsync does with pageable
// memory), so a host buffer may be reused as soon as the call returns.
//
// Device allocations are fenced: 4 KiB before and 32 KiB after each one hold kUndefinedByte, checked
// after every kernel. A kernel that wrote past the end of its array (a missing bounds test, a grid
// that is too large) fails with the allocation's size and how far past its end it wrote. New
// allocations are filled with it too, so code that assumes freshly allocated memory is zero fails.
#include "engine.hpp"
#include "emu/grader_api.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <new>
#include <string>
#include <thread>

struct CUstream_st {
    unsigned flags = 0;
};

struct CUgraph_st {
    std::size_t nodes = 0;
};

struct CUevent_st {
    std::atomic<bool> recorded{false};
    std::atomic<bool> complete{false};
    double ms = 0.0;   // when the worker reached the record
};

namespace emu::detail {
namespace {

constexpr std::size_t kFrontGuard = 4096;
constexpr std::size_t kBackGuard = 32 * 1024;
constexpr std::size_t kPoisonLimit = std::size_t(256) << 20;   // larger allocations stay as the OS gives them

struct Allocation {
    unsigned char* raw = nullptr;    // start of the front guard
    std::size_t bytes = 0;           // what was asked for
    std::size_t padded = 0;          // bytes rounded up to 256 (the end of the user part)
    std::size_t extent = SIZE_MAX;   // the bytes the caller will use (emu::declare_buffer_extent), if less
};

double now_ms()
{
    using namespace std::chrono;
    return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

bool all_ff(const unsigned char* p, std::size_t n, std::size_t* first_bad)
{
    static unsigned char ff[4096];
    static const bool filled = (std::memset(ff, kUndefinedByte, sizeof ff), true);
    (void)filled;
    for (std::size_t done = 0; done < n;) {
        const std::size_t chunk = std::min(n - done, sizeof ff);
        if (std::memcmp(p + done, ff, chunk) != 0) {
            for (std::size_t i = 0; i < chunk; ++i) {
                if (p[done + i] != kUndefinedByte) {
                    *first_bad = done + i;
                    return false;
                }
            }
        }
        done += chunk;
    }
    return true;
}

class Device {
public:
    static Device& get()
    {
        static Device* device = new Device();   // never destroyed: the worker may outlive main's statics
        return *device;
    }

    // ---- errors ----
    cudaError_t sticky() const { return static_cast<cudaError_t>(sticky_.load()); }
    void set_fault(cudaError_t code, const std::string& report, bool deadlock)
    {
        std::lock_guard<std::mutex> lock(report_mutex_);
        if (sticky_.load() != cudaSuccess) return;
        report_ = report;
        report_code_ = code;
        deadlock_ = deadlock;
        sticky_ = code;
    }
    void set_report(cudaError_t code, const std::string& report)
    {
        std::lock_guard<std::mutex> lock(report_mutex_);
        if (sticky_.load() != cudaSuccess) return;
        report_ = report;
        report_code_ = code;
        deadlock_ = false;
    }
    std::string report(bool* deadlock, cudaError_t* code)
    {
        std::lock_guard<std::mutex> lock(report_mutex_);
        *deadlock = deadlock_;
        *code = report_code_;
        return report_;
    }
    void reset_errors()
    {
        std::lock_guard<std::mutex> lock(report_mutex_);
        sticky_ = cudaSuccess;
        report_.clear();
        report_code_ = cudaSuccess;
        deadlock_ = false;
    }

    // ---- stream capture ----
    static bool legacy(cudaStream_t s) { return s == nullptr || s == cudaStreamLegacy; }
    cudaError_t begin_capture(cudaStream_t s)
    {
        if (legacy(s)) return cudaErrorStreamCaptureUnsupported;
        std::lock_guard<std::mutex> lock(capture_mutex_);
        if (captures_.count(s)) return cudaErrorIllegalState;
        captures_[s] = Capture{};
        return cudaSuccess;
    }
    cudaError_t end_capture(cudaStream_t s, cudaGraph_t* graph)
    {
        std::lock_guard<std::mutex> lock(capture_mutex_);
        auto it = captures_.find(s);
        if (it == captures_.end()) return cudaErrorIllegalState;
        const Capture c = it->second;
        captures_.erase(it);
        if (c.invalidated) {
            *graph = nullptr;
            return cudaErrorStreamCaptureInvalidated;
        }
        *graph = new CUgraph_st{c.nodes};
        return cudaSuccess;
    }
    cudaStreamCaptureStatus capture_status(cudaStream_t s)
    {
        std::lock_guard<std::mutex> lock(capture_mutex_);
        auto it = captures_.find(s);
        if (it == captures_.end()) return cudaStreamCaptureStatusNone;
        return it->second.invalidated ? cudaStreamCaptureStatusInvalidated : cudaStreamCaptureStatusActive;
    }
    /// A synchronous call (it joins the legacy stream): not allowed while a stream is being captured.
    cudaError_t check_sync_allowed()
    {
        std::lock_guard<std::mutex> lock(capture_mutex_);
        if (captures_.empty()) return cudaSuccess;
        for (auto& [stream, c] : captures_) c.invalidated = true;
        return cudaErrorStreamCaptureImplicit;
    }
    /// Queues @p task on @p stream, or records it when the stream is being captured.
    cudaError_t enqueue(cudaStream_t s, std::function<void()> task)
    {
        {
            std::lock_guard<std::mutex> lock(capture_mutex_);
            if (!captures_.empty()) {
                auto it = captures_.find(s);
                if (it != captures_.end()) {
                    ++it->second.nodes;
                    return cudaSuccess;
                }
                if (legacy(s)) {
                    for (auto& [stream, c] : captures_) c.invalidated = true;
                    return cudaErrorStreamCaptureImplicit;
                }
            }
        }
        submit(std::move(task));
        return cudaSuccess;
    }

    // ---- the queue ----
    void submit(std::function<void()> task)
    {
        std::lock_guard<std::mutex> lock(queue_mutex_);
        queue_.push_back(std::move(task));
        work_.notify_one();
    }
    void drain()
    {
        std::unique_lock<std::mutex> lock(queue_mutex_);
        idle_.wait(lock, [&] { return queue_.empty() && !busy_; });
    }
    bool idle()
    {
        std::lock_guard<std::mutex> lock(queue_mutex_);
        return queue_.empty() && !busy_;
    }

    // ---- memory ----
    cudaError_t allocate(void** ptr, std::size_t bytes)
    {
        if (!ptr) return cudaErrorInvalidValue;
        *ptr = nullptr;
        if (bytes == 0) return cudaSuccess;
        const std::size_t padded = (bytes + 255) / 256 * 256;
        void* raw = nullptr;
        if (posix_memalign(&raw, 4096, kFrontGuard + padded + kBackGuard) != 0) return cudaErrorMemoryAllocation;
        auto* bytes_raw = static_cast<unsigned char*>(raw);
        std::memset(bytes_raw, kUndefinedByte, kFrontGuard);
        if (padded <= kPoisonLimit) std::memset(bytes_raw + kFrontGuard, kUndefinedByte, padded);
        std::memset(bytes_raw + kFrontGuard + padded, kUndefinedByte, kBackGuard);
        // The bytes between `bytes` and `padded` belong to the guard as well.
        if (padded > kPoisonLimit) std::memset(bytes_raw + kFrontGuard + bytes, kUndefinedByte, padded - bytes);
        *ptr = bytes_raw + kFrontGuard;
        ledger_note_allocation(*ptr, bytes);
        std::lock_guard<std::mutex> lock(memory_mutex_);
        allocations_[reinterpret_cast<std::uintptr_t>(*ptr)] = Allocation{bytes_raw, bytes, padded};
        return cudaSuccess;
    }
    cudaError_t release(void* ptr)
    {
        if (!ptr) return cudaSuccess;
        std::lock_guard<std::mutex> lock(memory_mutex_);
        auto it = allocations_.find(reinterpret_cast<std::uintptr_t>(ptr));
        if (it == allocations_.end()) return cudaErrorInvalidValue;
        ledger_note_release(ptr);
        std::free(it->second.raw);
        allocations_.erase(it);
        return cudaSuccess;
    }
    /// The allocation holding [p, p + bytes), or nullptr.
    const Allocation* find(const void* p, std::size_t bytes, std::uintptr_t* start)
    {
        std::lock_guard<std::mutex> lock(memory_mutex_);
        const auto address = reinterpret_cast<std::uintptr_t>(p);
        auto it = allocations_.upper_bound(address);
        if (it == allocations_.begin()) return nullptr;
        --it;
        if (address + bytes > it->first + it->second.bytes) return nullptr;
        *start = it->first;
        return &it->second;
    }
    /// Records that only the first @p bytes of the allocation at @p p hold data (the rest is a guard).
    bool declare_extent(const void* p, std::size_t bytes)
    {
        std::lock_guard<std::mutex> lock(memory_mutex_);
        auto it = allocations_.find(reinterpret_cast<std::uintptr_t>(p));
        if (it == allocations_.end() || bytes > it->second.bytes) return false;
        it->second.extent = bytes;
        return true;
    }
    /// When [p, p + bytes) reaches past the data of an allocation (its declared extent, its size, or in
    /// its fences), whether it starts there or inside the data (a vector load over the end): a description
    /// of where, else "".
    std::string past_the_end(const void* p, std::size_t bytes)
    {
        std::lock_guard<std::mutex> lock(memory_mutex_);
        const auto address = reinterpret_cast<std::uintptr_t>(p);
        auto it = allocations_.upper_bound(address + kFrontGuard);   // past the one whose front fence holds p
        if (it == allocations_.begin()) return "";
        --it;
        const Allocation& a = it->second;
        const std::uintptr_t start = it->first;
        const std::size_t data = std::min(a.bytes, a.extent);
        const std::string array = "an array of " + std::to_string(data) + " bytes";
        if (address < start) return std::to_string(start - address) + " bytes before the start of " + array;
        if (address + bytes <= start + data || address + bytes > start + a.padded + kBackGuard) return "";
        if (address < start + data) {
            return "bytes " + std::to_string(address - start) + " to " + std::to_string(address - start + bytes - 1) +
                   " of " + array + " (its last " + std::to_string(address + bytes - start - data) +
                   " bytes past its end)";
        }
        const std::size_t past = address - start - data;
        return "byte " + std::to_string(address - start) + " of " + array + " (" +
               (past == 0 ? std::string("the first byte after its end")
                          : std::to_string(past) + " bytes past its end") +
               ")";
    }
    bool is_device(const void* p, std::size_t bytes)
    {
        std::uintptr_t start = 0;
        const Allocation* a = find(p, bytes, &start);
        return a != nullptr;
    }
    /// After a kernel: every fence intact? Otherwise a description of the first damage.
    std::string check_fences()
    {
        std::lock_guard<std::mutex> lock(memory_mutex_);
        for (auto& [address, a] : allocations_) {
            std::size_t bad = 0;
            const std::string size = std::to_string(a.bytes) + "-byte device allocation";
            if (!all_ff(a.raw, kFrontGuard, &bad)) {
                const std::size_t before = kFrontGuard - bad;
                std::memset(a.raw, kUndefinedByte, kFrontGuard);
                return "it wrote " + std::to_string(before) + " bytes before the start of a " + size +
                       " (a negative index?)";
            }
            unsigned char* end = a.raw + kFrontGuard + a.bytes;
            const std::size_t tail = a.padded - a.bytes + kBackGuard;
            if (!all_ff(end, tail, &bad)) {
                std::memset(end, kUndefinedByte, tail);
                return "it wrote past the end of a " + size + ": byte " + std::to_string(a.bytes + bad) + " (" +
                       std::to_string(bad) +
                       " bytes past the end) was changed. A missing or wrong bounds "
                       "test (if (i < n)), a grid larger than the data, or a vector access over the last "
                       "partial vector";
            }
        }
        return "";
    }

    std::uint64_t next_launch_index() { return launches_++; }

private:
    Device()
    {
        worker_ = std::thread([this] { work(); });
        worker_.detach();
    }

public:
    static void on_crash(int signal_number, siginfo_t* info, void*)
    {
        // In a CUDA thread: end its block with a report instead of the process (does not return then).
        escape_crash(signal_number, info->si_addr);
        char text[1024];
        if (describe_running_thread(text, sizeof text, info->si_addr)) {
            fflush(stdout);
            ssize_t ignored = write(STDOUT_FILENO, text, std::strlen(text));
            (void)ignored;
        }
        // Not in a kernel: whoever handled the signal before (the test framework) has its say.
        const struct sigaction& previous = previous_handlers()[signal_number];
        if ((previous.sa_flags & SA_SIGINFO) && previous.sa_sigaction) {
            previous.sa_sigaction(signal_number, info, nullptr);
        } else if (!(previous.sa_flags & SA_SIGINFO) && previous.sa_handler != SIG_DFL &&
                   previous.sa_handler != SIG_IGN) {
            previous.sa_handler(signal_number);
        }
        ::signal(signal_number, SIG_DFL);
        ::raise(signal_number);
    }

    static struct sigaction* previous_handlers()
    {
        static struct sigaction saved[NSIG] = {};
        return saved;
    }

    /// Makes on_crash the handler of the crash signals. Called at every launch: a test framework may
    /// have put its own handler back in the meantime (Catch2 does around each test case).
    static void install_crash_handler()
    {
        static std::mutex mutex;
        std::lock_guard<std::mutex> lock(mutex);
        for (int signal_number : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT}) {
            struct sigaction current {};
            sigaction(signal_number, nullptr, &current);
            if ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == &Device::on_crash) continue;
            previous_handlers()[signal_number] = current;
            struct sigaction action {};
            action.sa_sigaction = &Device::on_crash;
            action.sa_flags = SA_SIGINFO | SA_ONSTACK;
            sigemptyset(&action.sa_mask);
            sigaction(signal_number, &action, nullptr);
        }
    }

private:
    void work()
    {
        prepare_worker_thread();
        for (;;) {
            std::function<void()> task;
            {
                std::unique_lock<std::mutex> lock(queue_mutex_);
                work_.wait(lock, [&] { return !queue_.empty(); });
                task = std::move(queue_.front());
                queue_.pop_front();
                busy_ = true;
            }
            if (sticky() == cudaSuccess) task();   // after a fault, queued work is dropped (as on a GPU)
            {
                std::lock_guard<std::mutex> lock(queue_mutex_);
                busy_ = false;
                if (queue_.empty()) idle_.notify_all();
            }
        }
    }

    std::mutex queue_mutex_;
    std::condition_variable work_, idle_;
    std::deque<std::function<void()>> queue_;
    bool busy_ = false;
    std::thread worker_;

    std::mutex memory_mutex_;
    std::map<std::uintptr_t, Allocation> allocations_;

    struct Capture {
        std::size_t nodes = 0;
        bool invalidated = false;
    };
    std::mutex capture_mutex_;
    std::map<cudaStream_t, Capture> captures_;

    std::atomic<int> sticky_{cudaSuccess};
    std::mutex report_mutex_;
    std::string report_;
    cudaError_t report_code_ = cudaSuccess;
    bool deadlock_ = false;
    std::atomic<std::uint64_t> launches_{0};
};

thread_local cudaError_t tls_last_error = cudaSuccess;

/// Records @p code as this host thread's last error (when it is one) and returns it.
cudaError_t note(cudaError_t code)
{
    if (code != cudaSuccess) tls_last_error = code;
    return code;
}

/// The sticky error if a kernel failed, otherwise success.
cudaError_t sticky() { return Device::get().sticky(); }

std::mutex attributes_mutex;
std::map<const void*, int> dynamic_shared_limits;

}   // namespace

void prepare_worker_thread()
{
    // A stack of its own for the crash handler: a fiber's stack may be the thing that overflowed.
    static thread_local char alternate[64 * 1024];
    stack_t ss{};
    ss.ss_sp = alternate;
    ss.ss_size = sizeof alternate;
    sigaltstack(&ss, nullptr);
    Device::install_crash_handler();
}

namespace {

/// Stops the running thread: a read of @p bytes @p site ("at file:line") reached @p where_text.
[[noreturn]] void report_read_past_the_end(std::size_t bytes, const std::string& site, const std::string& where_text)
{
    fail_running_thread("made a read past the end of an input array" + site + ": " + std::to_string(bytes) +
                        " bytes at " + where_text +
                        ". A missing bounds test (if (i < n)) on a load, a loop that runs one step too far, or a "
                        "vector load over the last partial vector. A GPU returns whatever lies there (or crashes).");
    std::abort();   // not reached: the thread does not come back
}

}   // namespace

void check_guard_read(const void* address, std::size_t bytes, const void* pc)
{
    const std::string where_text = Device::get().past_the_end(address, bytes);
    if (where_text.empty()) return;
    const std::string line = source_line(pc);
    report_read_past_the_end(bytes, line.empty() ? std::string() : " at " + line, where_text);
}

void check_copy_source(const void* address, std::size_t bytes, const std::string& site)
{
    // Data bytes, first and last: inside an array (the common case, no lookup). The last 4 bytes catch a
    // copy that starts inside the array and runs over its end.
    const auto* last = static_cast<const unsigned char*>(address) + bytes - 4;
    if (!looks_like_guard(address, bytes) && !(bytes >= 8 && looks_like_guard(last, 4))) return;
    const std::string where_text = Device::get().past_the_end(address, bytes);
    if (!where_text.empty()) report_read_past_the_end(bytes, site, where_text);
}

void report_misaligned(const void* address, std::size_t bytes, bool write, const void* pc)
{
    const std::string line = source_line(pc);
    const auto value = reinterpret_cast<std::uintptr_t>(address);
    fail_running_thread("made a misaligned " + std::to_string(bytes) + "-byte " + (write ? "write" : "read") +
                        (line.empty() ? std::string() : " at " + line) + ": its address is " +
                        std::to_string(value % bytes) + " bytes past a multiple of " + std::to_string(bytes) +
                        ". A float2, float4, double or 64-bit access needs an address that is a multiple of its size: "
                        "a vector access over rows whose length is not a multiple of the vector width, or a pointer "
                        "offset by a scalar index before the cast. A GPU stops the kernel with \"misaligned "
                        "address\".");
}

std::size_t max_dynamic_shared_allowed()
{
    std::lock_guard<std::mutex> lock(attributes_mutex);
    std::size_t best = kSharedPerBlock;
    for (const auto& [kernel, limit] : dynamic_shared_limits)
        best = std::max<std::size_t>(best, static_cast<std::size_t>(limit));
    return best;
}

void submit_launch(const KernelSite& site, const LaunchConfig& config, std::unique_ptr<KernelBody> body)
{
    Device& device = Device::get();
    if (sticky() != cudaSuccess) {
        note(sticky());
        return;
    }
    const dim3 g = config.grid, b = config.block;
    const unsigned long long threads = static_cast<unsigned long long>(b.x) * b.y * b.z;
    std::string problem;
    cudaError_t code = cudaErrorInvalidConfiguration;
    if (threads == 0 || g.x == 0 || g.y == 0 || g.z == 0) {
        problem = "a grid or block dimension is 0";
    } else if (threads > 1024 || b.x > 1024 || b.y > 1024 || b.z > 64) {
        problem = "the block has " + std::to_string(threads) + " threads (" + std::to_string(b.x) + " x " +
                  std::to_string(b.y) + " x " + std::to_string(b.z) +
                  "); the most a block may have is 1024 "
                  "(and at most 64 in z)";
    } else if (g.x > 2147483647u || g.y > 65535 || g.z > 65535) {
        problem = "the grid is too large: at most 2^31 - 1 blocks in x and 65535 in y and z";
    } else if (config.shared_bytes > kSharedPerBlockOptin) {
        code = cudaErrorInvalidValue;
        problem = "the launch asks for " + std::to_string(config.shared_bytes) +
                  " bytes of dynamic shared memory; "
                  "a block may have at most " +
                  std::to_string(kSharedPerBlockOptin);
    } else if (config.shared_bytes > max_dynamic_shared_allowed()) {
        code = cudaErrorInvalidValue;
        problem = "the launch asks for " + std::to_string(config.shared_bytes) +
                  " bytes of dynamic shared memory, "
                  "more than the default 48 KB, without cudaFuncSetAttribute(kernel, "
                  "cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) first";
    }
    if (!problem.empty()) {
        device.set_report(code, "the launch of `" + std::string(site.name) + "` at " + where(site.file, site.line) +
                                    " was rejected: " + problem + ".");
        note(code);
        return;
    }
    Device::install_crash_handler();
    auto launch = std::make_shared<LaunchState>();
    launch->site = site;
    launch->grid = g;
    launch->block = b;
    launch->dynamic_shared = config.shared_bytes;
    launch->body = std::move(body);
    launch->index = device.next_launch_index();
    ledger_note_kernel(launch, config.stream);
    const cudaError_t queued = device.enqueue(config.stream, [launch] {
        Device& d = Device::get();
        const std::string head = "kernel `" + std::string(launch->site.name) + "` launched at " +
                                 where(launch->site.file, launch->site.line) + " ";
        if (auto failure = run_grid(*launch)) {
            d.set_fault(failure->deadlock ? cudaErrorLaunchTimeout : cudaErrorLaunchFailure, head + failure->report,
                        failure->deadlock);
            return;
        }
        const std::string fence = d.check_fences();
        if (!fence.empty())
            d.set_fault(cudaErrorIllegalAddress, head + "wrote outside its arrays: " + fence + ".", false);
    });
    note(queued);
}

cudaError_t func_get_attributes(cudaFuncAttributes* attributes, const void* kernel)
{
    if (!attributes || !kernel) return note(cudaErrorInvalidDeviceFunction);
    *attributes = cudaFuncAttributes{};
    attributes->maxThreadsPerBlock = 1024;
    attributes->numRegs = 32;
    attributes->ptxVersion = 80;
    attributes->binaryVersion = 80;
    std::lock_guard<std::mutex> lock(attributes_mutex);
    auto it = dynamic_shared_limits.find(kernel);
    attributes->maxDynamicSharedSizeBytes =
        it == dynamic_shared_limits.end() ? static_cast<int>(kSharedPerBlock) : it->second;
    return cudaSuccess;
}

cudaError_t func_set_attribute(const void* kernel, cudaFuncAttribute attribute, int value)
{
    if (!kernel) return note(cudaErrorInvalidDeviceFunction);
    if (attribute == cudaFuncAttributeMaxDynamicSharedMemorySize) {
        if (value < 0 || static_cast<std::size_t>(value) > kSharedPerBlockOptin) return note(cudaErrorInvalidValue);
        std::lock_guard<std::mutex> lock(attributes_mutex);
        dynamic_shared_limits[kernel] = value;
    } else if (attribute == cudaFuncAttributePreferredSharedMemoryCarveout) {
        // A hint only (-1 for the default, else a percentage), as on the GPU.
        if (value < cudaSharedmemCarveoutDefault || value > cudaSharedmemCarveoutMaxShared)
            return note(cudaErrorInvalidValue);
    } else {
        return note(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}

cudaError_t occupancy_blocks_per_sm(int* blocks, const void* kernel, int block_size, std::size_t dynamic_smem)
{
    if (!blocks || !kernel || block_size <= 0 || block_size > 1024) return note(cudaErrorInvalidValue);
    const int warps = (block_size + 31) / 32;
    int result = std::min(kMaxThreadsPerSm / (warps * 32), kMaxBlocksPerSm);
    if (dynamic_smem > 0) result = std::min<int>(result, static_cast<int>(kSharedPerSm / (dynamic_smem + 1024)));
    *blocks = result;
    return cudaSuccess;
}

cudaError_t memcpy_symbol(void* symbol, std::size_t symbol_bytes, const void* src, std::size_t bytes,
                          std::size_t offset, bool to_symbol, void* dst)
{
    if (offset + bytes > symbol_bytes) return note(cudaErrorInvalidValue);
    Device::get().drain();
    if (sticky() != cudaSuccess) return note(sticky());
    if (to_symbol) {
        std::memcpy(static_cast<char*>(symbol) + offset, src, bytes);
    } else {
        std::memcpy(dst, static_cast<const char*>(symbol) + offset, bytes);
    }
    return cudaSuccess;
}

cudaError_t memcpy_symbol_async(void* symbol, std::size_t symbol_bytes, const void* src, std::size_t bytes,
                                std::size_t offset, bool to_symbol, void* dst, cudaStream_t stream)
{
    if (offset + bytes > symbol_bytes) return note(cudaErrorInvalidValue);
    // Host memory is pageable: like cudaMemcpyAsync, the copy joins the stream (or its capture) and
    // then happens at once, after the work queued before it.
    if (const cudaError_t queued = Device::get().enqueue(stream, [] {}); queued != cudaSuccess) return note(queued);
    return memcpy_symbol(symbol, symbol_bytes, src, bytes, offset, to_symbol, dst);
}

bool device_allocation_bounds(std::uintptr_t address, std::uintptr_t& lo, std::uintptr_t& hi)
{
    std::uintptr_t start = 0;
    const Allocation* a = Device::get().find(reinterpret_cast<const void*>(address), 1, &start);
    if (!a) return false;
    lo = start;
    hi = start + a->bytes;
    return true;
}

}   // namespace emu::detail

namespace emu {
cudaError_t run_in_stream_order(cudaStream_t stream, std::function<void()> work)
{
    using namespace detail;
    if (sticky() != cudaSuccess) return note(sticky());
    return note(Device::get().enqueue(stream, std::move(work)));
}

void declare_buffer_extent(const void* ptr, std::size_t bytes) { detail::Device::get().declare_extent(ptr, bytes); }
void force_schedule(int schedule) { detail::set_schedule_override(schedule); }
std::uint64_t blocks_started() { return detail::blocks_started(); }

std::string last_fault_report(cudaError_t code)
{
    bool deadlock = false;
    cudaError_t reported = cudaSuccess;
    std::string text = detail::Device::get().report(&deadlock, &reported);
    return reported == code ? text : std::string();
}
bool last_fault_is_deadlock()
{
    bool deadlock = false;
    cudaError_t reported = cudaSuccess;
    detail::Device::get().report(&deadlock, &reported);
    return deadlock;
}
}   // namespace emu

using emu::detail::Device;
using emu::detail::note;
using emu::detail::sticky;

// ---- errors, devices ------------------------------------------------------------------------------

const char* cudaGetErrorName(cudaError_t error)
{
    switch (error) {
#define EMU_NAME(e) \
    case e: return #e;
        EMU_NAME(cudaSuccess)
        EMU_NAME(cudaErrorInvalidValue)
        EMU_NAME(cudaErrorMemoryAllocation)
        EMU_NAME(cudaErrorInitializationError)
        EMU_NAME(cudaErrorCudartUnloading)
        EMU_NAME(cudaErrorInvalidConfiguration)
        EMU_NAME(cudaErrorInvalidSymbol)
        EMU_NAME(cudaErrorInvalidDevicePointer)
        EMU_NAME(cudaErrorInvalidMemcpyDirection)
        EMU_NAME(cudaErrorInsufficientDriver)
        EMU_NAME(cudaErrorInvalidDeviceFunction)
        EMU_NAME(cudaErrorNoDevice)
        EMU_NAME(cudaErrorInvalidDevice)
        EMU_NAME(cudaErrorNoKernelImageForDevice)
        EMU_NAME(cudaErrorInvalidResourceHandle)
        EMU_NAME(cudaErrorNotReady)
        EMU_NAME(cudaErrorIllegalAddress)
        EMU_NAME(cudaErrorLaunchOutOfResources)
        EMU_NAME(cudaErrorLaunchTimeout)
        EMU_NAME(cudaErrorAssert)
        EMU_NAME(cudaErrorMisalignedAddress)
        EMU_NAME(cudaErrorLaunchFailure)
        EMU_NAME(cudaErrorNotSupported)
        EMU_NAME(cudaErrorStreamCaptureImplicit)
        EMU_NAME(cudaErrorStreamCaptureUnmatched)
        EMU_NAME(cudaErrorStreamCaptureInvalidated)
        EMU_NAME(cudaErrorStreamCaptureUnsupported)
        EMU_NAME(cudaErrorIllegalState)
        EMU_NAME(cudaErrorUnknown)
#undef EMU_NAME
    }
    return "cudaErrorUnknown";
}

const char* cudaGetErrorString(cudaError_t error)
{
    switch (error) {
        case cudaSuccess: return "no error";
        case cudaErrorInvalidValue: return "invalid argument";
        case cudaErrorMemoryAllocation: return "out of memory";
        case cudaErrorInvalidConfiguration: return "invalid configuration argument";
        case cudaErrorInvalidDeviceFunction: return "invalid device function";
        case cudaErrorNoDevice: return "no CUDA-capable device is detected";
        case cudaErrorInvalidResourceHandle: return "invalid resource handle";
        case cudaErrorNotReady: return "device not ready";
        case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
        case cudaErrorLaunchTimeout: return "the launch timed out and was terminated";
        case cudaErrorLaunchFailure: return "unspecified launch failure";
        case cudaErrorMisalignedAddress: return "misaligned address";
        case cudaErrorAssert: return "device-side assert triggered";
        case cudaErrorInvalidSymbol: return "invalid device symbol";
        case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
        case cudaErrorNotSupported: return "operation not supported";
        case cudaErrorIllegalState: return "the operation cannot be performed in the present state";
        case cudaErrorStreamCaptureUnsupported: return "operation not permitted when stream is capturing";
        case cudaErrorStreamCaptureInvalidated: return "operation failed due to a previous error during capture";
        case cudaErrorStreamCaptureImplicit:
            return "operation would make the legacy stream depend on a capturing blocking stream";
        default: return "unknown error";
    }
}

cudaError_t cudaGetLastError()
{
    cudaError_t error = emu::detail::tls_last_error;
    emu::detail::tls_last_error = cudaSuccess;
    if (error == cudaSuccess) error = sticky();
    return error;
}

cudaError_t cudaPeekAtLastError()
{
    return emu::detail::tls_last_error != cudaSuccess ? emu::detail::tls_last_error : sticky();
}

cudaError_t cudaDriverGetVersion(int* version)
{
    if (!version) return note(cudaErrorInvalidValue);
    *version = CUDART_VERSION;
    return cudaSuccess;
}


cudaError_t cudaGetDeviceCount(int* count)
{
    if (!count) return note(cudaErrorInvalidValue);
    *count = 1;
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int* device)
{
    if (!device) return note(cudaErrorInvalidValue);
    *device = 0;
    return cudaSuccess;
}


cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device)
{
    if (!prop) return note(cudaErrorInvalidValue);
    if (device != 0) return note(cudaErrorInvalidDevice);
    using namespace emu::detail;
    *prop = cudaDeviceProp{};
    std::snprintf(prop->name, sizeof prop->name, "CPU emulator (correctness only)");
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    prop->totalGlobalMem = pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) / 2
                                                 : std::size_t(8) << 30;
    prop->sharedMemPerBlock = kSharedPerBlock;
    prop->regsPerBlock = 65536;
    prop->warpSize = 32;
    prop->memPitch = 2147483647;
    prop->maxThreadsPerBlock = 1024;
    prop->maxThreadsDim[0] = 1024;
    prop->maxThreadsDim[1] = 1024;
    prop->maxThreadsDim[2] = 64;
    prop->maxGridSize[0] = 2147483647;
    prop->maxGridSize[1] = 65535;
    prop->maxGridSize[2] = 65535;
    prop->clockRate = 1000000;
    prop->totalConstMem = 65536;
    prop->major = 8;
    prop->minor = 0;
    prop->textureAlignment = 512;
    static const int sm_count = [] {
        const char* text = std::getenv("WORKBOOK_EMU_SMS");
        const int wanted = text ? std::atoi(text) : 0;
        return wanted > 0 ? wanted : kSmCount;
    }();
    prop->multiProcessorCount = sm_count;
    prop->concurrentKernels = 1;
    prop->unifiedAddressing = 1;
    prop->memoryClockRate = 1000000;
    prop->memoryBusWidth = 256;
    prop->l2CacheSize = 4 << 20;
    prop->maxThreadsPerMultiProcessor = kMaxThreadsPerSm;
    prop->sharedMemPerMultiprocessor = kSharedPerSm;
    prop->regsPerMultiprocessor = 65536;
    prop->managedMemory = 1;
    prop->sharedMemPerBlockOptin = kSharedPerBlockOptin;
    prop->reservedSharedMemPerBlock = 1024;
    prop->maxBlocksPerMultiProcessor = kMaxBlocksPerSm;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device)
{
    if (!value) return note(cudaErrorInvalidValue);
    cudaDeviceProp p;
    const cudaError_t err = cudaGetDeviceProperties(&p, device);
    if (err != cudaSuccess) return err;
    switch (attr) {
        case cudaDevAttrMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
        case cudaDevAttrMaxBlockDimX: *value = p.maxThreadsDim[0]; break;
        case cudaDevAttrMaxBlockDimY: *value = p.maxThreadsDim[1]; break;
        case cudaDevAttrMaxBlockDimZ: *value = p.maxThreadsDim[2]; break;
        case cudaDevAttrMaxGridDimX: *value = p.maxGridSize[0]; break;
        case cudaDevAttrMaxGridDimY: *value = p.maxGridSize[1]; break;
        case cudaDevAttrMaxGridDimZ: *value = p.maxGridSize[2]; break;
        case cudaDevAttrMaxSharedMemoryPerBlock: *value = static_cast<int>(p.sharedMemPerBlock); break;
        case cudaDevAttrTotalConstantMemory: *value = static_cast<int>(p.totalConstMem); break;
        case cudaDevAttrWarpSize: *value = p.warpSize; break;
        case cudaDevAttrMaxRegistersPerBlock: *value = p.regsPerBlock; break;
        case cudaDevAttrClockRate: *value = p.clockRate; break;
        case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; break;
        case cudaDevAttrMemoryClockRate: *value = p.memoryClockRate; break;
        case cudaDevAttrGlobalMemoryBusWidth: *value = p.memoryBusWidth; break;
        case cudaDevAttrL2CacheSize: *value = p.l2CacheSize; break;
        case cudaDevAttrMaxThreadsPerMultiProcessor: *value = p.maxThreadsPerMultiProcessor; break;
        case cudaDevAttrComputeCapabilityMajor: *value = p.major; break;
        case cudaDevAttrComputeCapabilityMinor: *value = p.minor; break;
        case cudaDevAttrMaxSharedMemoryPerMultiprocessor:
            *value = static_cast<int>(p.sharedMemPerMultiprocessor);
            break;
        case cudaDevAttrMaxRegistersPerMultiprocessor: *value = p.regsPerMultiprocessor; break;
        case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = static_cast<int>(p.sharedMemPerBlockOptin); break;
        case cudaDevAttrMaxBlocksPerMultiprocessor: *value = p.maxBlocksPerMultiProcessor; break;
        case cudaDevAttrMaxPitch: *value = static_cast<int>(p.memPitch); break;
        case cudaDevAttrKernelExecTimeout: *value = p.kernelExecTimeoutEnabled; break;
        case cudaDevAttrIntegrated: *value = p.integrated; break;
        case cudaDevAttrCanMapHostMemory: *value = p.canMapHostMemory; break;
        case cudaDevAttrComputeMode: *value = p.computeMode; break;
        case cudaDevAttrConcurrentKernels: *value = p.concurrentKernels; break;
        case cudaDevAttrEccEnabled: *value = p.ECCEnabled; break;
        case cudaDevAttrPciBusId: *value = p.pciBusID; break;
        case cudaDevAttrAsyncEngineCount: *value = p.asyncEngineCount; break;
        case cudaDevAttrUnifiedAddressing: *value = p.unifiedAddressing; break;
        case cudaDevAttrStreamPrioritiesSupported: *value = p.streamPrioritiesSupported; break;
        case cudaDevAttrManagedMemory: *value = p.managedMemory; break;
        case cudaDevAttrCooperativeLaunch: *value = 0; break;   // cooperative launches are not emulated
        case cudaDevAttrMaxPersistingL2CacheSize: *value = p.persistingL2CacheMaxSize; break;
        case cudaDevAttrMaxAccessPolicyWindowSize: *value = p.accessPolicyMaxWindowSize; break;
        case cudaDevAttrReservedSharedMemoryPerBlock: *value = static_cast<int>(p.reservedSharedMemPerBlock); break;
        case cudaDevAttrMemoryPoolsSupported: *value = 1; break;
        default: return note(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize()
{
    if (const cudaError_t capture = Device::get().check_sync_allowed(); capture != cudaSuccess) return note(capture);
    Device::get().drain();
    return note(sticky());
}

cudaError_t cudaDeviceReset()
{
    Device::get().drain();
    Device::get().reset_errors();
    emu::detail::tls_last_error = cudaSuccess;
    return cudaSuccess;
}

cudaError_t cudaMemGetInfo(std::size_t* free_bytes, std::size_t* total_bytes)
{
    cudaDeviceProp p;
    cudaGetDeviceProperties(&p, 0);
    if (free_bytes) *free_bytes = p.totalGlobalMem;
    if (total_bytes) *total_bytes = p.totalGlobalMem;
    return cudaSuccess;
}

// ---- memory -------------------------------------------------------------------------------------

cudaError_t cudaMalloc(void** ptr, std::size_t bytes)
{
    if (sticky() != cudaSuccess) return note(sticky());
    return note(Device::get().allocate(ptr, bytes));
}
cudaError_t cudaMallocAsync(void** ptr, std::size_t bytes, cudaStream_t) { return cudaMalloc(ptr, bytes); }
cudaError_t cudaFree(void* ptr)
{
    if (ptr) Device::get().drain();   // a kernel may still use it
    const cudaError_t err = Device::get().release(ptr);
    return note(err != cudaSuccess ? err : sticky());
}
cudaError_t cudaFreeAsync(void* ptr, cudaStream_t) { return cudaFree(ptr); }

namespace {

/// Checks the pointers of a copy against its direction: the first error, or success.
cudaError_t check_copy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind)
{
    Device& d = Device::get();
    if (bytes == 0) return cudaSuccess;
    if (!dst || !src) return cudaErrorInvalidValue;
    const bool dst_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
    const bool src_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
    if (kind > cudaMemcpyDefault) return cudaErrorInvalidMemcpyDirection;
    if (dst_device && !d.is_device(dst, bytes)) {
        d.set_report(cudaErrorInvalidValue, "cudaMemcpy: the destination is not " + std::to_string(bytes) +
                                                " bytes of device memory (a host pointer, or past the end of a "
                                                "cudaMalloc allocation)");
        return cudaErrorInvalidValue;
    }
    if (src_device && !d.is_device(src, bytes)) {
        d.set_report(cudaErrorInvalidValue, "cudaMemcpy: the source is not " + std::to_string(bytes) +
                                                " bytes of device memory (a host pointer, or past the end of a "
                                                "cudaMalloc allocation)");
        return cudaErrorInvalidValue;
    }
    return cudaSuccess;
}

const char* copy_name(cudaMemcpyKind kind, bool async)
{
    switch (kind) {
        case cudaMemcpyHostToDevice: return async ? "cudaMemcpyAsync (host to device)" : "cudaMemcpy (host to device)";
        case cudaMemcpyDeviceToHost: return async ? "cudaMemcpyAsync (device to host)" : "cudaMemcpy (device to host)";
        case cudaMemcpyDeviceToDevice:
            return async ? "cudaMemcpyAsync (device to device)" : "cudaMemcpy (device to device)";
        default: return async ? "cudaMemcpyAsync" : "cudaMemcpy";
    }
}

cudaError_t copy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, bool async, cudaStream_t stream)
{
    if (sticky() != cudaSuccess) return note(sticky());
    const cudaError_t err = check_copy(dst, src, bytes, kind);
    if (err != cudaSuccess || bytes == 0) return note(err);
    Device& d = Device::get();
    const bool device_only = d.is_device(dst, bytes) && d.is_device(src, bytes);
    if (kind == cudaMemcpyDefault) {   // the direction the pointers give, for the grader's ledger
        const bool from_device = d.is_device(src, bytes), to_device = d.is_device(dst, bytes);
        kind = from_device && to_device ? cudaMemcpyDeviceToDevice
               : from_device            ? cudaMemcpyDeviceToHost
               : to_device              ? cudaMemcpyHostToDevice
                                        : cudaMemcpyHostToHost;
    }
    emu::detail::ledger_note_operation(copy_name(kind, async), async ? stream : nullptr);
    if (async && device_only) return note(d.enqueue(stream, [dst, src, bytes] { std::memmove(dst, src, bytes); }));
    if (const cudaError_t capture = async ? d.enqueue(stream, [] {}) : d.check_sync_allowed(); capture != cudaSuccess) {
        return note(capture);
    }
    d.drain();
    if (sticky() != cudaSuccess) return note(sticky());
    std::memmove(dst, src, bytes);
    return cudaSuccess;
}

cudaError_t fill(void* ptr, int value, std::size_t bytes, bool async, cudaStream_t stream)
{
    if (sticky() != cudaSuccess) return note(sticky());
    if (bytes == 0) return cudaSuccess;
    Device& d = Device::get();
    emu::detail::ledger_note_operation(async ? "cudaMemsetAsync" : "cudaMemset", async ? stream : nullptr);
    if (!d.is_device(ptr, bytes)) {
        d.set_report(cudaErrorInvalidValue,
                     "cudaMemset: the pointer is not " + std::to_string(bytes) + " bytes of device memory");
        return note(cudaErrorInvalidValue);
    }
    if (async) return note(d.enqueue(stream, [ptr, value, bytes] { std::memset(ptr, value, bytes); }));
    if (const cudaError_t capture = d.check_sync_allowed(); capture != cudaSuccess) return note(capture);
    d.drain();
    if (sticky() != cudaSuccess) return note(sticky());
    std::memset(ptr, value, bytes);
    return cudaSuccess;
}

}   // namespace

cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind)
{
    return copy(dst, src, bytes, kind, false, nullptr);
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, cudaStream_t stream)
{
    return copy(dst, src, bytes, kind, true, stream);
}
cudaError_t cudaMemcpy2DAsync(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
                              std::size_t height, cudaMemcpyKind kind, cudaStream_t stream)
{
    if (width > dpitch || width > spitch) return note(cudaErrorInvalidValue);
    for (std::size_t row = 0; row < height; ++row) {
        const cudaError_t err = copy(static_cast<char*>(dst) + row * dpitch,
                                     static_cast<const char*>(src) + row * spitch, width, kind, true, stream);
        if (err != cudaSuccess) return err;
    }
    return cudaSuccess;
}
cudaError_t cudaMemset(void* ptr, int value, std::size_t bytes) { return fill(ptr, value, bytes, false, nullptr); }
cudaError_t cudaMemsetAsync(void* ptr, int value, std::size_t bytes, cudaStream_t stream)
{
    return fill(ptr, value, bytes, true, stream);
}
cudaError_t cudaMemset2DAsync(void* ptr, std::size_t pitch, int value, std::size_t width, std::size_t height,
                              cudaStream_t stream)
{
    if (width > pitch) return note(cudaErrorInvalidValue);
    for (std::size_t row = 0; row < height; ++row) {
        const cudaError_t err = fill(static_cast<char*>(ptr) + row * pitch, value, width, true, stream);
        if (err != cudaSuccess) return err;
    }
    return cudaSuccess;
}

// ---- streams and events ---------------------------------------------------------------------------

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags)
{
    if (!stream) return note(cudaErrorInvalidValue);
    *stream = new CUstream_st{flags};
    return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    if (!stream || stream == cudaStreamLegacy || stream == cudaStreamPerThread)
        return note(cudaErrorInvalidResourceHandle);
    Device::get().drain();
    delete stream;
    return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    if (Device::get().capture_status(stream) != cudaStreamCaptureStatusNone)
        return note(cudaErrorStreamCaptureUnsupported);
    Device::get().drain();
    return note(sticky());
}
cudaError_t cudaStreamQuery(cudaStream_t)
{
    if (sticky() != cudaSuccess) return note(sticky());
    return Device::get().idle() ? cudaSuccess : cudaErrorNotReady;
}
cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode)
{
    return note(Device::get().begin_capture(stream));
}
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph)
{
    if (!graph) return note(cudaErrorInvalidValue);
    return note(Device::get().end_capture(stream, graph));
}
cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, std::size_t* count)
{
    if (!graph || !count) return note(cudaErrorInvalidValue);
    if (nodes) return note(cudaErrorNotSupported);   // only the count is available
    *count = graph->nodes;
    return cudaSuccess;
}
cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
    delete graph;
    return cudaSuccess;
}
cudaError_t cudaEventCreate(cudaEvent_t* event)
{
    if (!event) return note(cudaErrorInvalidValue);
    *event = new CUevent_st();
    return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    if (!event) return note(cudaErrorInvalidResourceHandle);
    Device::get().drain();
    delete event;
    return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    if (!event) return note(cudaErrorInvalidResourceHandle);
    if (sticky() != cudaSuccess) return note(sticky());
    event->recorded = true;
    event->complete = false;
    return note(Device::get().enqueue(stream, [event] {
        event->ms = emu::detail::now_ms();
        event->complete = true;
    }));
}
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end)
{
    if (!ms || !start || !end) return note(cudaErrorInvalidResourceHandle);
    if (!start->recorded || !end->recorded) return note(cudaErrorInvalidResourceHandle);
    if (!start->complete || !end->complete) return cudaErrorNotReady;
    *ms = static_cast<float>(end->ms - start->ms);
    return cudaSuccess;
}
