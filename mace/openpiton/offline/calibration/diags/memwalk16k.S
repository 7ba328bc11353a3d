# memwalk16k.S - MACE-TS calibration diag for PicoRV32 (not part of OpenPiton).
#
# Reads one word from each 16-byte line of a 16 KB array, front to back, twice. The second pass hits
# in the L1.5 only when the L1.5 holds the whole array, so its time measures the L1.5 size. Every
# line's first word is 1: the sum must be 2 x 1024 = 2048 (good trap), anything else is a bad trap.
# Run it with -asm_diag_root=<this folder> and -rtl_timeout=1000000 (it takes ~130k cycles).

#include "riscv_test.h"
#include "test_macros.h"

RVTEST_RV32U
RVTEST_CODE_BEGIN

  li   TESTNUM, 2
  li   t0, 0                # running sum
  li   t1, 2                # passes left
next_pass:
  la   t2, walk_data        # cursor
  li   t3, 16384
  add  t3, t2, t3           # end of the array
next_line:
  lw   t4, 0(t2)
  add  t0, t0, t4
  addi t2, t2, 16
  bltu t2, t3, next_line
  addi t1, t1, -1
  bnez t1, next_pass
  li   t5, 2048
  bne  t0, t5, fail

  TEST_PASSFAIL

RVTEST_CODE_END

  .data
RVTEST_DATA_BEGIN

  TEST_DATA
  .balign 64
walk_data:
  .rept 1024
  .word 1, 0, 0, 0
  .endr

RVTEST_DATA_END
