/// @file buffers.hpp
/// @brief RAII device memory and streams, and the poison that makes unwritten outputs visible.
#pragma once

#include "common/cuda_check.hpp"

#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#if WORKBOOK_EMULATED
#include "emu/grader_api.hpp"
#elif __has_include(<nvtx3/nvToolsExtMem.h>)
#include <nvtx3/nvToolsExtMem.h>   // header-only: tells compute-sanitizer which bytes of an allocation are in use
#define WORKBOOK_FENCED_BUFFERS 1
#endif

namespace wb {

/// Every output buffer is filled with the poison before each launch, so that an element the kernel never
/// wrote fails the comparison and can be told apart from a computed value. The poison of most types is
/// 0xFF bytes: NaN for __half and __nv_bfloat16 (whose NaN results are always 0x7FFF, on the GPU and in
/// the emulator), -1 for integers. float and double get a *signalling* NaN instead (float 0xFFBFFFFF,
/// double 0xFFF7FFFFFFFFFFFF): no arithmetic returns one. A GPU gives every NaN result the bits
/// 0x7FFFFFFF; a CPU (the emulator) keeps a NaN operand's bits but sets its quiet bit. An all-ones
/// quiet NaN survives `NaN + x` on a CPU bit for bit, so a kernel that adds into an output it never
/// cleared would read there as "never written"; with a signalling NaN it reads as NaN, on both.
inline constexpr unsigned char kPoisonByte = 0xFF;
inline constexpr std::uint32_t kFloatPoisonBits = 0xFFBFFFFFu;
inline constexpr std::uint64_t kDoublePoisonBits = 0xFFF7FFFFFFFFFFFFull;

/// The bytes of one poisoned element of type @p T (see kPoisonByte): a signalling NaN for float and
/// double, 0xFF bytes for every other type (float4 and other structs included).
template <typename T>
std::array<unsigned char, sizeof(T)> poison_bytes()
{
    std::array<unsigned char, sizeof(T)> bytes;
    bytes.fill(kPoisonByte);
    if constexpr (std::is_same_v<T, float>) {
        std::memcpy(bytes.data(), &kFloatPoisonBits, sizeof(T));
    } else if constexpr (std::is_same_v<T, double>) {
        std::memcpy(bytes.data(), &kDoublePoisonBits, sizeof(T));
    }
    return bytes;
}

/// One poisoned element of type @p T, for comparisons and tests.
template <typename T>
T poison_value()
{
    T value;
    const auto bytes = poison_bytes<T>();
    std::memcpy(&value, bytes.data(), sizeof(T));
    return value;
}

/// Every DeviceBuffer has this many bytes of guard after its last element: a kernel that writes past
/// the end (a missing bounds test in the last block, a vector store past the tail) lands there instead
/// of in someone else's memory, and download() reports it. 64 KiB covers a whole 1024-thread block of
/// 16-byte stores past the end.
inline constexpr std::size_t kGuardBytes = std::size_t(64) << 10;

/// True when this process runs under compute-sanitizer's memcheck: in the children of the sanitizer pass
/// (WORKBOOK_UNDER_SANITIZER, sanitizer_pass.hpp) and under `make memcheck-chapter` (WORKBOOK_MEMCHECK).
/// Buffers then have no guard and are fenced instead (allocate_fenced below).
inline bool under_memcheck()
{
    static const bool yes = std::getenv("WORKBOOK_UNDER_SANITIZER") || std::getenv("WORKBOOK_MEMCHECK");
    return yes;
}

/// The guard of this process: none under memcheck, whose fences see a read past the end that a guard,
/// being part of the allocation, would hide.
inline std::size_t guard_bytes() { return under_memcheck() ? 0 : kGuardBytes; }

/// Under memcheck each buffer lies inside a larger allocation, between two fences of memory that nothing
/// may touch: kFenceBytes before it and fence_after() after it. cudaMalloc alone is not enough: an array
/// whose size is a multiple of 512 bytes is followed at once by the next allocation, and memcheck accepts
/// a read that lands there (a tile copied one K step too far, say). The fences are declared to memcheck
/// with the NVTX memory API (a pool whose one registered region is the buffer), so memcheck reports the
/// first byte read or written past either end, whatever the size.
inline constexpr std::size_t kFenceBytes = std::size_t(64) << 10;

/// The fence after a buffer of @p bytes: as long as the buffer (a read a whole array too far lands in it
/// too), at least kFenceBytes, at most 64 MiB, a multiple of 256 bytes.
inline std::size_t fence_after(std::size_t bytes)
{
    const std::size_t rounded = (bytes + 255) / 256 * 256;
    return std::clamp(rounded, kFenceBytes, std::size_t(64) << 20);
}

/// The byte a new buffer's guard is filled with: different for consecutive buffers (and never the
/// poison), so that a kernel copying past the end of its input into past the end of its output still
/// changes the output's guard. 0xC8 to 0xDF: as floats -4.1e5 to -3.2e19, as halves -8.8 to -503, so
/// that a value read past the end of an input and used in arithmetic spoils the result visibly.
inline unsigned char next_guard_byte()
{
    static unsigned counter = 0;
    return static_cast<unsigned char>(0xC8 + (counter++ % 24));
}

/// Thrown by DeviceBuffer::download() when the guard after the buffer was written.
class OutOfBoundsWrite : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// What a guard that no longer holds only @p fill says: nothing when it is intact, else the message of
/// OutOfBoundsWrite. @p count elements of @p element_size bytes precede the guard. Pure logic.
inline std::optional<std::string> describe_guard(const std::vector<unsigned char>& guard, unsigned char fill,
                                                 std::size_t count, std::size_t element_size)
{
    std::size_t first = guard.size(), last = 0, changed = 0;
    for (std::size_t i = 0; i < guard.size(); ++i) {
        if (guard[i] == fill) continue;
        if (first == guard.size()) first = i;
        last = i;
        ++changed;
    }
    if (changed == 0) return std::nullopt;
    const std::size_t first_element = count + first / element_size;
    const std::size_t last_element = count + last / element_size;
    return "your kernel wrote past the end of an array of " + std::to_string(count) + " elements: elements " +
           std::to_string(first_element) + " to " + std::to_string(last_element) + " (up to " +
           std::to_string(last + 1) +
           " bytes past its end) were written, and they belong to nobody.\n  likely cause: a missing bounds test "
           "(if (i < n)) in the last block, or a vector access past the tail. Outside the grader such a write "
           "corrupts other data or crashes.";
}

/// True when @p value still holds the poison, bit for bit.
template <typename T>
bool is_poison(const T& value)
{
    const auto bytes = poison_bytes<T>();
    return std::memcmp(bytes.data(), &value, sizeof(T)) == 0;
}

/// Fills @p bytes bytes at @p device with copies of @p pattern (whose size divides 64 KiB): one upload
/// of up to 64 KiB, then device-to-device copies that double the filled part. Synchronous.
template <std::size_t N>
void fill_device_pattern(void* device, std::size_t bytes, const std::array<unsigned char, N>& pattern)
{
    if (bytes == 0) return;
    auto* dst = static_cast<unsigned char*>(device);
    std::vector<unsigned char> chunk(std::min<std::size_t>(bytes, std::size_t(64) << 10));
    for (std::size_t i = 0; i < chunk.size(); ++i) chunk[i] = pattern[i % pattern.size()];
    WB_CUDA_CHECK(cudaMemcpy(dst, chunk.data(), chunk.size(), cudaMemcpyHostToDevice));
    for (std::size_t filled = chunk.size(); filled < bytes;) {
        const std::size_t n = std::min(filled, bytes - filled);
        WB_CUDA_CHECK(cudaMemcpy(dst + filled, dst, n, cudaMemcpyDeviceToDevice));
        filled += n;
    }
}

namespace detail {

/// The guard of one live DeviceBuffer: where it starts, what fills it, what precedes it.
struct GuardRecord {
    const unsigned char* guard = nullptr;
    unsigned char fill = 0;
    std::size_t count = 0;          ///< elements before the guard
    std::size_t element_size = 0;   ///< bytes per element
};

/// Every live DeviceBuffer's guard, by the buffer's address (single-threaded host code, as the graders).
inline std::map<const void*, GuardRecord>& live_guards()
{
    static std::map<const void*, GuardRecord> guards;
    return guards;
}

/// A const input of a launcher (DeviceBuffer::protect): its elements as they were handed over.
struct InputRecord {
    std::vector<unsigned char> snapshot;
    std::size_t element_size = 0;
};

/// Every live protected DeviceBuffer, by its address.
inline std::map<const void*, InputRecord>& protected_inputs()
{
    static std::map<const void*, InputRecord> inputs;
    return inputs;
}

/// "element 17: 1.5 became 0.25" for a float, the element index alone for other types.
inline std::string describe_changed_element(const unsigned char* before, const unsigned char* after, std::size_t index,
                                            std::size_t element_size)
{
    std::string text = "element " + std::to_string(index);
    if (element_size == sizeof(float)) {
        float was = 0.0f, now = 0.0f;
        std::memcpy(&was, before, sizeof was);
        std::memcpy(&now, after, sizeof now);
        char values[96];
        std::snprintf(values, sizeof values, ": %.9g became %.9g", static_cast<double>(was), static_cast<double>(now));
        text += values;
    }
    return text;
}

#if WORKBOOK_FENCED_BUFFERS
/// A fenced buffer's whole allocation and its memcheck pool.
struct FencedAllocation {
    void* base = nullptr;
    nvtxMemHeapHandle_t pool = nullptr;
};

/// Every live fenced buffer, by the buffer's address.
inline std::map<const void*, FencedAllocation>& fenced_allocations()
{
    static std::map<const void*, FencedAllocation> allocations;
    return allocations;
}

/// The NVTX domain of the workbook's pools (created after the CUDA runtime, as memcheck requires).
inline nvtxDomainHandle_t memcheck_domain()
{
    static const nvtxDomainHandle_t domain = nvtxDomainCreateA("CUDA Kernel Workbook");
    return domain;
}

/// Declares [@p start, @p start + @p bytes) the pool's one region in use.
inline void register_region(nvtxMemHeapHandle_t pool, void* start, std::size_t bytes)
{
    nvtxMemVirtualRangeDesc_t region = {};
    region.ptr = start;
    region.size = bytes;
    nvtxMemRegionsRegisterBatch_t batch = {};
    batch.extCompatID = NVTX_EXT_COMPATID_MEM;
    batch.structSize = sizeof batch;
    batch.regionType = NVTX_MEM_TYPE_VIRTUAL_ADDRESS;
    batch.heap = pool;
    batch.regionCount = 1;
    batch.regionDescElementSize = sizeof region;
    batch.regionDescElements = &region;
    nvtxMemRegionsRegister(memcheck_domain(), &batch);
}

/// Declares the allocation [@p base, @p base + @p bytes) a pool: memcheck then accepts only the regions
/// registered in it.
inline nvtxMemHeapHandle_t register_pool(void* base, std::size_t bytes)
{
    nvtxMemVirtualRangeDesc_t whole = {};
    whole.ptr = base;
    whole.size = bytes;
    nvtxMemHeapDesc_t pool = {};
    pool.extCompatID = NVTX_EXT_COMPATID_MEM;
    pool.structSize = sizeof pool;
    pool.usage = NVTX_MEM_HEAP_USAGE_TYPE_SUB_ALLOCATOR;
    pool.type = NVTX_MEM_TYPE_VIRTUAL_ADDRESS;
    pool.typeSpecificDescSize = sizeof whole;
    pool.typeSpecificDesc = &whole;
    return nvtxMemHeapRegister(memcheck_domain(), &pool);
}

/// Allocates @p bytes between two fences and declares the fences to memcheck (see kFenceBytes).
inline void* allocate_fenced(std::size_t bytes)
{
    const std::size_t total = kFenceBytes + bytes + fence_after(bytes);
    unsigned char* base = nullptr;
    WB_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&base), total));
    const nvtxMemHeapHandle_t handle = register_pool(base, total);
    void* buffer = base + kFenceBytes;   // 64 KiB in: as aligned as cudaMalloc's own pointers
    register_region(handle, buffer, bytes);
    fenced_allocations()[buffer] = FencedAllocation{base, handle};
    return buffer;
}
#endif

