# producer_consumer_rv32.S: a producer and a consumer on different PicoRV32 tiles.
#
# What it checks: hart 0 (the producer) writes data[i] = i*i + 1 for COUNT words with plain stores,
# publishing each with its own flag, ready[i] = 1, set by amoswap.w after the data store. The last
# hart (the consumer; on a mesh of one tile, the producer itself) waits for each flag, then reads the
# word with a plain load, so the line has to come from the producer's cache through the L2 directory.
# It compares every word and the checksum with values it computes itself. A store that becomes visible
# after its flag, or a stale line, makes the consumer fail.
#
# What a pass means: run with a full finish mask (one 1 per tile), the simulation passes only when
# every tile reaches `pass`: harts other than the consumer pass once the producer has published all
# words. A wrong word or checksum jumps to `fail` (the bad trap); a flag that never arrives leaves
# the consumer waiting, so the run times out.
#
# How a hart learns its id and the hart count: OpenPiton's PicoRV32 has no mhartid CSR and no tile id
# input, and rv32_as passes no tile count, so every hart takes a ticket with amoadd.w (its id, in
# arrival order) and reads the count after a settle window; all tiles leave reset together. Before
# passing, each hart checks that no ticket was drawn after its own count was taken.
#
# Flow: sims -pico assembles this with rv32_as (rv32ima) at 0x40000000; the good and bad traps are the
# `pass` and `fail` labels. Flags are read with amoor.w, which goes to the L2 uncached. PicoRV32 has no
# FENCE (it would trap as illegal); it waits for each store before the next access. The file is
# self-contained because sims copies only the diag into the run directory.

#define COUNT   32
#define SETTLE  1000

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

    bnez    s1, not_producer
    # Producer: data[i] = i*i + 1, then ready[i] = 1.
    la      a0, data
    la      a1, ready
    li      t0, 0
    li      t3, 1
produce:
    mul     t1, t0, t0
    addi    t1, t1, 1
    slli    t2, t0, 2
    add     t4, a0, t2
    sw      t1, 0(t4)
    add     t4, a1, t2
    amoswap.w zero, t3, (t4)
    addi    t0, t0, 1
    li      t5, COUNT
    bltu    t0, t5, produce

not_producer:
    addi    t0, s2, -1
    bne     s1, t0, bystander
    # Consumer: wait for each flag, check each word, sum them.
    la      a0, data
    la      a1, ready
    li      t0, 0
    li      s3, 0
    li      s4, 0
consume:
    slli    t2, t0, 2
    add     t4, a1, t2
wait_ready:
    amoor.w t1, zero, (t4)
    beqz    t1, wait_ready
    add     t4, a0, t2
    lw      t1, 0(t4)
    mul     t5, t0, t0
    addi    t5, t5, 1
    bne     t1, t5, fail
    add     s3, s3, t1
    add     s4, s4, t5
    addi    t0, t0, 1
    li      t5, COUNT
    bltu    t0, t5, consume
    bne     s3, s4, fail
    j       finish

bystander:
    # Wait until the producer has published its last word.
    la      a1, ready
    li      t2, (COUNT - 1) * 4
    add     t4, a1, t2
wait_last:
    amoor.w t1, zero, (t4)
    beqz    t1, wait_last

finish:
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
data:       .fill COUNT, 4, 0
    .balign 64
ready:      .fill COUNT, 4, 0
    .balign 64
