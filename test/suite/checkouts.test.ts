import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { CLAIM_FILE, claimCheckouts } from '../../harness/runner/claim.ts';
import { clearBuildCache } from '../../harness/runner/checkouts.ts';
import { checkoutIdentity, poolIdentity } from '../../harness/runner/identity.ts';
import { InputError } from '../../mace/errors.ts';
import { tempDir } from '../helpers.ts';

const dir = tempDir();

/** A git checkout with one design file, committed with the given date (content equal, commits not). */
function repo(name: string, date: string): string {
  const root = join(dir, name);
  mkdirSync(join(root, 'piton/design'), { recursive: true });
  writeFileSync(join(root, 'piton/design/top.v'), 'module top; endmodule\n');
  writeFileSync(join(root, '.gitignore'), 'build/\n');
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: root,
      env: {
        ...process.env,
        GIT_AUTHOR_DATE: date,
        GIT_COMMITTER_DATE: date,
        GIT_AUTHOR_NAME: 't',
        GIT_AUTHOR_EMAIL: 't@t',
        GIT_COMMITTER_NAME: 't',
        GIT_COMMITTER_EMAIL: 't@t',
      },
    });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', 'x');
  return root;
}

describe('checkouts', () => {
  it('clear only the built models (build/manycore/mace_*) for an empty build cache', () => {
    const root = join(dir, 'cache');
    for (const d of [
      'build/manycore/mace_0123456789ab/obj_dir',
      'build/manycore/mace_ba9876543210',
      'build/manycore/other',
    ])
      mkdirSync(join(root, d), { recursive: true });
    writeFileSync(join(root, 'build/manycore/mace_file'), '');
    assert.equal(clearBuildCache(root), 2);
    assert.ok(!existsSync(join(root, 'build/manycore/mace_0123456789ab')));
    assert.ok(existsSync(join(root, 'build/manycore/other')) && existsSync(join(root, 'build/manycore/mace_file')));
    assert.equal(clearBuildCache(join(dir, 'none')), 0);
  });

  it('have an identity of their content: equal clones match, an edit or an untracked file differs', async () => {
    const a = repo('a', '2026-01-01T00:00:00Z');
    const b = repo('b', '2026-02-01T00:00:00Z');
    assert.equal(await checkoutIdentity(a), await checkoutIdentity(b));
    const pool = await poolIdentity([a, b]);
    assert.equal(pool, await poolIdentity([a]), 'adding a checkout like the others changes nothing');
    mkdirSync(join(b, 'build'), { recursive: true });
    writeFileSync(join(b, 'build/ignored.log'), 'x');
    assert.equal(await checkoutIdentity(b), await checkoutIdentity(a), 'ignored build output does not count');
    writeFileSync(join(b, 'piton/design/top.v'), 'module top; wire x; endmodule\n');
    assert.notEqual(await checkoutIdentity(b), await checkoutIdentity(a));
    assert.notEqual(await poolIdentity([a, b]), pool);
    const c = repo('c', '2026-01-01T00:00:00Z');
    writeFileSync(join(c, 'piton/design/new.v'), '');
    assert.notEqual(await checkoutIdentity(c), await checkoutIdentity(a));
  });

  it('are claimed by one sweep at a time; a dead sweep’s claim is taken over', () => {
    const roots = [join(dir, 'claim-a'), join(dir, 'claim-b')];
    const release = claimCheckouts(roots, 'sweep1');
    assert.ok(roots.every((r) => existsSync(join(r, 'build', CLAIM_FILE))));
    release();
    assert.ok(roots.every((r) => !existsSync(join(r, 'build', CLAIM_FILE))));

    const other = spawn('sleep', ['30'], { stdio: 'ignore' });
    after(() => other.kill());
    writeFileSync(join(roots[1]!, 'build', CLAIM_FILE), `${other.pid} ${hostname()} busy1\n`);
    assert.throws(
      () => claimCheckouts(roots, 'sweep2'),
      (e: Error) => e instanceof InputError && /in use by sweep busy1/.test(e.message),
    );
    assert.ok(!existsSync(join(roots[0]!, 'build', CLAIM_FILE)), 'a refused claim keeps none');

    writeFileSync(join(roots[1]!, 'build', CLAIM_FILE), `999999 ${hostname()} dead\n`);
    claimCheckouts(roots, 'sweep3')();
  });
});
