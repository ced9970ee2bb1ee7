/// @file buffers.hpp
/// @brief RAII device memory and streams, and the poison that makes unwritten outputs visible.
#pragma once

#include "common/cuda_check.hpp"

#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace wb {

/// Every output buffer is filled with this byte before each launch. 0xFF bytes read as NaN for
/// float, double, __half and __nv_bfloat16 (an all-ones NaN that no arithmetic produces), so an
/// element the kernel never wrote both fails the comparison and can be told apart from a computed NaN.
inline constexpr unsigned char kPoisonByte = 0xFF;

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
        if (count_ > 0) WB_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&ptr_), bytes()));
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
    std::vector<T> download() const
    {
        std::vector<T> host(count_);
        if (count_ > 0) WB_CUDA_CHECK(cudaMemcpy(host.data(), ptr_, bytes(), cudaMemcpyDeviceToHost));
        return host;
    }
    /// Fills the buffer with kPoisonByte (synchronously, so no launch can race with it).
    void poison()
    {
        if (count_ > 0) WB_CUDA_CHECK(cudaMemset(ptr_, kPoisonByte, bytes()));
        WB_CUDA_CHECK(cudaDeviceSynchronize());
    }

private:
    void swap(DeviceBuffer& other) noexcept
    {
        std::swap(ptr_, other.ptr_);
        std::swap(count_, other.count_);
    }
    T* ptr_ = nullptr;
    std::size_t count_ = 0;
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

}  // namespace wb
