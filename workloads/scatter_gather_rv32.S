# scatter_gather_rv32.S: scatter and gather across all PicoRV32 tiles.
#
# What it checks: each hart scatters its own value, id + 1, into its slot of one shared array with a
# plain store (neighbouring slots share cache lines, so the tiles' caches contend for the same lines).
# After a barrier, every hart gathers all slots with plain loads and checks that slot i holds i + 1
# and that the sum is n(n+1)/2. A lost partial-line write, a stale line, or a barrier that lets a hart
# through early makes a hart fail.
#
# What a pass means: run with a full finish mask (one 1 per tile), the simulation passes only when
# every tile reaches `pass`. A wrong slot or sum jumps to `fail` (the bad trap); a hart stuck at the
# barrier never passes, so the run times out. Up to MAX_HARTS (64) harts.
#
# How a hart learns its id and the hart count: OpenPiton's PicoRV32 has no mhartid CSR and no tile id
# input, and rv32_as passes no tile count, so every hart takes a ticket with amoadd.w (its id, in
# arrival order) and reads the count after a settle window; all tiles leave reset together. Before
# passing, each hart checks that no ticket was drawn after its own count was taken.
#
# Flow: sims -pico assembles this with rv32_as (rv32ima) at 0x40000000; the good and bad traps are the
# `pass` and `fail` labels. The barrier counter is read with amoor.w (uncached at the L2). PicoRV32
# has no FENCE; it waits for each store before the next access. The file is self-contained because
# sims copies only the diag into the run directory.

#define MAX_HARTS 64
#define SETTLE    1000

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

    # Scatter: slots[id] = id + 1.
    la      a0, slots
    slli    t0, s1, 2
    add     t0, a0, t0
    addi    t1, s1, 1
    sw      t1, 0(t0)

    # Barrier.
    la      a1, arrived
    li      t0, 1
    amoadd.w zero, t0, (a1)
barrier_wait:
    amoor.w t1, zero, (a1)
    bltu    t1, s2, barrier_wait

    # Gather: slot i must hold i + 1, and the sum n(n+1)/2.
    li      t0, 0
    li      s3, 0
gather:
    slli    t2, t0, 2
    add     t2, a0, t2
    lw      t1, 0(t2)
    addi    t3, t0, 1
    bne     t1, t3, fail
    add     s3, s3, t1
    addi    t0, t0, 1
    bltu    t0, s2, gather
    addi    t1, s2, 1
    mul     t1, t1, s2
    srli    t1, t1, 1
    bne     s3, t1, fail

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
arrived:    .word 0
    .balign 64
slots:      .fill MAX_HARTS, 4, 0
    .balign 64
