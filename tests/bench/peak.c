// The wasm SIMD peak probe: one core's f32x4 throughput in the form that
// matrix kernels use it. Wasm SIMD has no fused multiply-add, so each step is a
// separate f32x4.mul and f32x4.add (8 flops): acc = acc * m + c. Each of the N
// accumulators is its own dependency chain (mul then add latency), so N chains
// hide that latency; N + 2 values (m, c) stay live in v128 registers, at most 12.
// Built at bench time by tests/bench/peak.mjs:
//   emcc -O3 -msimd128 --no-entry -sSTANDALONE_WASM peak.c -o build/bench/peak.wasm
#include <emscripten.h>
#include <wasm_simd128.h>

#define STEP(N) for (int i = 0; i < N; i++) acc[i] = wasm_f32x4_add(wasm_f32x4_mul(acc[i], m), c)

// peakN(iterations, m, c) runs 4 * iterations steps of every accumulator:
// 32 * N * iterations flops. Returns a sum of the lanes so nothing is dead code.
#define PEAK(N)                                                                  \
  EMSCRIPTEN_KEEPALIVE float peak##N(int iterations, float mul, float add) {     \
    const v128_t m = wasm_f32x4_splat(mul);                                      \
    const v128_t c = wasm_f32x4_splat(add);                                      \
    v128_t acc[N];                                                               \
    for (int i = 0; i < N; i++) acc[i] = wasm_f32x4_splat((float)i);             \
    for (int it = 0; it < iterations; it++) { STEP(N); STEP(N); STEP(N); STEP(N); } \
    v128_t s = acc[0];                                                           \
    for (int i = 1; i < N; i++) s = wasm_f32x4_add(s, acc[i]);                   \
    return wasm_f32x4_extract_lane(s, 0) + wasm_f32x4_extract_lane(s, 1) +       \
           wasm_f32x4_extract_lane(s, 2) + wasm_f32x4_extract_lane(s, 3);        \
  }

PEAK(4)
PEAK(6)
PEAK(8)
PEAK(10)
