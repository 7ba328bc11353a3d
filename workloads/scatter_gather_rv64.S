# scatter_gather_rv64.S: scatter and gather across all Ariane tiles.
#
# What it checks: each hart scatters its own value, id + 1, into its slot of one shared array with a
# plain store (neighbouring slots share cache lines). After a barrier, every hart gathers all slots
# and checks that slot i holds i + 1 and that the sum is n(n+1)/2. A lost partial-line write or a
# barrier that lets a hart through early makes a hart fail. Up to MAX_HARTS (64) harts.
#
# What a pass means: run with a full finish mask (one 1 per tile), the simulation passes only when
# every tile reaches the good trap (syscalls.c's pass). A wrong slot or sum calls fail (the bad
# trap); a hart stuck at the barrier never passes, so the run times out.
#
# How a hart learns its id and the hart count: sims compiles this with rv64_cc together with
# OpenPiton's crt.S and syscalls.c, which call main(argc, argv) with argv[0][0] = hart id (mhartid)
# and argv[0][1] = harts (-DPITON_NUMTILES).
#
# Flow notes: the barrier and the gather read shared words with AMOs (amoor.w with zero), which go
# to the L2, because under Verilator 5 Ariane's data cache can miss an invalidation and keep a stale
# copy. Every hart calls pass or fail itself, so syscalls.c's exit barrier (which hangs multi-tile
# runs under Verilator 5) is never entered. The file is self-contained because sims copies only the
# diag into the run directory.

#define MAX_HARTS 64

    .text
    .globl main
main:
    ld      t0, 0(a1)
    lbu     s1, 0(t0)               # hart id
    lbu     s2, 1(t0)               # number of harts
    li      t0, MAX_HARTS
    bgtu    s2, t0, .Lfail

    la      a0, slots
    slli    t0, s1, 2
    add     t0, a0, t0
    addi    t1, s1, 1
    sw      t1, 0(t0)
    fence   rw, rw

    la      a1, arrived
    li      t0, 1
    amoadd.w zero, t0, (a1)
1:  amoor.w t1, zero, (a1)
    bltu    t1, s2, 1b
    fence   rw, rw

    li      t0, 0
    li      s3, 0
2:  slli    t2, t0, 2
    add     t2, a0, t2
    amoor.w t1, zero, (t2)
    addi    t3, t0, 1
    bne     t1, t3, .Lfail
    add     s3, s3, t1
    addi    t0, t0, 1
    bltu    t0, s2, 2b
    addi    t1, s2, 1
    mul     t1, t1, s2
    srli    t1, t1, 1
    bne     s3, t1, .Lfail
    tail    pass
.Lfail:
    tail    fail

    .data
    .balign 64
arrived:    .word 0
    .balign 64
slots:      .fill MAX_HARTS, 4, 0
    .balign 64
