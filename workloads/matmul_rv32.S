# matmul_rv32.S: an integer matrix product on every PicoRV32 tile, sized so the caches matter.
#
# What it checks: every hart fills its own A (2x48) and B (48x48) with a sequence seeded by its id,
# computes C = A x B (2x48) with mul, and checks C by a second method that never runs the product's
# inner loop: the sum of C's entries must equal sum_k colsum(A)_k * rowsum(B)_k, and the sum weighted
# by (i+1)(j+1) must equal the same identity over weighted sums. All arithmetic wraps modulo 2^32,
# where both identities still hold. A wrong entry, a lost store or a stale line changes a sum; an
# all-zero C (memory that never took the writes) is also a failure.
#
# What a pass means: run with a full finish mask (one 1 per tile), the simulation passes only when
# every tile reaches `pass`. A hart whose check fails jumps to `fail` (the bad trap).
#
# Why this size: a hart's data is 9.75 KB (A 384 B, B 9216 B, C 384 B) in its own 16 KB slot, so it
# does not fit the default 8 KB L1.5 (B alone is 576 of its 512 lines) but fits a 16 KB one; PicoRV32
# has no L1 of its own and fetches its code through the same L1.5. C's columns are taken four apart,
# so the four words of a B line are used a whole walk of B apart: with an L1.5 that holds B they hit,
# with a smaller one each use misses to the L2. The mesh's data (39 KB on 2x2) fits in four 16 KB L2
# slices, so halving the default 64 KB L2 changes little. The slot's data starts 0x300 bytes in, so
# the sets of a 16 KB 4-way L1.5 that the code and the shared word map to hold only two of its
# lines. A real 2x2 run takes about 577 000 cycles (533 000 with a 16 KB L1.5), within the
# recommended -rtl_timeout=1000000 and the testbench's 1.5 M-cycle cap.
#
# How a hart learns its id and the hart count: OpenPiton's PicoRV32 has no mhartid CSR and no tile id
# input, and rv32_as passes no tile count to the assembler. So every hart takes a ticket from a shared
# counter with amoadd.w (its id, in arrival order) and reads the count after a settle window; all
# tiles leave reset together, so all tickets are drawn within it. Before passing, each hart checks
# that no ticket was drawn after its own count was taken.
#
# Flow: sims -pico assembles this file with rv32_as (riscv64-unknown-elf-gcc -march=rv32ima) and links
# it at 0x40000000; the good and bad trap addresses are the `pass` and `fail` labels. The shared
# counter is read with AMOs, which go to the L2 uncached. The per-hart slots are in .bss, which the
# memory image leaves out (memory that was never written reads as zero, and every slot is written
# before it is read). Every hart runs this whole program, so the file is self-contained: sims copies
# only the diag itself into the run directory.

#define M           2               /* rows of A and C */
#define K           48              /* columns of A, rows of B */
#define N           48              /* columns of B and C */
#define SLOT        16384           /* bytes of .bss per hart */
#define DATA_OFFSET 0x300           /* where a slot's matrices start */
#define MAX_HARTS   64
#define SETTLE      1000
#define SEED_STEP   0x9e3779b9      /* seed = (id + 1) * SEED_STEP */
#define STEP        0x3c6ef35f      /* odd: the sequence x <- x + STEP never repeats within a slot */

#define A_BYTES     (M * K * 4)
#define B_BYTES     (K * N * 4)
#define ROW_B       (N * 4)         /* bytes in one row of B and C */
#define ROW_A       (K * 4)         /* bytes in one row of A */

    .text
    .globl _start
_start:
    # Roll call: s1 = this hart's id, s2 = the number of harts.
    la      s0, arrivals
    li      t0, 1
    amoadd.w s1, t0, (s0)
    li      t1, SETTLE
settle:
    addi    t1, t1, -1
    bnez    t1, settle
    amoor.w s2, zero, (s0)
    li      t0, MAX_HARTS
    bgtu    s2, t0, fail

    # This hart's slot: s3 = A, s4 = B (right after A), s5 = C (right after B).
    la      s3, slots
    li      t0, SLOT
    mul     t0, t0, s1
    add     s3, s3, t0
    addi    s3, s3, DATA_OFFSET
    li      t0, A_BYTES
    add     s4, s3, t0
    li      t0, B_BYTES
    add     s5, s4, t0

    # Fill A and B (contiguous) from the hart's own sequence: x <- x + STEP, an element is x >> 22.
    li      t0, SEED_STEP
    addi    t1, s1, 1
    mul     t2, t0, t1
    li      t3, STEP
    mv      a3, s3
fill:
    add     t2, t2, t3
    srli    t0, t2, 22
    sw      t0, 0(a3)
    add     t2, t2, t3
    srli    t0, t2, 22
    sw      t0, 4(a3)
    add     t2, t2, t3
    srli    t0, t2, 22
    sw      t0, 8(a3)
    add     t2, t2, t3
    srli    t0, t2, 22
    sw      t0, 12(a3)
    addi    a3, a3, 16
    bne     a3, s5, fill

    # C[i][j] = sum_k A[i][k] * B[k][j]: i outer, j middle, k inner (unrolled by eight). The columns
    # of a row of C are taken four apart (j = 0, 4, ..., 44, then 1, 5, ..., 45, ...), so the four
    # words of a B line are used a whole walk of B apart: they hit only when the cache holds B.
    mv      a0, s3                  # A row i
    mv      a2, s5                  # C[i][j]
    li      t6, M
