;; wasm/relaxed-kernels.wat: the two hottest micro-kernels of core/src/kernels.cpp written
;; with relaxed SIMD's fused multiply-add (f32x4.relaxed_madd a b c = a * b + c, one x86
;; vfmadd per lane group in V8 where the CPU has FMA, else a mul and an add). Debian's
;; Emscripten 3.1.6 (clang 14) cannot emit relaxed SIMD, so they are written here by hand,
;; assembled by Debian's wabt at build time (wat2wasm --enable-relaxed-simd, CMakeLists.txt)
;; and carried inside the glue (wasm/post.js instantiates them on the module's own memory
;; when the engine validates them, and installs them with kernels::set_micro_kernels).
;;
;; Every pointer is a byte address in the main module's memory; every stride (lda, ldp, ldo,
;; ldw, ldv) counts float32 elements, as in the C++ kernels, and is turned into bytes here.
;; The functions have the C++ function pointer types of posenc/kernels.hpp (TileKernel,
;; WeightedSumKernel): size_t and bool are i32 in wasm32.
(module
  (import "env" "memory" (memory 0))

  ;; out[r, 0..8) (=, or += when accumulate != 0) sum_{p0 <= p < p1} a[r * lda + p * ldp] * panel[p, 0..8)
  ;; for the 4 rows r = 0..3: kernels.cpp's tile<4> for a full panel of 8 columns (panel: [k][8]
  ;; packed, rows of 32 bytes). Live vectors: 8 accumulators, the panel row's 2 halves and 1
  ;; broadcast a entry = 11 of the 16 XMM registers.
  (func (export "tile4")
    (param $a i32) (param $lda i32) (param $ldp i32) (param $panel i32) (param $p0 i32) (param $p1 i32)
    (param $out i32) (param $ldo i32) (param $accumulate i32)
    (local $x i32)     ;; address of a[0, p] (row 0 of the tile, entry p)
    (local $lda2 i32) (local $lda3 i32)  ;; byte offsets of rows 2 and 3 from row 0 ($lda: row 1)
    (local $b i32)     ;; address of panel row p
    (local $end i32)   ;; address of panel row p1
    (local $b0 v128) (local $b1 v128) (local $s v128)  ;; panel row p (columns 0-3, 4-7), a broadcast entry
    (local $c00 v128) (local $c01 v128) (local $c10 v128) (local $c11 v128)  ;; accumulators: row r, half h
    (local $c20 v128) (local $c21 v128) (local $c30 v128) (local $c31 v128)  ;; (v128 locals start at 0)

    ;; strides in bytes
    (local.set $lda (i32.shl (local.get $lda) (i32.const 2)))
    (local.set $ldp (i32.shl (local.get $ldp) (i32.const 2)))
    (local.set $ldo (i32.shl (local.get $ldo) (i32.const 2)))
    (local.set $lda2 (i32.add (local.get $lda) (local.get $lda)))
    (local.set $lda3 (i32.add (local.get $lda2) (local.get $lda)))

    ;; accumulate: the accumulators start from out's 4 rows
    (if (local.get $accumulate)
      (then
        (local.set $c00 (v128.load offset=0 (local.get $out)))
        (local.set $c01 (v128.load offset=16 (local.get $out)))
        (local.set $out (i32.add (local.get $out) (local.get $ldo)))
        (local.set $c10 (v128.load offset=0 (local.get $out)))
        (local.set $c11 (v128.load offset=16 (local.get $out)))
        (local.set $out (i32.add (local.get $out) (local.get $ldo)))
        (local.set $c20 (v128.load offset=0 (local.get $out)))
        (local.set $c21 (v128.load offset=16 (local.get $out)))
        (local.set $out (i32.add (local.get $out) (local.get $ldo)))
        (local.set $c30 (v128.load offset=0 (local.get $out)))
        (local.set $c31 (v128.load offset=16 (local.get $out)))
        ;; back to row 0
        (local.set $out (i32.sub (local.get $out) (i32.add (local.get $ldo) (i32.shl (local.get $ldo) (i32.const 1)))))))

    (local.set $x (i32.add (local.get $a) (i32.mul (local.get $p0) (local.get $ldp))))
    (local.set $b (i32.add (local.get $panel) (i32.shl (local.get $p0) (i32.const 5))))
    (local.set $end (i32.add (local.get $panel) (i32.shl (local.get $p1) (i32.const 5))))

    ;; for p = p0 .. p1 - 1: the terms a[r, p] * panel[p, ...], added in order p
    (if (i32.lt_u (local.get $b) (local.get $end))
      (then
        (loop $terms
          (local.set $b0 (v128.load offset=0 (local.get $b)))
          (local.set $b1 (v128.load offset=16 (local.get $b)))
          ;; row 0
          (local.set $s (v128.load32_splat (local.get $x)))
          (local.set $c00 (f32x4.relaxed_madd (local.get $s) (local.get $b0) (local.get $c00)))
          (local.set $c01 (f32x4.relaxed_madd (local.get $s) (local.get $b1) (local.get $c01)))
          ;; row 1
          (local.set $s (v128.load32_splat (i32.add (local.get $x) (local.get $lda))))
          (local.set $c10 (f32x4.relaxed_madd (local.get $s) (local.get $b0) (local.get $c10)))
          (local.set $c11 (f32x4.relaxed_madd (local.get $s) (local.get $b1) (local.get $c11)))
          ;; row 2
          (local.set $s (v128.load32_splat (i32.add (local.get $x) (local.get $lda2))))
          (local.set $c20 (f32x4.relaxed_madd (local.get $s) (local.get $b0) (local.get $c20)))
          (local.set $c21 (f32x4.relaxed_madd (local.get $s) (local.get $b1) (local.get $c21)))
          ;; row 3
          (local.set $s (v128.load32_splat (i32.add (local.get $x) (local.get $lda3))))
          (local.set $c30 (f32x4.relaxed_madd (local.get $s) (local.get $b0) (local.get $c30)))
          (local.set $c31 (f32x4.relaxed_madd (local.get $s) (local.get $b1) (local.get $c31)))
          ;; next p
          (local.set $x (i32.add (local.get $x) (local.get $ldp)))
          (local.set $b (i32.add (local.get $b) (i32.const 32)))
          (br_if $terms (i32.lt_u (local.get $b) (local.get $end))))))

    ;; out's 4 rows
    (v128.store offset=0 (local.get $out) (local.get $c00))
    (v128.store offset=16 (local.get $out) (local.get $c01))
    (local.set $out (i32.add (local.get $out) (local.get $ldo)))
    (v128.store offset=0 (local.get $out) (local.get $c10))
    (v128.store offset=16 (local.get $out) (local.get $c11))
    (local.set $out (i32.add (local.get $out) (local.get $ldo)))
    (v128.store offset=0 (local.get $out) (local.get $c20))
    (v128.store offset=16 (local.get $out) (local.get $c21))
    (local.set $out (i32.add (local.get $out) (local.get $ldo)))
    (v128.store offset=0 (local.get $out) (local.get $c30))
    (v128.store offset=16 (local.get $out) (local.get $c31)))

  ;; out[r, 0..8) = alpha[r] * out[r, 0..8) + sum_{p < keys} w[r * ldw + p] * v[p * ldv + 0..8)
  ;; for the 4 rows r = 0..3: kernels.cpp's weighted_sum<4, 2>, the P.V update of the fused
  ;; attention (w: the block's weights, v: 8 columns of the values, alpha: the rows' rescale
  ;; factors). Live vectors: 8 accumulators, v's row p in 2 halves, 1 broadcast weight.
  (func (export "weightedSum4x2")
    (param $w i32) (param $ldw i32) (param $v i32) (param $ldv i32) (param $keys i32) (param $alpha i32)
    (param $out i32) (param $ldo i32)
    (local $x i32)     ;; address of w[0, p]
    (local $ldw2 i32) (local $ldw3 i32)  ;; byte offsets of rows 2 and 3 of w ($ldw: row 1)
    (local $end i32)   ;; address of w[0, keys]
    (local $v0 v128) (local $v1 v128) (local $s v128)
    (local $c00 v128) (local $c01 v128) (local $c10 v128) (local $c11 v128)
    (local $c20 v128) (local $c21 v128) (local $c30 v128) (local $c31 v128)
    (local $o i32)

    (local.set $ldw (i32.shl (local.get $ldw) (i32.const 2)))
    (local.set $ldv (i32.shl (local.get $ldv) (i32.const 2)))
    (local.set $ldo (i32.shl (local.get $ldo) (i32.const 2)))
    (local.set $ldw2 (i32.add (local.get $ldw) (local.get $ldw)))
    (local.set $ldw3 (i32.add (local.get $ldw2) (local.get $ldw)))

    ;; the accumulators start from alpha[r] * out[r, ...] (a plain product, as in C++)
    (local.set $o (local.get $out))
    (local.set $s (v128.load32_splat offset=0 (local.get $alpha)))
    (local.set $c00 (f32x4.mul (v128.load offset=0 (local.get $o)) (local.get $s)))
    (local.set $c01 (f32x4.mul (v128.load offset=16 (local.get $o)) (local.get $s)))
    (local.set $o (i32.add (local.get $o) (local.get $ldo)))
    (local.set $s (v128.load32_splat offset=4 (local.get $alpha)))
    (local.set $c10 (f32x4.mul (v128.load offset=0 (local.get $o)) (local.get $s)))
    (local.set $c11 (f32x4.mul (v128.load offset=16 (local.get $o)) (local.get $s)))
    (local.set $o (i32.add (local.get $o) (local.get $ldo)))
    (local.set $s (v128.load32_splat offset=8 (local.get $alpha)))
    (local.set $c20 (f32x4.mul (v128.load offset=0 (local.get $o)) (local.get $s)))
    (local.set $c21 (f32x4.mul (v128.load offset=16 (local.get $o)) (local.get $s)))
    (local.set $o (i32.add (local.get $o) (local.get $ldo)))
    (local.set $s (v128.load32_splat offset=12 (local.get $alpha)))
    (local.set $c30 (f32x4.mul (v128.load offset=0 (local.get $o)) (local.get $s)))
    (local.set $c31 (f32x4.mul (v128.load offset=16 (local.get $o)) (local.get $s)))

    (local.set $x (local.get $w))
    (local.set $end (i32.add (local.get $w) (i32.shl (local.get $keys) (i32.const 2))))

    ;; for p = 0 .. keys - 1: the terms w[r, p] * v[p, ...], added in order p
    (if (i32.lt_u (local.get $x) (local.get $end))
      (then
        (loop $terms
          (local.set $v0 (v128.load offset=0 (local.get $v)))
          (local.set $v1 (v128.load offset=16 (local.get $v)))
          (local.set $s (v128.load32_splat (local.get $x)))
          (local.set $c00 (f32x4.relaxed_madd (local.get $s) (local.get $v0) (local.get $c00)))
          (local.set $c01 (f32x4.relaxed_madd (local.get $s) (local.get $v1) (local.get $c01)))
          (local.set $s (v128.load32_splat (i32.add (local.get $x) (local.get $ldw))))
          (local.set $c10 (f32x4.relaxed_madd (local.get $s) (local.get $v0) (local.get $c10)))
          (local.set $c11 (f32x4.relaxed_madd (local.get $s) (local.get $v1) (local.get $c11)))
          (local.set $s (v128.load32_splat (i32.add (local.get $x) (local.get $ldw2))))
          (local.set $c20 (f32x4.relaxed_madd (local.get $s) (local.get $v0) (local.get $c20)))
          (local.set $c21 (f32x4.relaxed_madd (local.get $s) (local.get $v1) (local.get $c21)))
          (local.set $s (v128.load32_splat (i32.add (local.get $x) (local.get $ldw3))))
          (local.set $c30 (f32x4.relaxed_madd (local.get $s) (local.get $v0) (local.get $c30)))
          (local.set $c31 (f32x4.relaxed_madd (local.get $s) (local.get $v1) (local.get $c31)))
          ;; next p
          (local.set $x (i32.add (local.get $x) (i32.const 4)))
          (local.set $v (i32.add (local.get $v) (local.get $ldv)))
          (br_if $terms (i32.lt_u (local.get $x) (local.get $end))))))

    (v128.store offset=0 (local.get $out) (local.get $c00))
    (v128.store offset=16 (local.get $out) (local.get $c01))
    (local.set $out (i32.add (local.get $out) (local.get $ldo)))
    (v128.store offset=0 (local.get $out) (local.get $c10))
    (v128.store offset=16 (local.get $out) (local.get $c11))
    (local.set $out (i32.add (local.get $out) (local.get $ldo)))
    (v128.store offset=0 (local.get $out) (local.get $c20))
    (v128.store offset=16 (local.get $out) (local.get $c21))
    (local.set $out (i32.add (local.get $out) (local.get $ldo)))
    (v128.store offset=0 (local.get $out) (local.get $c30))
    (v128.store offset=16 (local.get $out) (local.get $c31)))

  ;; tile4 for one row (the rows left over below a multiple of 4): out[0, 0..8) (=, or +=)
  ;; sum_{p0 <= p < p1} a[p * ldp] * panel[p, 0..8). kernels.cpp's tile<1> for a full panel. Every
  ;; entry of a product then takes the same fused arithmetic, whichever row it is in: equal rows of a
  ;; give equal rows of the product, and permuting a's rows permutes the product's exactly.
  (func (export "tile1")
    (param $a i32) (param $lda i32) (param $ldp i32) (param $panel i32) (param $p0 i32) (param $p1 i32)
    (param $out i32) (param $ldo i32) (param $accumulate i32)
    (local $x i32) (local $b i32) (local $end i32)
    (local $s v128) (local $c0 v128) (local $c1 v128)
    (local.set $ldp (i32.shl (local.get $ldp) (i32.const 2)))
    (if (local.get $accumulate)
      (then
        (local.set $c0 (v128.load offset=0 (local.get $out)))
        (local.set $c1 (v128.load offset=16 (local.get $out)))))
    (local.set $x (i32.add (local.get $a) (i32.mul (local.get $p0) (local.get $ldp))))
    (local.set $b (i32.add (local.get $panel) (i32.shl (local.get $p0) (i32.const 5))))
    (local.set $end (i32.add (local.get $panel) (i32.shl (local.get $p1) (i32.const 5))))
    (if (i32.lt_u (local.get $b) (local.get $end))
      (then
        (loop $terms
          (local.set $s (v128.load32_splat (local.get $x)))
          (local.set $c0 (f32x4.relaxed_madd (local.get $s) (v128.load offset=0 (local.get $b)) (local.get $c0)))
          (local.set $c1 (f32x4.relaxed_madd (local.get $s) (v128.load offset=16 (local.get $b)) (local.get $c1)))
          (local.set $x (i32.add (local.get $x) (local.get $ldp)))
          (local.set $b (i32.add (local.get $b) (i32.const 32)))
          (br_if $terms (i32.lt_u (local.get $b) (local.get $end))))))
    (v128.store offset=0 (local.get $out) (local.get $c0))
    (v128.store offset=16 (local.get $out) (local.get $c1)))

  ;; weightedSum4x2 for one row: out[0, 0..8) = alpha[0] * out[0, 0..8) + sum_{p < keys} w[p] * v[p * ldv + 0..8)
  ;; (kernels.cpp's weighted_sum<1, 2>), so that every row of attention's output takes the same arithmetic.
  (func (export "weightedSum1x2")
    (param $w i32) (param $ldw i32) (param $v i32) (param $ldv i32) (param $keys i32) (param $alpha i32)
    (param $out i32) (param $ldo i32)
    (local $end i32) (local $s v128) (local $c0 v128) (local $c1 v128)
    (local.set $ldv (i32.shl (local.get $ldv) (i32.const 2)))
    (local.set $s (v128.load32_splat (local.get $alpha)))
    (local.set $c0 (f32x4.mul (v128.load offset=0 (local.get $out)) (local.get $s)))
    (local.set $c1 (f32x4.mul (v128.load offset=16 (local.get $out)) (local.get $s)))
    (local.set $end (i32.add (local.get $w) (i32.shl (local.get $keys) (i32.const 2))))
    (if (i32.lt_u (local.get $w) (local.get $end))
      (then
        (loop $terms
          (local.set $s (v128.load32_splat (local.get $w)))
          (local.set $c0 (f32x4.relaxed_madd (local.get $s) (v128.load offset=0 (local.get $v)) (local.get $c0)))
          (local.set $c1 (f32x4.relaxed_madd (local.get $s) (v128.load offset=16 (local.get $v)) (local.get $c1)))
          (local.set $w (i32.add (local.get $w) (i32.const 4)))
          (local.set $v (i32.add (local.get $v) (local.get $ldv)))
          (br_if $terms (i32.lt_u (local.get $w) (local.get $end))))))
    (v128.store offset=0 (local.get $out) (local.get $c0))
    (v128.store offset=16 (local.get $out) (local.get $c1)))

  ;; tile4 for 6 rows (kernels.cpp's tile<6> for a full panel), the register-filling tile of attention's scores:
  ;; 12 accumulators, the panel row's 2 halves and 1 broadcast a entry = 15 live vectors, the 16 XMM registers
  ;; V8 gives wasm on x86-64 less its scratch register. Twelve independent fused multiply-add chains hide the
  ;; FMA's latency (4 cycles, 2 a cycle: 8 chains are the bare minimum, which the 4-row tile has; the peak
  ;; section of the bench measures 8 accumulators at 94% of 12's), and each step loads 2 vectors and 6 scalars
  ;; for 12 products (4-row: 2 and 4 for 8).
  (func (export "tile6")
    (param $a i32) (param $lda i32) (param $ldp i32) (param $panel i32) (param $p0 i32) (param $p1 i32)
    (param $out i32) (param $ldo i32) (param $accumulate i32)
    (local $x i32)     ;; address of a[0, p] (row 0 of the tile, entry p)
    (local $lda2 i32) (local $lda3 i32) (local $lda4 i32) (local $lda5 i32)  ;; byte offsets of rows 2-5 ($lda: row 1)
    (local $b i32) (local $end i32) (local $o i32)
    (local $b0 v128) (local $b1 v128) (local $s v128)
    (local $c00 v128) (local $c01 v128) (local $c10 v128) (local $c11 v128) (local $c20 v128) (local $c21 v128) (local $c30 v128) (local $c31 v128) (local $c40 v128) (local $c41 v128) (local $c50 v128) (local $c51 v128)
    (local.set $lda (i32.shl (local.get $lda) (i32.const 2)))
    (local.set $ldp (i32.shl (local.get $ldp) (i32.const 2)))
    (local.set $ldo (i32.shl (local.get $ldo) (i32.const 2)))
    (local.set $lda2 (i32.add (local.get $lda) (local.get $lda)))
    (local.set $lda3 (i32.add (local.get $lda2) (local.get $lda)))
    (local.set $lda4 (i32.add (local.get $lda3) (local.get $lda)))
    (local.set $lda5 (i32.add (local.get $lda4) (local.get $lda)))
    ;; accumulate: the accumulators start from out's 6 rows
    (if (local.get $accumulate)
      (then
        (local.set $o (local.get $out))
        (local.set $c00 (v128.load offset=0 (local.get $o)))
        (local.set $c01 (v128.load offset=16 (local.get $o)))
        (local.set $o (i32.add (local.get $o) (local.get $ldo)))
        (local.set $c10 (v128.load offset=0 (local.get $o)))
        (local.set $c11 (v128.load offset=16 (local.get $o)))
        (local.set $o (i32.add (local.get $o) (local.get $ldo)))
        (local.set $c20 (v128.load offset=0 (local.get $o)))
        (local.set $c21 (v128.load offset=16 (local.get $o)))
        (local.set $o (i32.add (local.get $o) (local.get $ldo)))
        (local.set $c30 (v128.load offset=0 (local.get $o)))
        (local.set $c31 (v128.load offset=16 (local.get $o)))
        (local.set $o (i32.add (local.get $o) (local.get $ldo)))
        (local.set $c40 (v128.load offset=0 (local.get $o)))
        (local.set $c41 (v128.load offset=16 (local.get $o)))
        (local.set $o (i32.add (local.get $o) (local.get $ldo)))
        (local.set $c50 (v128.load offset=0 (local.get $o)))
        (local.set $c51 (v128.load offset=16 (local.get $o)))))
    (local.set $x (i32.add (local.get $a) (i32.mul (local.get $p0) (local.get $ldp))))
    (local.set $b (i32.add (local.get $panel) (i32.shl (local.get $p0) (i32.const 5))))
    (local.set $end (i32.add (local.get $panel) (i32.shl (local.get $p1) (i32.const 5))))
    ;; for p = p0 .. p1 - 1: the terms a[r, p] * panel[p, ...], added in order p
    (if (i32.lt_u (local.get $b) (local.get $end))
      (then
        (loop $terms
          (local.set $b0 (v128.load offset=0 (local.get $b)))
          (local.set $b1 (v128.load offset=16 (local.get $b)))
          (local.set $s (v128.load32_splat (local.get $x)))
          (local.set $c00 (f32x4.relaxed_madd (local.get $s) (local.get $b0) (local.get $c00)))
          (local.set $c01 (f32x4.relaxed_madd (local.get $s) (local.get $b1) (local.get $c01)))
          (local.set $s (v128.load32_splat (i32.add (local.get $x) (local.get $lda))))
          (local.set $c10 (f32x4.relaxed_madd (local.get $s) (local.get $b0) (local.get $c10)))
          (local.set $c11 (f32x4.relaxed_madd (local.get $s) (local.get $b1) (local.get $c11)))
          (local.set $s (v128.load32_splat (i32.add (local.get $x) (local.get $lda2))))
          (local.set $c20 (f32x4.relaxed_madd (local.get $s) (local.get $b0) (local.get $c20)))
          (local.set $c21 (f32x4.relaxed_madd (local.get $s) (local.get $b1) (local.get $c21)))
          (local.set $s (v128.load32_splat (i32.add (local.get $x) (local.get $lda3))))
          (local.set $c30 (f32x4.relaxed_madd (local.get $s) (local.get $b0) (local.get $c30)))
          (local.set $c31 (f32x4.relaxed_madd (local.get $s) (local.get $b1) (local.get $c31)))
          (local.set $s (v128.load32_splat (i32.add (local.get $x) (local.get $lda4))))
          (local.set $c40 (f32x4.relaxed_madd (local.get $s) (local.get $b0) (local.get $c40)))
          (local.set $c41 (f32x4.relaxed_madd (local.get $s) (local.get $b1) (local.get $c41)))
          (local.set $s (v128.load32_splat (i32.add (local.get $x) (local.get $lda5))))
          (local.set $c50 (f32x4.relaxed_madd (local.get $s) (local.get $b0) (local.get $c50)))
          (local.set $c51 (f32x4.relaxed_madd (local.get $s) (local.get $b1) (local.get $c51)))
          (local.set $x (i32.add (local.get $x) (local.get $ldp)))
          (local.set $b (i32.add (local.get $b) (i32.const 32)))
          (br_if $terms (i32.lt_u (local.get $b) (local.get $end))))))
    ;; out's 6 rows
    (v128.store offset=0 (local.get $out) (local.get $c00))
    (v128.store offset=16 (local.get $out) (local.get $c01))
    (local.set $out (i32.add (local.get $out) (local.get $ldo)))
    (v128.store offset=0 (local.get $out) (local.get $c10))
    (v128.store offset=16 (local.get $out) (local.get $c11))
    (local.set $out (i32.add (local.get $out) (local.get $ldo)))
    (v128.store offset=0 (local.get $out) (local.get $c20))
    (v128.store offset=16 (local.get $out) (local.get $c21))
    (local.set $out (i32.add (local.get $out) (local.get $ldo)))
    (v128.store offset=0 (local.get $out) (local.get $c30))
    (v128.store offset=16 (local.get $out) (local.get $c31))
    (local.set $out (i32.add (local.get $out) (local.get $ldo)))
    (v128.store offset=0 (local.get $out) (local.get $c40))
    (v128.store offset=16 (local.get $out) (local.get $c41))
    (local.set $out (i32.add (local.get $out) (local.get $ldo)))
    (v128.store offset=0 (local.get $out) (local.get $c50))
    (v128.store offset=16 (local.get $out) (local.get $c51)))

  ;; weightedSum4x2 for 6 rows (kernels.cpp's weighted_sum<6, 2>): attention's P.V update with 12 accumulators,
  ;; as tile6: out[r, 0..8) = alpha[r] * out[r, 0..8) + sum_{p < keys} w[r * ldw + p] * v[p * ldv + 0..8), r < 6.
  (func (export "weightedSum6x2")
    (param $w i32) (param $ldw i32) (param $v i32) (param $ldv i32) (param $keys i32) (param $alpha i32)
    (param $out i32) (param $ldo i32)
    (local $x i32) (local $ldw2 i32) (local $ldw3 i32) (local $ldw4 i32) (local $ldw5 i32) (local $end i32) (local $o i32)
    (local $v0 v128) (local $v1 v128) (local $s v128)
    (local $c00 v128) (local $c01 v128) (local $c10 v128) (local $c11 v128) (local $c20 v128) (local $c21 v128) (local $c30 v128) (local $c31 v128) (local $c40 v128) (local $c41 v128) (local $c50 v128) (local $c51 v128)
    (local.set $ldw (i32.shl (local.get $ldw) (i32.const 2)))
    (local.set $ldv (i32.shl (local.get $ldv) (i32.const 2)))
    (local.set $ldo (i32.shl (local.get $ldo) (i32.const 2)))
    (local.set $ldw2 (i32.add (local.get $ldw) (local.get $ldw)))
    (local.set $ldw3 (i32.add (local.get $ldw2) (local.get $ldw)))
    (local.set $ldw4 (i32.add (local.get $ldw3) (local.get $ldw)))
    (local.set $ldw5 (i32.add (local.get $ldw4) (local.get $ldw)))
    ;; the accumulators start from alpha[r] * out[r, ...] (a plain product, as in C++)
    (local.set $o (local.get $out))
    (local.set $s (v128.load32_splat offset=0 (local.get $alpha)))
    (local.set $c00 (f32x4.mul (v128.load offset=0 (local.get $o)) (local.get $s)))
    (local.set $c01 (f32x4.mul (v128.load offset=16 (local.get $o)) (local.get $s)))
    (local.set $o (i32.add (local.get $o) (local.get $ldo)))
    (local.set $s (v128.load32_splat offset=4 (local.get $alpha)))
    (local.set $c10 (f32x4.mul (v128.load offset=0 (local.get $o)) (local.get $s)))
    (local.set $c11 (f32x4.mul (v128.load offset=16 (local.get $o)) (local.get $s)))
    (local.set $o (i32.add (local.get $o) (local.get $ldo)))
    (local.set $s (v128.load32_splat offset=8 (local.get $alpha)))
    (local.set $c20 (f32x4.mul (v128.load offset=0 (local.get $o)) (local.get $s)))
    (local.set $c21 (f32x4.mul (v128.load offset=16 (local.get $o)) (local.get $s)))
    (local.set $o (i32.add (local.get $o) (local.get $ldo)))
    (local.set $s (v128.load32_splat offset=12 (local.get $alpha)))
    (local.set $c30 (f32x4.mul (v128.load offset=0 (local.get $o)) (local.get $s)))
    (local.set $c31 (f32x4.mul (v128.load offset=16 (local.get $o)) (local.get $s)))
    (local.set $o (i32.add (local.get $o) (local.get $ldo)))
    (local.set $s (v128.load32_splat offset=16 (local.get $alpha)))
    (local.set $c40 (f32x4.mul (v128.load offset=0 (local.get $o)) (local.get $s)))
    (local.set $c41 (f32x4.mul (v128.load offset=16 (local.get $o)) (local.get $s)))
    (local.set $o (i32.add (local.get $o) (local.get $ldo)))
    (local.set $s (v128.load32_splat offset=20 (local.get $alpha)))
    (local.set $c50 (f32x4.mul (v128.load offset=0 (local.get $o)) (local.get $s)))
    (local.set $c51 (f32x4.mul (v128.load offset=16 (local.get $o)) (local.get $s)))
    (local.set $x (local.get $w))
    (local.set $end (i32.add (local.get $w) (i32.shl (local.get $keys) (i32.const 2))))
    ;; for p = 0 .. keys - 1: the terms w[r, p] * v[p, ...], added in order p
    (if (i32.lt_u (local.get $x) (local.get $end))
      (then
        (loop $terms
          (local.set $v0 (v128.load offset=0 (local.get $v)))
          (local.set $v1 (v128.load offset=16 (local.get $v)))
          (local.set $s (v128.load32_splat (local.get $x)))
          (local.set $c00 (f32x4.relaxed_madd (local.get $s) (local.get $v0) (local.get $c00)))
          (local.set $c01 (f32x4.relaxed_madd (local.get $s) (local.get $v1) (local.get $c01)))
          (local.set $s (v128.load32_splat (i32.add (local.get $x) (local.get $ldw))))
          (local.set $c10 (f32x4.relaxed_madd (local.get $s) (local.get $v0) (local.get $c10)))
          (local.set $c11 (f32x4.relaxed_madd (local.get $s) (local.get $v1) (local.get $c11)))
          (local.set $s (v128.load32_splat (i32.add (local.get $x) (local.get $ldw2))))
          (local.set $c20 (f32x4.relaxed_madd (local.get $s) (local.get $v0) (local.get $c20)))
          (local.set $c21 (f32x4.relaxed_madd (local.get $s) (local.get $v1) (local.get $c21)))
          (local.set $s (v128.load32_splat (i32.add (local.get $x) (local.get $ldw3))))
          (local.set $c30 (f32x4.relaxed_madd (local.get $s) (local.get $v0) (local.get $c30)))
          (local.set $c31 (f32x4.relaxed_madd (local.get $s) (local.get $v1) (local.get $c31)))
          (local.set $s (v128.load32_splat (i32.add (local.get $x) (local.get $ldw4))))
          (local.set $c40 (f32x4.relaxed_madd (local.get $s) (local.get $v0) (local.get $c40)))
          (local.set $c41 (f32x4.relaxed_madd (local.get $s) (local.get $v1) (local.get $c41)))
          (local.set $s (v128.load32_splat (i32.add (local.get $x) (local.get $ldw5))))
          (local.set $c50 (f32x4.relaxed_madd (local.get $s) (local.get $v0) (local.get $c50)))
          (local.set $c51 (f32x4.relaxed_madd (local.get $s) (local.get $v1) (local.get $c51)))
          (local.set $x (i32.add (local.get $x) (i32.const 4)))
          (local.set $v (i32.add (local.get $v) (local.get $ldv)))
          (br_if $terms (i32.lt_u (local.get $x) (local.get $end))))))
    (v128.store offset=0 (local.get $out) (local.get $c00))
    (v128.store offset=16 (local.get $out) (local.get $c01))
    (local.set $out (i32.add (local.get $out) (local.get $ldo)))
    (v128.store offset=0 (local.get $out) (local.get $c10))
    (v128.store offset=16 (local.get $out) (local.get $c11))
    (local.set $out (i32.add (local.get $out) (local.get $ldo)))
    (v128.store offset=0 (local.get $out) (local.get $c20))
    (v128.store offset=16 (local.get $out) (local.get $c21))
    (local.set $out (i32.add (local.get $out) (local.get $ldo)))
    (v128.store offset=0 (local.get $out) (local.get $c30))
    (v128.store offset=16 (local.get $out) (local.get $c31))
    (local.set $out (i32.add (local.get $out) (local.get $ldo)))
    (v128.store offset=0 (local.get $out) (local.get $c40))
    (v128.store offset=16 (local.get $out) (local.get $c41))
    (local.set $out (i32.add (local.get $out) (local.get $ldo)))
    (v128.store offset=0 (local.get $out) (local.get $c50))
    (v128.store offset=16 (local.get $out) (local.get $c51)))

  ;; The online softmax's step for `rows` rows of a block of scores (kernels.cpp's attention, keys that every
  ;; query of the block sees; cols a multiple of 8). The scores are in base 2 (attention's logits times log2(e)):
  ;; for each row r, m = max(runningMax[r], the row's largest score); the row becomes its weights 2^(s - m) (the
  ;; softmax's e^(logit - max); flushed to +0 below 2^-126); alpha[r] = 2^(runningMax[r] - m), the factor that
  ;; rescales what the earlier blocks summed (1 when the max did not grow, 0 when it was -infinity); sums[r] = the
  ;; float sum of the row's weights; runningMax[r] = m. A row of only -infinity (a bias can do that) with
  ;; runningMax[r] = -infinity gets weights, alpha and sum 0.
  ;; 2^x is simd::exp2_fast's with fused multiply-adds: k = round(x) (adding 1.5 * 2^23 leaves it in the low bits),
  ;; r = x - k (exact, |r| <= 1/2), 2^r by its degree-5 polynomial (5 FMAs of the 14 vector operations a 4 scores),
  ;; and 2^k an integer add to p's exponent field in place of a product (exact: every result kept is a normal
  ;; float). Within 2.0e-7 relative of 2^x for x in [-126, 0] (tests/wasm/kernels.test.mjs sweeps it through this
  ;; function). One vector of 4 scores a loop step: its 4 temporaries, the 8 constants, the max and the sum fit
  ;; V8's 15 allocatable XMM registers (two a step need 21). Pointers are byte addresses, lds counts floats
  ;; (kernels.hpp, SoftmaxKernel).
  (func (export "softmaxRows")
    (param $s i32) (param $lds i32) (param $rows i32) (param $cols i32) (param $runningMax i32) (param $alpha i32)
    (param $sums i32)
    (local $row i32) (local $end i32) (local $x i32) (local $last i32)
    (local $m f32) (local $old f32)
    (local $shifter v128) (local $lowest v128)
    (local $c5 v128) (local $c4 v128) (local $c3 v128) (local $c2 v128) (local $c1 v128) (local $one v128)
    (local $mv v128) (local $sum v128)
    (local $x0 v128) (local $k0 v128) (local $r0 v128) (local $p0 v128) (local $x1 v128)
    ;; 1.5 * 2^23: x + shifter holds round(x) in its low bits, and (x + shifter) << 23 is round(x) << 23
    (local.set $shifter (v128.const f32x4 12582912.0 12582912.0 12582912.0 12582912.0))
    ;; 2^-126, the least normal float: below it the weight is flushed to +0
    (local.set $lowest (v128.const f32x4 -126.0 -126.0 -126.0 -126.0))
    (local.set $c5 (v128.const f32x4 1.3264626032e-03 1.3264626032e-03 1.3264626032e-03 1.3264626032e-03))
    (local.set $c4 (v128.const f32x4 9.6715046093e-03 9.6715046093e-03 9.6715046093e-03 9.6715046093e-03))
    (local.set $c3 (v128.const f32x4 5.5507339537e-02 5.5507339537e-02 5.5507339537e-02 5.5507339537e-02))
    (local.set $c2 (v128.const f32x4 2.4022242427e-01 2.4022242427e-01 2.4022242427e-01 2.4022242427e-01))
    (local.set $c1 (v128.const f32x4 6.9314700365e-01 6.9314700365e-01 6.9314700365e-01 6.9314700365e-01))
    (local.set $one (v128.const f32x4 1.0 1.0 1.0 1.0))
    (local.set $lds (i32.shl (local.get $lds) (i32.const 2)))
    (local.set $cols (i32.shl (local.get $cols) (i32.const 2)))
    (local.set $row (local.get $s))
    (local.set $last (i32.add (local.get $s) (i32.mul (local.get $rows) (local.get $lds))))
    (if (i32.eqz (local.get $cols)) (then (return)))
    (if (i32.ge_u (local.get $row) (local.get $last)) (then (return)))
    ;; First every row's new max and alpha (the rows' chains are independent: their latencies overlap), then every
    ;; row's weights (no row then waits on its own max).
    (loop $maxima
      (local.set $end (i32.add (local.get $row) (local.get $cols)))
      ;; the row's largest score (pmax: one maxps; no score is NaN)
      (local.set $x0 (v128.const f32x4 -inf -inf -inf -inf))
      (local.set $x1 (local.get $x0))
      (local.set $x (local.get $row))
      (loop $max
        (local.set $x0 (f32x4.pmax (local.get $x0) (v128.load offset=0 (local.get $x))))
        (local.set $x1 (f32x4.pmax (local.get $x1) (v128.load offset=16 (local.get $x))))
        (local.set $x (i32.add (local.get $x) (i32.const 32)))
        (br_if $max (i32.lt_u (local.get $x) (local.get $end))))
      (local.set $x0 (f32x4.pmax (local.get $x0) (local.get $x1)))
      (local.set $x0 (f32x4.pmax (local.get $x0)
        (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $x0) (local.get $x0))))
      (local.set $x0 (f32x4.pmax (local.get $x0)
        (i8x16.shuffle 4 5 6 7 0 1 2 3 12 13 14 15 8 9 10 11 (local.get $x0) (local.get $x0))))
      (local.set $m (f32x4.extract_lane 0 (local.get $x0)))
      (local.set $old (f32.load (local.get $runningMax)))
      (local.set $m (select (local.get $old) (local.get $m) (f32.gt (local.get $old) (local.get $m))))
      (f32.store (local.get $runningMax) (local.get $m))
      ;; alpha = 2^(old - m): 1 exactly when old = m (p(0) = 1, k = 0), 0 when old = -infinity; 0 when m is
      ;; -infinity too (every score so far -infinity: nothing to rescale)
      (local.set $x0 (f32x4.splat (f32.sub (local.get $old) (local.get $m))))
      ;; 2^x, x = $x0: 2^k p(r), k = round(x) (in the low bits of $k0), r = x - k (exact)
      (local.set $k0 (f32x4.add (local.get $x0) (local.get $shifter)))
      (local.set $r0 (f32x4.sub (local.get $x0) (f32x4.sub (local.get $k0) (local.get $shifter))))
      (local.set $p0 (f32x4.relaxed_madd (local.get $c5) (local.get $r0) (local.get $c4)))
      (local.set $p0 (f32x4.relaxed_madd (local.get $p0) (local.get $r0) (local.get $c3)))
      (local.set $p0 (f32x4.relaxed_madd (local.get $p0) (local.get $r0) (local.get $c2)))
      (local.set $p0 (f32x4.relaxed_madd (local.get $p0) (local.get $r0) (local.get $c1)))
      (local.set $p0 (f32x4.relaxed_madd (local.get $p0) (local.get $r0) (local.get $one)))
      ;; times 2^k: k added to p's exponent (exact while the result is normal, which x >= -126 ensures), else +0
      (local.set $p0 (v128.and (i32x4.add (local.get $p0) (i32x4.shl (local.get $k0) (i32.const 23)))
        (f32x4.ge (local.get $x0) (local.get $lowest))))
      (f32.store (local.get $alpha)
        (select (f32.const 0) (f32x4.extract_lane 0 (local.get $p0)) (f32.eq (local.get $m) (f32.const -inf))))
      (local.set $row (i32.add (local.get $row) (local.get $lds)))
      (local.set $runningMax (i32.add (local.get $runningMax) (i32.const 4)))
      (local.set $alpha (i32.add (local.get $alpha) (i32.const 4)))
      (br_if $maxima (i32.lt_u (local.get $row) (local.get $last))))
    ;; back to row 0
    (local.set $row (local.get $s))
    (local.set $runningMax (i32.sub (local.get $runningMax) (i32.shl (local.get $rows) (i32.const 2))))
    (loop $rows
      (local.set $end (i32.add (local.get $row) (local.get $cols)))
      (local.set $m (f32.load (local.get $runningMax)))
      (local.set $x (local.get $row))
      (if (f32.eq (local.get $m) (f32.const -inf))
        (then  ;; every score so far is -infinity: weights 0
          (loop $zero
            (v128.store offset=0 (local.get $x) (v128.const i32x4 0 0 0 0))
            (v128.store offset=16 (local.get $x) (v128.const i32x4 0 0 0 0))
            (local.set $x (i32.add (local.get $x) (i32.const 32)))
            (br_if $zero (i32.lt_u (local.get $x) (local.get $end))))
          (f32.store (local.get $sums) (f32.const 0)))
        (else
          ;; the weights 2^(s - m), 4 a step, and their sum
          (local.set $mv (f32x4.splat (local.get $m)))
          (local.set $sum (v128.const i32x4 0 0 0 0))
          (loop $weights
            (local.set $x0 (f32x4.sub (v128.load offset=0 (local.get $x)) (local.get $mv)))
            ;; 2^x, x = $x0: 2^k p(r), k = round(x) (in the low bits of $k0), r = x - k (exact)
            (local.set $k0 (f32x4.add (local.get $x0) (local.get $shifter)))
            (local.set $r0 (f32x4.sub (local.get $x0) (f32x4.sub (local.get $k0) (local.get $shifter))))
            (local.set $p0 (f32x4.relaxed_madd (local.get $c5) (local.get $r0) (local.get $c4)))
            (local.set $p0 (f32x4.relaxed_madd (local.get $p0) (local.get $r0) (local.get $c3)))
            (local.set $p0 (f32x4.relaxed_madd (local.get $p0) (local.get $r0) (local.get $c2)))
            (local.set $p0 (f32x4.relaxed_madd (local.get $p0) (local.get $r0) (local.get $c1)))
            (local.set $p0 (f32x4.relaxed_madd (local.get $p0) (local.get $r0) (local.get $one)))
            ;; times 2^k: k added to p's exponent (exact while the result is normal, which x >= -126 ensures), else +0
            (local.set $p0 (v128.and (i32x4.add (local.get $p0) (i32x4.shl (local.get $k0) (i32.const 23)))
              (f32x4.ge (local.get $x0) (local.get $lowest))))
            (v128.store offset=0 (local.get $x) (local.get $p0))
            (local.set $sum (f32x4.add (local.get $sum) (local.get $p0)))
            (local.set $x (i32.add (local.get $x) (i32.const 16)))
            (br_if $weights (i32.lt_u (local.get $x) (local.get $end))))
          (local.set $sum (f32x4.add (local.get $sum)
            (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $sum) (local.get $sum))))
          (local.set $sum (f32x4.add (local.get $sum)
            (i8x16.shuffle 4 5 6 7 0 1 2 3 12 13 14 15 8 9 10 11 (local.get $sum) (local.get $sum))))
          (f32.store (local.get $sums) (f32x4.extract_lane 0 (local.get $sum)))))
      ;; next row
      (local.set $row (i32.add (local.get $row) (local.get $lds)))
      (local.set $runningMax (i32.add (local.get $runningMax) (i32.const 4)))
      (local.set $sums (i32.add (local.get $sums) (i32.const 4)))
      (br_if $rows (i32.lt_u (local.get $row) (local.get $last))))))
