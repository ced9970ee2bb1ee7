/// @file buffers.hpp
/// @brief RAII device memory and streams, and the poison that makes unwritten outputs visible.
#pragma once

#include "common/cuda_check.hpp"

#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#if WORKBOOK_EMULATED
#include "emu/grader_api.hpp"
#endif

namespace wb {

/// Every output buffer is filled with this byte before each launch. 0xFF bytes read as NaN for
/// float, double, __half and __nv_bfloat16 (an all-ones NaN that no arithmetic produces), so an
/// element the kernel never wrote both fails the comparison and can be told apart from a computed NaN.
inline constexpr unsigned char kPoisonByte = 0xFF;

/// Every DeviceBuffer has this many bytes of guard after its last element: a kernel that writes past
/// the end (a missing bounds test in the last block, a vector store past the tail) lands there instead
/// of in someone else's memory, and download() reports it. 64 KiB covers a whole 1024-thread block of
/// 16-byte stores past the end.
inline constexpr std::size_t kGuardBytes = std::size_t(64) << 10;

/// The guard of this process: none in the child that compute-sanitizer runs (sanitizer_pass.hpp), so
/// that its memcheck sees a read or write one element past the end of an array.
inline std::size_t guard_bytes()
{
    static const std::size_t bytes = std::getenv("WORKBOOK_UNDER_SANITIZER") ? 0 : kGuardBytes;
    return bytes;
}

/// The byte a new buffer's guard is filled with: different for consecutive buffers (and never the
/// poison), so that a kernel copying past the end of its input into past the end of its output still
/// changes the output's guard.
inline unsigned char next_guard_byte()
{
    static unsigned counter = 0;
    return static_cast<unsigned char>(0xA0 + (counter++ % 64));
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
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    for (unsigned char b : bytes) {
        if (b != kPoisonByte) return false;
    }
    return true;
}

/// Owns `count` elements of device memory. Move-only; frees itself.
template <typename T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t count) : count_(count)
    {
        if (count_ > 0) {
            WB_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&ptr_), bytes() + guard_bytes()));
            if (guard_bytes() > 0) WB_CUDA_CHECK(cudaMemset(guard(), guard_byte_, guard_bytes()));
#if WORKBOOK_EMULATED
            // The CPU emulator then stops a kernel that reads the guard ("read past the end of an input array").
            emu::declare_buffer_extent(ptr_, bytes());
#endif
        }
    }
    explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { upload(host); }
    ~DeviceBuffer()
    {
        if (ptr_) cudaFree(ptr_);   // no check: destructors must not throw, and a failed free is harmless here
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
    /// Fills the buffer with kPoisonByte and restores its guard (synchronously, so no launch can race
    /// with it).
    void poison()
    {
        if (count_ > 0) {
            WB_CUDA_CHECK(cudaMemset(ptr_, kPoisonByte, bytes()));
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