/// Device memory for a DeviceBuffer of @p bytes: fenced under memcheck, plain cudaMalloc otherwise.
inline void* allocate_device(std::size_t bytes)
{
#if WORKBOOK_FENCED_BUFFERS
    if (under_memcheck()) return allocate_fenced(bytes);
#endif
    void* buffer = nullptr;
    WB_CUDA_CHECK(cudaMalloc(&buffer, bytes));
    return buffer;
}

/// Frees what allocate_device returned. Never throws (it runs in destructors; a failed free is harmless).
inline void free_device(void* buffer)
{
#if WORKBOOK_FENCED_BUFFERS
    const auto fenced = fenced_allocations().find(buffer);
    if (fenced != fenced_allocations().end()) {
        nvtxMemHeapUnregister(memcheck_domain(), fenced->second.pool);
        cudaFree(fenced->second.base);
        fenced_allocations().erase(fenced);
        return;
    }
#endif
    cudaFree(buffer);
}

}   // namespace detail

/// Inputs larger than this are not protected (their snapshot would cost host memory and a copy per call).
inline constexpr std::size_t kMaxProtectedBytes = std::size_t(256) << 20;

/// Pure logic: what changed between @p before and @p after (elements of @p element_size bytes), or nothing.
inline std::optional<std::string> describe_input_change(const std::vector<unsigned char>& before,
                                                        const std::vector<unsigned char>& after,
                                                        std::size_t element_size)
{
    std::size_t changed = 0, first = 0;
    const std::size_t count = before.size() / element_size;
    for (std::size_t i = 0; i < count; ++i) {
        if (std::memcmp(&before[i * element_size], &after[i * element_size], element_size) == 0) continue;
        if (changed++ == 0) first = i;
    }
    if (changed == 0) return std::nullopt;
    return "your launcher wrote into an input array: " + std::to_string(changed) + " of its " + std::to_string(count) +
           " elements changed (first " +
           detail::describe_changed_element(&before[first * element_size], &after[first * element_size], first,
                                            element_size) +
           ").\n  likely cause: the inputs are const: a step done in place on the input (subtracting the maximum, "
           "centring a row, a tree reduction over the input array) must work on a copy (registers, shared memory "
           "or the workspace). A caller that reuses its input gets wrong results the next time.";
}

