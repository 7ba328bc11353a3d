# matmul_rv64.S: an integer matrix product on every Ariane tile, sized so the caches matter.
#
# What it checks: the same program as matmul_rv32.S. Every hart fills its own A (2x48) and B (48x48)
# with a sequence seeded by its id, computes C = A x B (2x48), and checks C by a second
# method: the sum of C's entries must equal sum_k colsum(A)_k * rowsum(B)_k, and the sum weighted by
# (i+1)(j+1) the same identity over weighted sums. Elements and sums are 32-bit words (lw, mulw,
# addw), so every value matches the PicoRV32 version's, modulo 2^32.
#
# What a pass means: run with a full finish mask (one 1 per tile), the simulation passes only when
# every tile reaches the good trap (syscalls.c's pass). A failed check calls fail (the bad trap).
#
# Why this size: a hart's data is 9.75 KB (A 384 B, B 9216 B, C 384 B), so it fits neither the
# default 8 KB L1D nor the 8 KB L1.5, but fits 16 KB ones. C's columns are taken four apart, so the
# four words of a B line are used a whole walk of B apart and hit only in a cache that holds B. The
# mesh's data fits in four 16 KB L2 slices. The matrices live in a 16 KB slot at the top of the
# hart's own stack (crt.S gives each hart 128 KB), 4 KB aligned and starting 0x300 bytes in, as in
# the PicoRV32 version.
#
# How a hart learns its id and the hart count: sims compiles this with rv64_cc together with
# OpenPiton's crt.S and syscalls.c, which call main(argc, argv) with argv[0][0] = hart id (mhartid)
# and argv[0][1] = harts (-DPITON_NUMTILES).
#
# Flow notes: every hart calls pass or fail itself, so syscalls.c's exit barrier (which hangs
# multi-tile runs under Verilator 5) is never entered; pass and fail run on the stack below the slot.
# The file is self-contained because sims copies only the diag into the run directory.

#define M           2               /* rows of A and C */
#define K           48              /* columns of A, rows of B */
#define N           48              /* columns of B and C */
#define SLOT        16384           /* bytes taken from the top of the hart's stack */
#define DATA_OFFSET 0x300           /* where the slot's matrices start */
#define MAX_HARTS   64
#define SEED_STEP   0x9e3779b9      /* seed = (id + 1) * SEED_STEP */
#define STEP        0x3c6ef35f      /* odd: the sequence x <- x + STEP never repeats within a slot */

#define A_BYTES     (M * K * 4)
#define B_BYTES     (K * N * 4)
#define ROW_B       (N * 4)         /* bytes in one row of B and C */
#define ROW_A       (K * 4)         /* bytes in one row of A */

    .text
    .globl main
main:
    ld      t0, 0(a1)
    lbu     s1, 0(t0)               # hart id
    lbu     s2, 1(t0)               # number of harts
    li      t0, MAX_HARTS
    bgtu    s2, t0, .Lfail

    # The slot: s3 = A, s4 = B (right after A), s5 = C (right after B).
    li      t0, SLOT
    sub     sp, sp, t0
    li      t0, -4096
    and     sp, sp, t0
    addi    s3, sp, DATA_OFFSET
    li      t0, A_BYTES
    add     s4, s3, t0
    li      t0, B_BYTES
    add     s5, s4, t0

    # Fill A and B (contiguous) from the hart's own sequence: x <- x + STEP, an element is x >> 22.
    li      t0, SEED_STEP
    addi    t1, s1, 1
    mulw    t2, t0, t1
    li      t3, STEP
    mv      a3, s3
fill:
    addw    t2, t2, t3
    srliw   t0, t2, 22
    sw      t0, 0(a3)
    addw    t2, t2, t3
    srliw   t0, t2, 22
    sw      t0, 4(a3)
    addw    t2, t2, t3
    srliw   t0, t2, 22
    sw      t0, 8(a3)
    addw    t2, t2, t3
    srliw   t0, t2, 22
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
    mulw    t0, t0, t1
    addw    a6, a6, t0
    lw      t0, 4(a3)
    lw      t1, ROW_B(a4)
    mulw    t0, t0, t1
    addw    a6, a6, t0
    lw      t0, 8(a3)
    lw      t1, 2*ROW_B(a4)
    mulw    t0, t0, t1
    addw    a6, a6, t0
    lw      t0, 12(a3)
    lw      t1, 3*ROW_B(a4)
    mulw    t0, t0, t1
    addw    a6, a6, t0
    lw      t0, 16(a3)
    lw      t1, 4*ROW_B(a4)
    mulw    t0, t0, t1
    addw    a6, a6, t0
    lw      t0, 20(a3)
    lw      t1, 5*ROW_B(a4)
    mulw    t0, t0, t1
    addw    a6, a6, t0
    lw      t0, 24(a3)
    lw      t1, 6*ROW_B(a4)
    mulw    t0, t0, t1
    addw    a6, a6, t0
    lw      t0, 28(a3)
    lw      t1, 7*ROW_B(a4)
    mulw    t0, t0, t1
    addw    a6, a6, t0
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
    addw    a4, a4, t0
    addw    a5, a5, a4
    addi    a3, a3, -ROW_A
    addi    t5, t5, -1
    bnez    t5, ref_a
    addi    a3, a7, ROW_B - 16      # B[k][N-4]
    li      a0, 0
    li      a1, 0
ref_b:
    lw      t0, 12(a3)
    addw    a0, a0, t0
    addw    a1, a1, a0
    lw      t0, 8(a3)
    addw    a0, a0, t0
    addw    a1, a1, a0
    lw      t0, 4(a3)
    addw    a0, a0, t0
    addw    a1, a1, a0
    lw      t0, 0(a3)
    addw    a0, a0, t0
    addw    a1, a1, a0
    addi    a3, a3, -16
    bgeu    a3, a7, ref_b
    mulw    t0, a4, a0
    addw    s6, s6, t0
    mulw    t0, a5, a1
    addw    s7, s7, t0
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
    addw    a0, a0, t0
    addw    a1, a1, a0
    addi    a3, a3, -4
    addi    t5, t5, -1
    bnez    t5, sum_col
    addw    s8, s8, a0
    addw    s10, s10, a1
    addw    s9, s9, s10
    addi    t6, t6, -1
    bnez    t6, sum_row

    beqz    s8, .Lfail
    bne     s8, s6, .Lfail
    bne     s9, s7, .Lfail

    tail    pass
.Lfail:
    tail    fail