mm_row:
    mv      a1, s4                  # top of B's column j
    li      t4, 4                   # column residues left
mm_residue:
    li      t5, N / 4
mm_col:
    mv      a3, a0
    mv      a4, a1
    addi    a5, a0, ROW_A           # end of A's row
    li      a6, 0
mm_dot:
    lw      t0, 0(a3)
    lw      t1, 0(a4)
    mul     t0, t0, t1
    add     a6, a6, t0
    lw      t0, 4(a3)
    lw      t1, ROW_B(a4)
    mul     t0, t0, t1
    add     a6, a6, t0
    lw      t0, 8(a3)
    lw      t1, 2*ROW_B(a4)
    mul     t0, t0, t1
    add     a6, a6, t0
    lw      t0, 12(a3)
    lw      t1, 3*ROW_B(a4)
    mul     t0, t0, t1
    add     a6, a6, t0
    lw      t0, 16(a3)
    lw      t1, 4*ROW_B(a4)
    mul     t0, t0, t1
    add     a6, a6, t0
    lw      t0, 20(a3)
    lw      t1, 5*ROW_B(a4)
    mul     t0, t0, t1
    add     a6, a6, t0
    lw      t0, 24(a3)
    lw      t1, 6*ROW_B(a4)
    mul     t0, t0, t1
    add     a6, a6, t0
    lw      t0, 28(a3)
    lw      t1, 7*ROW_B(a4)
    mul     t0, t0, t1
    add     a6, a6, t0
    addi    a3, a3, 32
    addi    a4, a4, 8*ROW_B
    bne     a3, a5, mm_dot
    sw      a6, 0(a2)
    addi    a2, a2, 16
    addi    a1, a1, 16
    addi    t5, t5, -1
    bnez    t5, mm_col
    addi    a2, a2, 4 - ROW_B       # the next residue's first column
    addi    a1, a1, 4 - ROW_B
    addi    t4, t4, -1
    bnez    t4, mm_residue
    addi    a2, a2, ROW_B - 16      # the next row of C
    addi    a0, a0, ROW_A
    addi    t6, t6, -1
    bnez    t6, mm_row

    # The second method. For each k: plain and weighted sums of A's column k and B's row k, each
    # walked backwards so the weight (index + 1) comes from a running sum instead of a multiply.
    # s6 = sum_k colsum(A)_k * rowsum(B)_k, s7 = the same over weighted sums.
    li      s6, 0
    li      s7, 0
    mv      a7, s4                  # start of B's row k
    li      t6, 0                   # 4k
ref_k:
    add     a3, s3, t6
    addi    a3, a3, (M - 1) * ROW_A # A[M-1][k]
    li      a4, 0
    li      a5, 0
    li      t5, M
ref_a:
    lw      t0, 0(a3)
    add     a4, a4, t0
    add     a5, a5, a4
    addi    a3, a3, -ROW_A
    addi    t5, t5, -1
    bnez    t5, ref_a
    addi    a3, a7, ROW_B - 16      # B[k][N-4]
    li      a0, 0
    li      a1, 0
ref_b:
    lw      t0, 12(a3)
    add     a0, a0, t0
    add     a1, a1, a0
    lw      t0, 8(a3)
    add     a0, a0, t0
    add     a1, a1, a0
    lw      t0, 4(a3)
    add     a0, a0, t0
    add     a1, a1, a0
    lw      t0, 0(a3)
    add     a0, a0, t0
    add     a1, a1, a0
    addi    a3, a3, -16
    bgeu    a3, a7, ref_b
    mul     t0, a4, a0
    add     s6, s6, t0
    mul     t0, a5, a1
    add     s7, s7, t0
    addi    a7, a7, ROW_B
    addi    t6, t6, 4
    li      t0, ROW_A
    bne     t6, t0, ref_k

    # The same two sums over C, walked backwards: s8 = sum of C, s9 = sum of (i+1)(j+1) C[i][j].
    li      s8, 0
    li      s9, 0
    li      s10, 0
    li      t0, M * ROW_B - 4
    add     a3, s5, t0              # C[M-1][N-1]
    li      t6, M
sum_row:
    li      a0, 0
    li      a1, 0
    li      t5, N
sum_col:
    lw      t0, 0(a3)
    add     a0, a0, t0
    add     a1, a1, a0
    addi    a3, a3, -4
    addi    t5, t5, -1
    bnez    t5, sum_col
    add     s8, s8, a0
    add     s10, s10, a1
    add     s9, s9, s10
    addi    t6, t6, -1
    bnez    t6, sum_row

    beqz    s8, fail
    bne     s8, s6, fail
    bne     s9, s7, fail

    # No hart arrived after the roll call was read.
    amoor.w t1, zero, (s0)
    bne     t1, s2, fail
    j       pass

fail:
    j       fail
pass:
    j       pass

    .data
    .balign 64
arrivals:   .word 0
    .balign 64

    .bss
    .balign 4096
slots:      .space MAX_HARTS * SLOT
