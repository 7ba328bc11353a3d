# producer_consumer_rv64.S: a producer and a consumer on different Ariane tiles.
#
# What it checks: hart 0 (the producer) writes data[i] = i*i + 1 for COUNT words with plain stores,
# publishing each with its own flag, ready[i] = 1, set by amoswap.w after a fence. The last hart (the
# consumer; on a mesh of one tile, the producer itself) waits for each flag, fences, reads the word
# with a plain load and compares it, and the checksum, with values it computes itself. A store that
# becomes visible after its flag makes the consumer fail.
#
# What a pass means: run with a full finish mask (one 1 per tile), the simulation passes only when
# every tile reaches the good trap (syscalls.c's pass); harts other than the consumer pass once the
# producer has published every word. A wrong word or checksum calls fail (the bad trap); a flag that
# never arrives leaves the consumer waiting, so the run times out.
#
# How a hart learns its id and the hart count: sims compiles this with rv64_cc together with
# OpenPiton's crt.S and syscalls.c, which call main(argc, argv) with argv[0][0] = hart id (mhartid)
# and argv[0][1] = harts (-DPITON_NUMTILES).
#
# Flow notes: flags are polled with AMOs (amoor.w with zero), which go to the L2, because under
# Verilator 5 Ariane's data cache can miss an invalidation and spin on a stale line; each data word
# is loaded for the first time only after its flag is seen. Every hart calls pass or fail itself, so
# syscalls.c's exit barrier (which hangs multi-tile runs under Verilator 5) is never entered. The file
# is self-contained because sims copies only the diag into the run directory.

#define COUNT 32

    .text
    .globl main
main:
    ld      t0, 0(a1)
    lbu     s1, 0(t0)               # hart id
    lbu     s2, 1(t0)               # number of harts

    bnez    s1, .Lnot_producer
    la      a0, data
    la      a1, ready
    li      t0, 0
    li      t3, 1
1:  mul     t1, t0, t0
    addi    t1, t1, 1
    slli    t2, t0, 2
    add     t4, a0, t2
    sw      t1, 0(t4)
    fence   w, w
    add     t4, a1, t2
    amoswap.w zero, t3, (t4)
    addi    t0, t0, 1
    li      t5, COUNT
    bltu    t0, t5, 1b

.Lnot_producer:
    addi    t0, s2, -1
    bne     s1, t0, .Lbystander
    la      a0, data
    la      a1, ready
    li      t0, 0
    li      s3, 0
    li      s4, 0
2:  slli    t2, t0, 2
    add     t4, a1, t2
3:  amoor.w t1, zero, (t4)
    beqz    t1, 3b
    fence   r, r
    add     t4, a0, t2
    lwu     t1, 0(t4)
    mul     t5, t0, t0
    addi    t5, t5, 1
    bne     t1, t5, .Lfail
    add     s3, s3, t1
    add     s4, s4, t5
    addi    t0, t0, 1
    li      t5, COUNT
    bltu    t0, t5, 2b
    bne     s3, s4, .Lfail
    tail    pass

.Lbystander:
    la      a1, ready
    li      t2, (COUNT - 1) * 4
    add     t4, a1, t2
4:  amoor.w t1, zero, (t4)
    beqz    t1, 4b
    tail    pass
.Lfail:
    tail    fail

    .data
    .balign 64
data:       .fill COUNT, 4, 0
    .balign 64
ready:      .fill COUNT, 4, 0
    .balign 64
