/// @file 09_attention/stages.cuh
/// @brief Chapter 9, attention: the contract of every stage.
///
/// Every stage computes, for each of the batch * heads independent problems,
///
///     O = softmax(scale * Q K^T  [causal mask]) V        lse[i] = ln sum_j exp(scale * q_i . k_j)
///
/// - Q and O are [batch, heads, q_len, head_dim], K and V are [batch, heads, kv_len, head_dim]; all four
///   are contiguous and row-major (element (b, h, i, d) of Q is Q[((b * heads + h) * q_len + i) * head_dim + d]).
/// - The element type of Q, K, V and O is a run-time argument (@p dtype, ch08::Dtype: fp16 or bf16); O is
///   written in that type (one rounding per element). lse is fp32, [batch, heads, q_len]: the natural log
///   of the softmax's denominator, sum over the visible keys (the backward pass needs it; it is also a
///   sharp check of the row statistics).
/// - The causal mask is bottom-right aligned, the KV-cache convention (as FlashAttention 2.1 and later):
///   query i sees key j iff j <= i + (kv_len - q_len) (ch09::visible_keys). With q_len == kv_len that is
///   the usual lower triangle. When q_len > kv_len the first q_len - kv_len query rows see no key at all:
///   their O is 0 and their lse is -inf (never NaN).
/// - Accumulation in fp32: the scores, the running maximum and sum, and O before its final rounding.
///   The sum behind lse is of the unrounded fp32 probabilities. Stages 4, 5 and 7 may round P to the
///   input type before P V (tensor cores take 16-bit operands); stages 1, 2, 3 and 6 keep P in fp32.
/// - Sizes: 1 <= q_len, kv_len <= 2^17, batch * heads <= 2^16, head_dim 64 or 128, any finite scale.
///   2^16 heads is one more than a grid's y dimension holds (65535): a block row per head needs a
///   second launch, or heads along x. The grader runs batch * heads = 2^16 on a GPU.
///   Nothing is a multiple of a tile: q_len and kv_len of 1, 17, 63, 65, 100 are graded.
/// - Q, K, V, O and lse come from cudaMalloc and do not overlap. O and lse are filled with NaN before
///   every launch: every element must be written (masked rows too). Inputs are finite.
/// - A stage may use a workspace only through cudaMallocAsync / cudaFreeAsync on @p stream within the
///   call (memory kept across calls is rejected), and puts all its work on @p stream.
///
/// What the grader checks, for every stage: small and odd shapes in fp16 and bf16 against a float64 CPU
/// reference of the (exactly representable) inputs: O with a tolerance derived from the fp32 score error
/// and the output rounding, lse separately with an absolute tolerance (derivation in
/// chapters/09_attention/README.md). Causal and not, q_len < kv_len and q_len > kv_len, rows that see no
/// key, logits near 1e4 with a positive and with a negative scale, identical keys (ties), head_dim 64 and
/// 128. On a GPU, larger shapes against the float64 reference on sampled rows, and the speed-up over the
/// previous reference stage on 4,16,2048,128 (B, H, S, D, non-causal; stage 6 on the decode shape
/// 1,32, q_len 1, kv_len 16384, 128).

#include "09_attention/attention_common.cuh"
#include "common/cuda_check.hpp"
#include "common/track.hpp"

#include <cuda_runtime.h>

