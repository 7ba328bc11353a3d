# memwalk160k.S - MACE-TS calibration diag for PicoRV32 (not part of OpenPiton).
#
# Reads one word from each 64-byte line of a 160 KB array, front to back, twice. The array is larger
# than any L1.5, so the second pass measures the L2: it stays on chip only while the tiles' L2
# slices together hold 160 KB. Every line's first word is 1: the sum must be 2 x 2560 = 5120.
# Run it with -asm_diag_root=<this folder> -rtl_timeout=4000000 -max_cycle=4000000.

#include "riscv_test.h"
#include "test_macros.h"

RVTEST_RV32U
RVTEST_CODE_BEGIN

  li   TESTNUM, 2
  li   t0, 0                # running sum
  li   t1, 2                # passes left
next_pass:
  la   t2, walk_data        # cursor
  li   t3, 163840
  add  t3, t2, t3           # end of the array
next_line:
  lw   t4, 0(t2)
  add  t0, t0, t4
  addi t2, t2, 64
  bltu t2, t3, next_line
  addi t1, t1, -1
  bnez t1, next_pass
  li   t5, 5120
  bne  t0, t5, fail

  TEST_PASSFAIL

RVTEST_CODE_END

  .data
RVTEST_DATA_BEGIN

  TEST_DATA
  .balign 64
walk_data:
  .rept 2560
  .word 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
  .endr

RVTEST_DATA_END
