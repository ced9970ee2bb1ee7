// The cuBLAS baseline of chapter 6 (linked with CUDA::cublas through stages.json's link_libraries).
#include "06_gemv/grader/baselines.hpp"

#include <cublas_v2.h>

#include <limits>
#include <stdexcept>
#include <string>

namespace ch06 {

namespace {

void check_cublas(cublasStatus_t status, const char* what)
{
    if (status != CUBLAS_STATUS_SUCCESS) {
        throw std::runtime_error(std::string("cuBLAS error ") + std::to_string(static_cast<int>(status)) + " in " +
                                 what);
    }
}

cublasHandle_t handle()
{
    static cublasHandle_t h = [] {
        cublasHandle_t created = nullptr;
        check_cublas(cublasCreate(&created), "cublasCreate");
        return created;
    }();
    return h;
}

}   // namespace

void cublas_gemv(const float* A, const float* x, float* y, std::int64_t M, std::int64_t K, cudaStream_t stream)
{
    if (M > std::numeric_limits<int>::max() || K > std::numeric_limits<int>::max()) {
        throw std::invalid_argument("cublas_gemv: M and K must fit in an int");
    }
    const float alpha = 1.0f;
    const float beta = 0.0f;
    check_cublas(cublasSetStream(handle(), stream), "cublasSetStream");
    // Column-major view: a K x M matrix with leading dimension K. y (M) = view^T (M x K) * x (K).
    check_cublas(cublasSgemv(handle(), CUBLAS_OP_T, static_cast<int>(K), static_cast<int>(M), &alpha, A,
                             static_cast<int>(K), x, 1, &beta, y, 1),
                 "cublasSgemv");
}

}   // namespace ch06