namespace WORKBOOK_TRACK {

/// @brief Stage 1: three kernels, the scores materialised in global memory.
///
/// S = scale Q K^T into an fp32 workspace of batch * heads * q_len * kv_len floats (cudaMallocAsync on
/// the stream), masked entries -inf; a row softmax in place (P, and lse); O = P V. The formula as it
/// reads: O(S^2) memory traffic, the workspace dominating.
/// Checked: correctness on every graded shape (no speed target: this is the baseline).
void attention_1_three_kernels(const ch09::Shape& shape, const void* q, const void* k, const void* v, ch08::Dtype dtype,
                               void* o, float* lse, cudaStream_t stream);

/// @brief Stage 2: one fused kernel, a warp per query row, the online softmax.
///
/// Chapter 3's online softmax applied to attention: a running maximum m, a running sum l and the output
/// row o, all rescaled by exp(m_old - m_new) whenever the maximum grows, so that one pass over K and V
/// gives O and lse. No workspace; fp32 FMA.
/// Checked: correctness; speed-up over reference stage 1.
void attention_2_online_row(const ch09::Shape& shape, const void* q, const void* k, const void* v, ch08::Dtype dtype,
                            void* o, float* lse, cudaStream_t stream);

/// @brief Stage 3: tiled, a block of queries in shared memory, K and V tiles streamed through it.
///
/// A block keeps 64 query rows in shared memory and walks K and V in tiles of keys, each tile loaded
/// once from global memory for all 64 rows (stage 2 loads every key once per row); the online softmax
/// is applied per tile. Causal tiles that no row of the block sees are skipped. fp32 FMA.
/// Checked: correctness; speed-up over reference stage 2.
void attention_3_tiled(const ch09::Shape& shape, const void* q, const void* k, const void* v, ch08::Dtype dtype,
                       void* o, float* lse, cudaStream_t stream);

/// @brief Stage 4: tensor cores, `mma.sync` for Q K^T and for P V, fragments from `ldmatrix` (FlashAttention-2 style).
///
/// A block of 4 warps owns 64 query rows of one (batch, head), each warp 16 of them for the whole key
/// sequence, so no softmax statistic ever crosses warps. The warp's Q fragments are loaded once and stay
/// in registers; K and V stream through shared memory in tiles of 64 keys. S = Q K^T (wb::mma_m16n8k16,
/// K by wb::ldmatrix_x4) leaves each row's scores in the 4 lanes of a quad: the row max and sum take two
/// shuffles. P, rounded to the input type, is the A operand of O += P V as it sits in the S accumulators
/// (V by wb::ldmatrix_x4_trans): P never touches shared memory. O stays in registers, rescaled by
/// exp(m - m') with the running sum when a row's maximum grows. Tiles past the causal diagonal of the
/// block's last row are skipped; the others are masked element by element where needed (the kv_len tail,
/// the diagonal). Needs compute capability 8.0 or newer (skipped, with that reason, on older GPUs).
/// Checked: correctness (P may be rounded to the input type: the tolerance allows it); speed-up over
/// reference stage 3.
void attention_4_mma(const ch09::Shape& shape, const void* q, const void* k, const void* v, ch08::Dtype dtype, void* o,
                     float* lse, cudaStream_t stream);

/// @brief Stage 5: `cp.async` double-buffered K and V tiles, swizzled shared memory, causal tiles skipped.
///
/// Stage 4 with the copies overlapped: K and V have two shared buffers each, filled by cp.async
/// (ch08::cp_async16) in separate commit groups, so the copy of K(t + 1) runs under S of tile t and the
/// copy of V(t + 1) under its P V. Shared rows are unpadded and XOR-swizzled (chunk c of row r at
/// c ^ (r % 8)), the exponentials are exp2 with log2(e) folded into the scale, tiles that need no mask
/// run without mask code, and each warp owns 32 query rows so that every K and V fragment feeds two mma.
/// The reference keeps key tiles of 64 (128 x 64 per block) within 255 registers by spending almost none
/// on addresses.
/// Needs compute capability 8.0 or newer.
/// Checked: correctness; speed-up over reference stage 4.
void attention_5_pipelined(const ch09::Shape& shape, const void* q, const void* k, const void* v, ch08::Dtype dtype,
                           void* o, float* lse, cudaStream_t stream);

/// @brief Stage 6: decode, split-KV: few query rows (e.g. one new token) against a long KV cache.
///
/// With q_len = 1 the tiled stages have one block per (batch, head): far too few to fill the GPU or to
/// keep enough loads in flight. Split the keys into chunks over many blocks; each block writes a partial
/// O (normalised over its chunk) and its chunk's lse to a workspace (cudaMallocAsync on the stream), and
/// a second kernel merges the partials of each row, weighting partial s by exp(lse_s - lse), where
/// lse = ln sum_s exp(lse_s). Any shape of the contract must work; the speed is judged on one sequence's
/// decode, where one block per head leaves most SMs idle.
/// Checked: correctness on every graded shape; speed-up over reference stage 5 on the decode shape
/// (1, 32, q_len 1, kv_len 16384, head_dim 128, non-causal), reported as TB/s of K and V read.
void attention_6_decode_split_kv(const ch09::Shape& shape, const void* q, const void* k, const void* v,
                                 ch08::Dtype dtype, void* o, float* lse, cudaStream_t stream);

/// @brief Stage 7 (Hopper, compute capability 9.0): TMA, `wgmma` and producer/consumer warpgroups.
///
/// FlashAttention-3's structure on chapter 8's Hopper pieces (chapters/common/hopper.cuh): a producer
/// warpgroup loads Q once and streams K and V tiles with TMA (3-D tensor maps, one plane per head) into
/// two buffers, each completing an mbarrier; two consumer warpgroups of 64 query rows compute S = Q K^T
/// with `wgmma` from shared memory, the online softmax in registers, and O += P V with `wgmma` taking P
/// from registers and V N-major from shared memory; "empty" barriers hand the K and V buffers back. The
/// softmax of a tile runs while the P V of the tile before is still on the tensor cores.
/// Uses sm_90a instructions: graded on compute capability 9.0 only (skipped elsewhere, with the reason).
/// Checked: correctness (P may be rounded to the input type); speed-up over reference stage 5 on the
/// prefill shape (stage 6 is the decode kernel).
void attention_7_hopper_wgmma(const ch09::Shape& shape, const void* q, const void* k, const void* v, ch08::Dtype dtype,
                              void* o, float* lse, cudaStream_t stream);

}   // namespace WORKBOOK_TRACK
