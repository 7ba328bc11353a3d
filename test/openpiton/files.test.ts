/** Reading logs too large to hold: streaming scans and tails, and missing files. */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileSize, readTail, scanFile } from '../../mace/openpiton/files.ts';
import { SimLogScanner, verdictOf } from '../../mace/openpiton/parse.ts';
import { tempDir } from '../helpers.ts';

describe('log files', () => {
  const dir = tempDir();

  it('scans a file line by line with the same rules as the text parsers', async () => {
    const path = join(dir, 'sim.log');
    const lines = [
      '3279750: Simulation -> PASS (HIT GOOD TRAP)',
      ...Array.from({ length: 50_000 }, (_, i) => `Current PC: ${i}`),
      '9 : Simulation -> FAIL(HIT BAD TRAP)',
    ];
    writeFileSync(path, lines.join('\r\n'));
    const scanner = new SimLogScanner();
    assert.equal(await scanFile(path, scanner), true);
    assert.equal(verdictOf(scanner.facts()), 'fail');
    assert.equal(scanner.facts().simTime, 3279750);
  });

  it('reads the tail of a file by characters, across multi-byte text', async () => {
    const path = join(dir, 'uart.log');
    writeFileSync(path, `${'é'.repeat(10_000)}end`);
    const tail = await readTail(path, 5);
    assert.equal(tail, 'éééend'.slice(-5));
    assert.equal((await readTail(path, 100_000)).length, 10_003);
  });

  it('treats a missing file as empty', async () => {
    const missing = join(dir, 'no.log');
    assert.equal(await scanFile(missing, new SimLogScanner()), false);
    assert.equal(await readTail(missing, 10), '');
    assert.equal(await fileSize(missing), 0);
  });
});