/// The protected inputs (DeviceBuffer::protect) checked after a call of a launcher: the message of the
/// first one that changed, or nothing. Its snapshot is then taken again, so that the same write is
/// reported once.
inline std::optional<std::string> modified_input()
{
    for (auto& [address, record] : detail::protected_inputs()) {
        std::vector<unsigned char> now(record.snapshot.size());
        WB_CUDA_CHECK(cudaMemcpy(now.data(), address, now.size(), cudaMemcpyDeviceToHost));
        if (auto problem = describe_input_change(record.snapshot, now, record.element_size)) {
            record.snapshot = std::move(now);
            return problem;
        }
    }
    return std::nullopt;
}

/// The guards of every live DeviceBuffer (inputs and workspaces too, not only the outputs a grader
/// downloads), checked after a call of a launcher: the message of the first one written, or nothing. A
/// written guard is filled again, so that a later check does not report the same write.
inline std::optional<std::string> written_guard()
{
    if (guard_bytes() == 0) return std::nullopt;
    std::vector<unsigned char> copy(guard_bytes());
    for (const auto& [address, record] : detail::live_guards()) {
        WB_CUDA_CHECK(cudaMemcpy(copy.data(), record.guard, copy.size(), cudaMemcpyDeviceToHost));
        if (auto problem = describe_guard(copy, record.fill, record.count, record.element_size)) {
            WB_CUDA_CHECK(cudaMemset(const_cast<unsigned char*>(record.guard), record.fill, copy.size()));
            return problem;
        }
    }
    return std::nullopt;
}

