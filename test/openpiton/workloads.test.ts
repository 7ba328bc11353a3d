/** The project's gate programs: their CHECKSUMS, and what each file must say about itself. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CHECKSUMS_FILE, parseChecksums, sha256Hex, verifyChecksums } from '../../mace/openpiton/workloads.ts';
import { ROOT, tempDir } from '../helpers.ts';

const WORKLOADS = join(ROOT, 'workloads');
const PROGRAMS = ['barrier_atomic', 'producer_consumer', 'scatter_gather', 'matmul'].flatMap((name) => [
  `${name}_rv32.S`,
  `${name}_rv64.S`,
]);

describe('workloads/', () => {
  it('holds the eight gate programs, all listed and unchanged', async () => {
    assert.deepEqual(
      readdirSync(WORKLOADS)
        .filter((n) => n.endsWith('.S'))
        .sort(),
      [...PROGRAMS].sort(),
    );
    assert.deepEqual(await verifyChecksums(WORKLOADS), []);
  });

  it('has a CHECKSUMS file that sha256sum -c accepts', () => {
    const out = execFileSync('sha256sum', ['-c', CHECKSUMS_FILE], { cwd: WORKLOADS, encoding: 'utf8' });
    assert.equal(out.trim().split('\n').length, PROGRAMS.length);
  });

  it('says in each program what it checks and what a pass means', () => {
    for (const name of PROGRAMS) {
      const text = readFileSync(join(WORKLOADS, name), 'utf8');
      assert.match(text, /^# What it checks:/m, name);
      assert.match(text, /^# What a pass means: run with a full finish mask/m, name);
      assert.match(text, /^# How a hart learns its id and the hart count:/m, name);
    }
  });

  it('keeps comment lines clear of C preprocessor directives', () => {
    // sims assembles with gcc's preprocessor: a comment line like `# line ...` or `# 16 KB` is a directive.
    const directive =
      /^#\s*(?:define|undef|include|if|ifdef|ifndef|else|elif|endif|line|error|warning|pragma|ident|\d)\b/;
    for (const name of PROGRAMS)
      readFileSync(join(WORKLOADS, name), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (!line.startsWith('#define')) assert.doesNotMatch(line, directive, `${name}:${i + 1}`);
        });
  });

  it('gives PicoRV32 programs their own pass and fail labels and Ariane programs a main', () => {
    for (const name of PROGRAMS) {
      const text = readFileSync(join(WORKLOADS, name), 'utf8');
      if (name.endsWith('_rv32.S')) assert.match(text, /^pass:\n\s+j\s+pass$/m, name);
      else {
        assert.match(text, /^main:$/m, name);
        assert.doesNotMatch(text, /^(?:pass|fail):/m, `${name} must use syscalls.c's pass and fail`);
      }
    }
  });
});

describe('verifyChecksums', () => {
  function copy(): string {
    const dir = tempDir('mace-workloads-');
    cpSync(WORKLOADS, dir, { recursive: true });
    return dir;
  }

  it('names a changed program, an unlisted one, and a listed one that is gone', async () => {
    const dir = copy();
    writeFileSync(join(dir, 'barrier_atomic_rv32.S'), '# changed\n', { flag: 'a' });
    writeFileSync(join(dir, 'extra.c'), 'int main(void) { return 0; }\n');
    rmSync(join(dir, 'scatter_gather_rv64.S'));
    const problems = await verifyChecksums(dir);
    assert.equal(problems.length, 3, problems.join('\n'));
    assert.match(
      problems[0]!,
      /^barrier_atomic_rv32\.S changed: its SHA-256 is [0-9a-f]{64}, CHECKSUMS says [0-9a-f]{64}$/,
    );
    assert.equal(problems[1], 'scatter_gather_rv64.S is listed in CHECKSUMS but no longer exists');
    assert.equal(problems[2], 'extra.c is not listed in CHECKSUMS');
  });

  it('reports a missing CHECKSUMS file and malformed lines', async () => {
    const dir = copy();
    rmSync(join(dir, CHECKSUMS_FILE));
    assert.deepEqual(await verifyChecksums(dir), [`no CHECKSUMS file in ${dir}`]);
    const parsed = parseChecksums(`# comment\n\n${sha256Hex('x')} *bin.S\nnot a line\n`);
    assert.deepEqual(parsed.entries, [{ sha256: sha256Hex('x'), name: 'bin.S' }]);
    assert.deepEqual(parsed.problems, ['CHECKSUMS line 4 is not \'<sha256>  <file>\': "not a line"']);
  });
});
