/** The triage inspection functions: what they find, and what they refuse to read. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  collectRunFiles,
  compareToReference,
  globToRegExp,
  grepRunLog,
  hasNestedQuantifier,
  symbolCheck,
} from '../../mace/openpiton/inspect.ts';
import { tempDir } from '../helpers.ts';

function runDir(): string {
  const dir = join(tempDir('mace-run-'), 'addi.S-1-abcdef01');
  mkdirSync(dir, { recursive: true });
  const sim = [
    'rtl_timeout =       50000',
    '250: good_trap 0040000378',
    ...Array.from({ length: 20 }, (_, i) => `Current PC: 0x4000${String(i).padStart(4, '0')}`),
    '2032750: Info - > Hit Bad trap. spc(0) thread(0)',
    '2032750 : Simulation -> FAIL(HIT BAD TRAP)',
    'Reset complete',
  ];
  writeFileSync(join(dir, 'sim.log'), `${sim.join('\n')}\n`);
  writeFileSync(join(dir, 'status.log'), 'Diag: addi.S                                     FAIL (HIT BAD TRAP)\n');
  writeFileSync(join(dir, 'symbol.tbl'), 'good_trap 40000378 X 40000378\nbad_trap 40000348 X 40000348\n');
  mkdirSync(join(dir, 'sub'));
  writeFileSync(join(dir, 'sub/notes.txt'), 'nested note\n');
  writeFileSync(join(dir, 'big.log'), 'x'.repeat(5000));
  writeFileSync(join(dir, 'mem.image'), Buffer.from([0, 1, 2, 0]));
  return dir;
}

describe('grepRunLog', () => {
  const dir = runDir();

  it('shows matches with merged context, grep style', async () => {
    assert.equal(
      await grepRunLog(dir, 'sim_log', 'Bad trap|FAIL', { context: 1 }),
      [
        '22-Current PC: 0x40000019',
        '23:2032750: Info - > Hit Bad trap. spc(0) thread(0)',
        '24:2032750 : Simulation -> FAIL(HIT BAD TRAP)',
        '25-Reset complete',
      ].join('\n'),
    );
    assert.equal(
      await grepRunLog(dir, 'sim_log', '0x40000001$|0x40000005$', { context: 0 }),
      '4:Current PC: 0x40000001\n--\n8:Current PC: 0x40000005',
    );
    assert.match(await grepRunLog(dir, 'status_log', '(?i)fail'), /^1:Diag: addi.S +FAIL/);
  });

  it('caps its answer', async () => {
    const capped = await grepRunLog(dir, 'sim_log', 'Current PC', { context: 0, maxLines: 5 });
    assert.equal(capped.split('\n').length, 6);
    assert.match(capped, /stopped at 5 lines/);
  });

  it('answers with notes and errors, never by throwing', async () => {
    assert.equal(await grepRunLog(dir, 'sim_log', 'nothing like this'), "(no lines match 'nothing like this')");
    assert.equal(await grepRunLog(dir, 'fake_uart', 'x'), '(no fake_uart.log in this run)');
    assert.equal(
      await grepRunLog(dir, 'stdout', 'x'),
      "ERROR: source must be one of ['fake_uart', 'sim_log', 'status_log'], got 'stdout'",
    );
    assert.match(await grepRunLog(dir, 'sim_log', '('), /^ERROR: bad regex '\(': /);
    assert.equal(
      await grepRunLog(dir, 'sim_log', 'a'.repeat(300)),
      'ERROR: pattern is 300 characters; keep it under 256',
    );
    assert.match(
      await grepRunLog(dir, 'sim_log', '(a+)+$'),
      /^ERROR: pattern '\(a\+\)\+\$' repeats a group that itself repeats/,
    );
    assert.match(await grepRunLog('/no/such/run', 'sim_log', 'x'), /^ERROR: /);
  });

  it('refuses a log that links outside the run directory', async () => {
    const dir2 = runDir();
    const secret = join(tempDir(), 'secret.txt');
    writeFileSync(secret, 'password\n');
    symlinkSync(secret, join(dir2, 'fake_uart.log'));
    assert.equal(await grepRunLog(dir2, 'fake_uart', 'pass'), "ERROR: 'fake_uart.log' links outside the run directory");
  });

  it('spots nested quantifiers and lets ordinary patterns through', () => {
    for (const bad of ['(a+)+', '(\\w*\\s?)*', '(x|y+){2,}', '((a)+)+', '(?:ab+)*'])
      assert.equal(hasNestedQuantifier(bad), true, bad);
    for (const ok of ['(ab)+', 'a+b*', '[(+]+', '\\(a+\\)+', 'Simulation -> (PASS|FAIL)', '(?:abc)?x+'])
      assert.equal(hasNestedQuantifier(ok), false, ok);
  });
});

describe('collectRunFiles', () => {
  const dir = runDir();

  it('collects text files by glob at any depth, and skips big and binary ones', async () => {
    const all = await collectRunFiles(dir, '*', 1000);
    assert.match(all, /^6 file\(s\):/);
    assert.match(all, /\(skipped big\.log: 5000 bytes, over the 1000-byte cap\)/);
    assert.match(all, /\(skipped mem\.image: binary, 4 bytes\)/);
    assert.match(all, /--- sub\/notes\.txt ---\nnested note/);
    assert.match(await collectRunFiles(dir, '*.tbl'), /^1 file\(s\):\n--- symbol\.tbl ---\ngood_trap/);
    assert.match(await collectRunFiles(dir, 'sub/*.txt'), /^1 file\(s\):/);
    assert.match(await collectRunFiles(dir, '*', 0), /skipped sim\.log/);
    assert.match(await collectRunFiles(dir, 'big.log', null), /--- big\.log ---\nx{5000}/);
    assert.equal(await collectRunFiles(dir, '*.vcd'), `(no files under ${dir} match '*.vcd')`);
  });

  it('refuses patterns that leave the run directory and files that link out', async () => {
    assert.match(await collectRunFiles(dir, '../*'), /^ERROR: pattern '\.\.\/\*' must stay inside the run directory/);
    assert.match(await collectRunFiles(dir, '/etc/*'), /^ERROR: /);
    const secret = join(tempDir(), 'secret.txt');
    writeFileSync(secret, 'password\n');
    symlinkSync(secret, join(dir, 'leak.txt'));
    const out = await collectRunFiles(dir, 'leak.txt');
    assert.match(out, /\(skipped leak\.txt: it links outside the run directory\)/);
    assert.ok(!out.includes('password'));
  });

  it('translates globs', () => {
    assert.equal(globToRegExp('*.log').test('sim.log'), true);
    assert.equal(globToRegExp('*.log').test('a/sim.log'), false);
    assert.equal(globToRegExp('**/*.log').test('a/b/sim.log'), true);
    assert.equal(globToRegExp('**/*.log').test('sim.log'), true);
    assert.equal(globToRegExp('trace_hart_[0-9]?.dasm').test('trace_hart_01.dasm'), true);
    assert.equal(globToRegExp('[!a]*').test('abc'), false);
  });
});

