/// @file 09_attention/attention_common.cuh
/// @brief Chapter 9: the shape of an attention problem, and the masking rule every stage shares.
#pragma once

#include "08_tensor_gemm/hgemm_common.cuh"   // ch08::Dtype (fp16 or bf16), cp_async16 and its commit/wait

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

namespace ch09 {

/// One attention problem: Q and O are [batch, heads, q_len, head_dim], K and V are
/// [batch, heads, kv_len, head_dim], all contiguous and row-major.
struct Shape {
    int batch;
    int heads;
    int q_len;
    int kv_len;
    int head_dim;   ///< 64 or 128
    bool causal;
    float scale;   ///< the logits are scale * q . k (usually 1 / sqrt(head_dim))
};

/// batch * heads: the number of independent (Q, K, V) problems.
__host__ __device__ inline std::int64_t heads_total(const Shape& s) { return std::int64_t(s.batch) * s.heads; }

/// batch * heads * q_len: the number of query rows (of O, and of lse).
__host__ __device__ inline std::int64_t rows_total(const Shape& s) { return heads_total(s) * s.q_len; }

/// How many keys query row @p row sees: keys 0 .. visible_keys - 1. Without the causal mask, all of
/// them. With it, bottom-right aligned (the KV-cache convention): query i sees key j iff
/// j <= i + (kv_len - q_len), so the last query sees every key. The result is 0 for a query row that
/// sees no key at all (q_len > kv_len, the first q_len - kv_len rows): its O is 0 and its lse -inf.
__host__ __device__ inline int visible_keys(const Shape& s, std::int64_t row)
{
    if (!s.causal) return s.kv_len;
    const std::int64_t last = row + (static_cast<std::int64_t>(s.kv_len) - s.q_len);   // last visible key
    if (last < 0) return 0;
    return last + 1 < s.kv_len ? static_cast<int>(last + 1) : s.kv_len;
}

/// log2(e): kernels that use exp2 (one instruction, ex2.approx) multiply the logits by scale * log2(e)
/// and turn the log-sum-exp back into natural log at the end (lse = m2 * ln 2 + ln l).
constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;

}   // namespace ch09
