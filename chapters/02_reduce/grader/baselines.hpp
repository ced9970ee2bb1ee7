/// @file 02_reduce/grader/baselines.hpp
/// @brief What the chapter's last stages are measured against: CUB's sum, and the unfused dot product.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace ch02 {

/// `cub::DeviceReduce::Sum`, the library sum a CUDA programmer would call instead of stage 9. Its
/// temporary storage is allocated once, in the constructor, so that timing it measures the
/// reduction alone.
class CubSum {
public:
    /// Prepares temporary storage for sums of up to @p max_n floats.
    explicit CubSum(std::int64_t max_n);
    ~CubSum();
    CubSum(const CubSum&) = delete;
    CubSum& operator=(const CubSum&) = delete;

    /// *out = in[0] + ... + in[n - 1], on @p stream (n <= max_n).
    void run(const float* in, float* out, std::int64_t n, cudaStream_t stream) const;

private:
    void* temp_ = nullptr;
    std::size_t temp_bytes_ = 0;
    std::int64_t max_n_ = 0;
};

/// product[i] = x[i] * y[i] (float4 accesses, scalar tail): the first kernel of the unfused dot
/// product that stage 10 must beat (the second is reference stage 9 on `product`).
void multiply_pass(const float* x, const float* y, float* product, std::int64_t n, cudaStream_t stream);

}   // namespace ch02