/// Owns `count` elements of device memory. Move-only; frees itself.
template <typename T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t count) : count_(count)
    {
        if (count_ > 0) {
            ptr_ = static_cast<T*>(detail::allocate_device(bytes() + guard_bytes()));
            if (guard_bytes() > 0) {
                WB_CUDA_CHECK(cudaMemset(guard(), guard_byte_, guard_bytes()));
                detail::live_guards()[ptr_] = detail::GuardRecord{guard(), guard_byte_, count_, sizeof(T)};
            }
#if WORKBOOK_EMULATED
            // The CPU emulator then stops a kernel that reads the guard ("read past the end of an input array").
            emu::declare_buffer_extent(ptr_, bytes());
#endif
        }
    }
    explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { upload(host); }
    ~DeviceBuffer()
    {
        if (ptr_) {
            detail::live_guards().erase(ptr_);
            detail::protected_inputs().erase(ptr_);
            detail::free_device(ptr_);
        }
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& other) noexcept { swap(other); }
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept
    {
        swap(other);
        return *this;
    }

    T* data() { return ptr_; }
    const T* data() const { return ptr_; }
    std::size_t size() const { return count_; }
    std::size_t bytes() const { return count_ * sizeof(T); }

    void upload(const std::vector<T>& host)
    {
        if (host.size() != count_) throw std::runtime_error("DeviceBuffer::upload: size mismatch");
        if (count_ > 0) WB_CUDA_CHECK(cudaMemcpy(ptr_, host.data(), bytes(), cudaMemcpyHostToDevice));
        auto input = detail::protected_inputs().find(ptr_);
        if (input != detail::protected_inputs().end()) {   // new contents of a protected input
            input->second.snapshot.assign(reinterpret_cast<const unsigned char*>(host.data()),
                                          reinterpret_cast<const unsigned char*>(host.data()) + bytes());
        }
    }
    /// Declares the buffer a const input of the launchers: after every call, Stage::run checks that it
    /// still holds what it holds now (or what upload() puts there later), and names a write into it.
    /// Buffers over kMaxProtectedBytes are not checked. Returns the buffer, for `dx.protect().data()`.
    DeviceBuffer& protect()
    {
        if (count_ == 0 || bytes() > kMaxProtectedBytes) return *this;
        detail::InputRecord record;
        record.element_size = sizeof(T);
        record.snapshot.resize(bytes());
        WB_CUDA_CHECK(cudaMemcpy(record.snapshot.data(), ptr_, bytes(), cudaMemcpyDeviceToHost));
        detail::protected_inputs()[ptr_] = std::move(record);
        return *this;
    }
    /// Copies the elements to the host; throws OutOfBoundsWrite when the guard after them was written.
    std::vector<T> download() const
    {
        std::vector<T> host(count_);
        if (count_ > 0) {
            WB_CUDA_CHECK(cudaMemcpy(host.data(), ptr_, bytes(), cudaMemcpyDeviceToHost));
            std::vector<unsigned char> guard_copy(guard_bytes());
            if (!guard_copy.empty()) {
                WB_CUDA_CHECK(cudaMemcpy(guard_copy.data(), guard(), guard_copy.size(), cudaMemcpyDeviceToHost));
            }
            if (auto problem = describe_guard(guard_copy, guard_byte_, count_, sizeof(T))) {
                throw OutOfBoundsWrite(*problem);
            }
        }
        return host;
    }
    /// Fills the buffer with the poison of T (kPoisonByte) and restores its guard (synchronously, so no
    /// launch can race with it).
    void poison()
    {
        detail::protected_inputs().erase(ptr_);   // a buffer the grader poisons is an output, not an input
        if (count_ > 0) {
            const auto pattern = poison_bytes<T>();
            if (std::all_of(pattern.begin(), pattern.end(), [](unsigned char b) { return b == kPoisonByte; })) {
                WB_CUDA_CHECK(cudaMemset(ptr_, kPoisonByte, bytes()));
            } else {
                fill_device_pattern(ptr_, bytes(), pattern);
            }
            if (guard_bytes() > 0) WB_CUDA_CHECK(cudaMemset(guard(), guard_byte_, guard_bytes()));
        }
        WB_CUDA_CHECK(cudaDeviceSynchronize());
    }

private:
    unsigned char* guard() const { return reinterpret_cast<unsigned char*>(ptr_) + bytes(); }
    void swap(DeviceBuffer& other) noexcept
    {
        std::swap(ptr_, other.ptr_);
        std::swap(count_, other.count_);
        std::swap(guard_byte_, other.guard_byte_);
    }
    T* ptr_ = nullptr;
    std::size_t count_ = 0;
    unsigned char guard_byte_ = next_guard_byte();
};

/// Owns a CUDA stream. The graders give every launcher such a stream: non-blocking, so work the
/// learner puts on another stream (the legacy default one included) is not silently ordered with it.
class Stream {
public:
    Stream() { WB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
    ~Stream()
    {
        if (stream_) cudaStreamDestroy(stream_);
    }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    cudaStream_t get() const { return stream_; }

private:
    cudaStream_t stream_ = nullptr;
};

}   // namespace wb
