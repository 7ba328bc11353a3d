# barrier_atomic_rv32.S: a shared atomic counter between two barriers, on every PicoRV32 tile.
#
# What it checks: every hart adds 1 to one shared counter ROUNDS times with amoadd.w, between two
# barriers. After the second barrier every hart reads the counter, once atomically and once with a
# plain (cached) load, and both must equal ROUNDS * harts: a lost atomic update, a barrier that lets a
# hart through early, or a cached copy the coherence protocol failed to update makes a hart fail.
#
# What a pass means: run with a full finish mask (one 1 per tile), the simulation passes only when
# every tile reaches `pass`. Any hart that sees a wrong value jumps to `fail` (the bad trap); a hart
# stuck at a barrier never reaches `pass`, so the run times out instead.
#
# How a hart learns its id and the hart count: OpenPiton's PicoRV32 has no mhartid CSR and no tile id
# input (tile.v.pyv wires only clock, reset, memory and pico_int to it), and rv32_as passes no tile
# count to the assembler. So every hart takes a ticket from a shared counter with amoadd.w (its id, in
# arrival order) and reads the count after a settle window; all tiles leave reset together, so all
# tickets are drawn within it. Before passing, each hart checks that no ticket was drawn after its
# own count was taken.
#
# Flow: sims -pico assembles this file with rv32_as (riscv64-unknown-elf-gcc -march=rv32ima) and links
# it at 0x40000000; the good and bad trap addresses are the `pass` and `fail` labels. Shared words are
# read with AMOs (amoor.w with zero), which go to the L2 uncached, so spinning never depends on a
# cached copy. PicoRV32 decodes no FENCE (it would trap as illegal); it is in order and waits for each
# memory access, so none is needed. Every hart runs this whole program, so each file is
# self-contained: sims copies only the diag itself into the run directory.

#define ROUNDS  8
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

    # Barrier 1.
    la      a0, arrived1
    jal     ra, barrier

    # The counted section: ROUNDS atomic increments of one shared word.
    la      a1, counter
    li      t0, 1
    li      t1, ROUNDS
count:
    amoadd.w zero, t0, (a1)
    addi    t1, t1, -1
    bnez    t1, count

    # Barrier 2.
    la      a0, arrived2
    jal     ra, barrier

    # Every hart checks the total, atomically and through its cache.
    li      t0, ROUNDS
    mul     s3, s2, t0
    la      a1, counter
    amoor.w t1, zero, (a1)
    bne     t1, s3, fail
    lw      t2, 0(a1)
    bne     t2, s3, fail

    # No hart arrived after the roll call was read.
    amoor.w t1, zero, (s0)
    bne     t1, s2, fail
    j       pass

# barrier(a0 = its arrival counter): count this hart in, wait until all s2 harts are in.
barrier:
    li      t0, 1
    amoadd.w zero, t0, (a0)
barrier_wait:
    amoor.w t1, zero, (a0)
    bltu    t1, s2, barrier_wait
    ret

fail:
    j       fail
pass:
    j       pass

    .data
    .balign 64
arrivals:   .word 0
    .balign 64
arrived1:   .word 0
    .balign 64
arrived2:   .word 0
    .balign 64
counter:    .word 0
    .balign 64
