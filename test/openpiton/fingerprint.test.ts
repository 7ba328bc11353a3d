/** The source fingerprint sees what a build reads and nothing else. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { HASH_CONTENT_LIMIT, sourceFingerprint } from '../../mace/openpiton/fingerprint.ts';
import { tempDir } from '../helpers.ts';
import { commitAll, fakeCheckout } from './fake-checkout.ts';

const V = 'Verilator 5.006 2023-01-22';

describe('source fingerprint', () => {
  it('is stable, and changes with Verilator, tracked edits, untracked files and commits', async () => {
    const root = fakeCheckout();
    const base = await sourceFingerprint(root, V);
    assert.match(base, /^[0-9a-f]{64}$/);
    assert.equal(await sourceFingerprint(root, `  ${V}\n`), base, 'the version text is stripped');
    assert.notEqual(await sourceFingerprint(root, 'Verilator 5.020'), base);

    writeFileSync(join(root, 'build.log'), 'ignored files do not count');
    mkdirSync(join(root, 'build/manycore'), { recursive: true });
    writeFileSync(join(root, 'build/manycore/model'), 'neither do models');
    assert.equal(await sourceFingerprint(root, V), base);

    writeFileSync(join(root, 'piton/piton_settings.bash'), '# edited\n', { flag: 'a' });
    const edited = await sourceFingerprint(root, V);
    assert.notEqual(edited, base);

    writeFileSync(join(root, 'new.v'), 'module a; endmodule\n');
    const untracked = await sourceFingerprint(root, V);
    assert.notEqual(untracked, edited);
    writeFileSync(join(root, 'new.v'), 'module b; endmodule\n');
    assert.notEqual(await sourceFingerprint(root, V), untracked, 'an untracked file counts by content');

    commitAll(root);
    assert.notEqual(await sourceFingerprint(root, V), base);
  });

  it('fingerprints an untracked file over 1 MiB by size and mtime', async () => {
    const root = fakeCheckout();
    const big = join(root, 'big.bin');
    writeFileSync(big, Buffer.alloc(HASH_CONTENT_LIMIT + 1, 1));
    const when = new Date('2026-01-01T00:00:00Z');
    utimesSync(big, when, when);
    const first = await sourceFingerprint(root, V);
    writeFileSync(big, Buffer.alloc(HASH_CONTENT_LIMIT + 1, 2));
    utimesSync(big, when, when);
    assert.equal(await sourceFingerprint(root, V), first, 'same size and mtime: content is not read');
    utimesSync(big, when, new Date(when.getTime() + 5000));
    assert.notEqual(await sourceFingerprint(root, V), first);
  });

  it('includes the Ariane submodule when it is a git checkout of its own', async () => {
    const root = fakeCheckout();
    const ariane = join(root, 'piton/design/chip/tile/ariane');
    mkdirSync(ariane, { recursive: true });
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: ariane, stdio: 'pipe' });
    writeFileSync(join(ariane, 'cva6.sv'), 'module cva6; endmodule\n');
    git('init', '-q');
    git('add', '-A');
    git('commit', '-q', '-m', 'ariane');
    const before = await sourceFingerprint(root, V);
    writeFileSync(join(ariane, 'cva6.sv'), '// edited\n', { flag: 'a' });
    assert.notEqual(await sourceFingerprint(root, V), before);
  });

  it('gives a folder that is not a git checkout a stable fingerprint without complaint', async () => {
    const dir = tempDir();
    const problems: string[] = [];
    const first = await sourceFingerprint(dir, V, (p) => problems.push(p));
    assert.equal(await sourceFingerprint(dir, V), first);
    assert.deepEqual(problems, []);
  });
});
