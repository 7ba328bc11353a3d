# barrier_atomic_rv64.S: a shared atomic counter between two barriers, on every Ariane tile.
#
# What it checks: every hart adds 1 to one shared counter ROUNDS times with amoadd.w, between two
# barriers. After the second barrier every hart reads the counter, once atomically and once with a
# plain load, and both must equal ROUNDS * harts: a lost atomic update, a barrier that lets a hart
# through early, or a stale cached copy makes a hart fail.
#
# What a pass means: run with a full finish mask (one 1 per tile), the simulation passes only when
# every tile reaches the good trap (syscalls.c's pass). A hart that sees a wrong value calls fail (the
# bad trap); a hart stuck at a barrier never passes, so the run times out instead.
#
# How a hart learns its id and the hart count: sims compiles this with rv64_cc together with
# OpenPiton's crt.S and syscalls.c. crt.S reads mhartid and the tile count (-DPITON_NUMTILES, which
# sims passes), and syscalls.c calls main(argc, argv) with argv[0][0] = hart id, argv[0][1] = harts.
#
# Flow notes: shared words are polled and read with AMOs (amoor.w with zero), which the L1.5 sends
# to the L2, because under Verilator 5 Ariane's data cache can miss an invalidation and spin on a
# stale line. Every hart calls pass or fail itself instead of returning from main, so syscalls.c's
# exit barrier (plain-load polling, which hangs multi-tile runs under Verilator 5) is never entered.
# The file is self-contained because sims copies only the diag into the run directory.

#define ROUNDS 8

    .text
    .globl main
main:
    ld      t0, 0(a1)
    lbu     s1, 0(t0)               # hart id
    lbu     s2, 1(t0)               # number of harts

    la      a0, arrived1
    call    barrier

    la      a1, counter
    li      t0, 1
    li      t1, ROUNDS
1:  amoadd.w zero, t0, (a1)
    addi    t1, t1, -1
    bnez    t1, 1b

    la      a0, arrived2
    call    barrier

    li      t0, ROUNDS
    mul     s3, s2, t0
    la      a1, counter
    amoor.w t1, zero, (a1)
    bne     t1, s3, .Lfail
    lwu     t2, 0(a1)
    bne     t2, s3, .Lfail
    tail    pass
.Lfail:
    tail    fail

# barrier(a0 = its arrival counter): count this hart in, wait until all s2 harts are in.
barrier:
    fence   rw, rw
    li      t0, 1
    amoadd.w zero, t0, (a0)
2:  amoor.w t1, zero, (a0)
    bltu    t1, s2, 2b
    fence   rw, rw
    ret

    .data
    .balign 64
arrived1:   .word 0
    .balign 64
arrived2:   .word 0
    .balign 64
counter:    .word 0
    .balign 64
