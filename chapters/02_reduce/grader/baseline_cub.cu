// CUB's DeviceReduce::Sum, the library baseline of chapter 2 (`make bench`, stage 9's bar).
#include "02_reduce/grader/baselines.hpp"
#include "common/cuda_check.hpp"

#include <cub/device/device_reduce.cuh>

#include <stdexcept>

namespace ch02 {

CubSum::CubSum(std::int64_t max_n) : max_n_(max_n)
{
    // A first call with no storage only asks how much the largest sum needs.
    WB_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, temp_bytes_, static_cast<const float*>(nullptr),
                                         static_cast<float*>(nullptr), max_n));
    WB_CUDA_CHECK(cudaMalloc(&temp_, temp_bytes_ > 0 ? temp_bytes_ : 1));
}

CubSum::~CubSum()
{
    if (temp_) cudaFree(temp_);
}

void CubSum::run(const float* in, float* out, std::int64_t n, cudaStream_t stream) const
{
    if (n > max_n_) throw std::invalid_argument("CubSum::run: n is larger than the storage was sized for");
    std::size_t bytes = temp_bytes_;
    WB_CUDA_CHECK(cub::DeviceReduce::Sum(temp_, bytes, in, out, n, stream));
}

}   // namespace ch02