describe('compareToReference', () => {
  const dir = runDir();
  const refs = tempDir('mace-refs-');
  writeFileSync(
    join(refs, 'pass.log'),
    'rtl_timeout =       50000\n250: good_trap 0040000378\nCurrent PC: 0x40000000\nCurrent PC: 0x40000999\n',
  );
  writeFileSync(join(refs, 'prefix.log'), 'rtl_timeout =       50000\n');

  it('shows where the run first departs from the reference', async () => {
    assert.equal(
      await compareToReference(dir, refs, 'pass.log', 2),
      [
        'diverges from pass.log at line 4:',
        '--- pass.log (lines 2-4) ---',
        '250: good_trap 0040000378',
        'Current PC: 0x40000000',
        'Current PC: 0x40000999',
        "--- this run's sim.log (lines 2-4) ---",
        '250: good_trap 0040000378',
        'Current PC: 0x40000000',
        'Current PC: 0x40000001',
      ].join('\n'),
    );
    assert.equal(
      await compareToReference(dir, refs, 'prefix.log'),
      'identical to prefix.log through all 1 shared line(s)',
    );
  });

  it('accepts only reference logs kept directly in the reference folder', async () => {
    assert.equal(
      await compareToReference(dir, refs, '../x.log'),
      "ERROR: unknown reference '../x.log'; available: ['pass.log', 'prefix.log']",
    );
    assert.equal(await compareToReference(tempDir(), refs, 'pass.log'), '(no sim.log in this run)');
  });
});

describe('symbolCheck', () => {
  it('reports a missing program and reads symbol.tbl', async () => {
    const out = await symbolCheck(runDir());
    assert.match(out, /--- objdump -f diag\.exe ---\n\(no diag\.exe in this run directory\)/);
    assert.match(out, /--- this run's own symbol\.tbl ---\ngood_trap 40000378 X 40000378/);
    assert.match(await symbolCheck(tempDir()), /\(not found in this run directory\)$/);
  });

  it('dumps the header and symbols of a real ELF', async () => {
    const dir = runDir();
    const exe = join(dir, 'diag.exe');
    // Any ELF will do to exercise objdump; a small one of the host's is always at hand.
    execFileSync('cp', ['/bin/true', exe]);
    const out = await symbolCheck(dir);
    if (out.startsWith("ERROR: 'objdump' was not found")) return;
    assert.match(out, /--- objdump -f diag\.exe ---\n[\s\S]*file format elf64/);
    assert.match(out, /--- objdump -t diag\.exe \(symbol table\) ---/);
    assert.match(
      await symbolCheck(dir, { objdump: 'no-such-objdump' }),
      /^ERROR: 'no-such-objdump' was not found on PATH$/,
    );
  });
});
