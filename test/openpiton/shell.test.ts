/**
 * The shell layer with a stand-in sims: a hang is killed with its whole process group at the timeout
 * (no orphan left, checked by pid), a cancel stops it the same way, and huge output goes to a file
 * while memory stays flat.
 */
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { CANCEL_MARKER, TIMEOUT_MARKER } from '../../mace/openpiton/artifacts.ts';
import { makeConfig } from '../../mace/openpiton/config.ts';
import { TailBuffer, runShell } from '../../mace/openpiton/shell.ts';
import { fakeCheckout, fakeWorkspace, isRunning, testEnv } from './fake-checkout.ts';

const pico = makeConfig({ core: 'pico' });
const pidIn = (root: string, name: string) => Number(readFileSync(join(root, name), 'utf8'));

async function waitForFile(path: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      if (statSync(path).size > 0) return;
    } catch {
      // not yet
    }
    await sleep(50);
  }
  throw new Error(`${path} never appeared`);
}

describe('runShell', () => {
  it('kills a hung command and its children at the timeout, leaving no orphan', async () => {
    const root = fakeCheckout();
    const started = performance.now();
    const result = await fakeWorkspace(root, { FAKE_SIMS_HANG: '1' }).build(pico, { timeoutS: 3 });
    const elapsedS = (performance.now() - started) / 1000;
    assert.equal(result.returncode, -1);
    assert.equal(result.killed, 'timeout');
    assert.equal(result.success, false);
    assert.match(result.stderr, new RegExp(`\\n${TIMEOUT_MARKER} [\\d.]+s$`));
    assert.ok(elapsedS >= 3 && elapsedS < 15, `the build took ${elapsedS} s`);
    const child = pidIn(root, 'child.pid');
    const grandchild = pidIn(root, 'grandchild.pid');
    await sleep(200);
    assert.equal(isRunning(child), false, `child ${child} is still running`);
    assert.equal(isRunning(grandchild), false, `grandchild ${grandchild} is still running`);
  });

  it('gives a killed simulation without a verdict the timeout verdict', async () => {
    const root = fakeCheckout();
    await fakeWorkspace(root).build(pico);
    const run = await fakeWorkspace(root, { FAKE_SIMS_HANG: '1' }).run(pico, 'addi.S', { timeoutS: 2 });
    assert.equal(run.verdict, 'timeout');
    assert.equal(run.success, false);
    assert.equal(run.killed, 'timeout');
    assert.match(run.stderr, /sims timed out after 2s$/);
  });

  it('stops a command when its signal aborts, and a workspace when it closes', async () => {
    const root = fakeCheckout();
    const controller = new AbortController();
    const pending = fakeWorkspace(root, { FAKE_SIMS_HANG: '1' }).build(pico, { signal: controller.signal });
    await waitForFile(join(root, 'grandchild.pid'));
    controller.abort();
    const result = await pending;
    assert.equal(result.killed, 'cancelled');
    assert.equal(result.returncode, -1);
    assert.match(result.stderr, new RegExp(`${CANCEL_MARKER} \\d+\\.\\ds$`));
    assert.equal(isRunning(pidIn(root, 'grandchild.pid')), false);

    const closing = fakeWorkspace(root, { FAKE_SIMS_HANG: '1' });
    const running = closing.build(pico, { clean: true });
    await sleep(1500);
    closing.close();
    assert.equal((await running).killed, 'cancelled');
    await assert.rejects(closing.build(pico), /closed/);
  });

  it('streams huge output to a file and keeps only its tail in memory', async () => {
    const root = fakeCheckout();
    const megabytes = 120;
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const result = await runShell({
      root,
      core: 'pico',
      cwd: root,
      command: 'sims -vlt_build',
      timeoutS: 120,
      env: testEnv({ FAKE_SIMS_SPEW_MB: String(megabytes) }),
      stdoutPath: join(root, 'build/spew.out'),
      stderrPath: join(root, 'build/spew.err'),
    });
    clearInterval(sampler);
    assert.equal(result.returncode, 0);
    assert.ok(statSync(result.stdoutPath).size > megabytes * 1024 * 1024, 'the whole output is on disk');
    assert.ok(result.stdout.length <= 8000);
    const grewMb = (peak - before) / (1024 * 1024);
    assert.ok(grewMb < megabytes / 2, `RSS grew by ${grewMb.toFixed(0)} MB while ${megabytes} MB went through`);
  });

  it('returns -1 and says why when bash cannot start in the folder', async () => {
    const root = fakeCheckout();
    const result = await runShell({
      root,
      core: 'pico',
      cwd: join(root, 'no/such/folder'),
      command: 'sims',
      timeoutS: 30,
      env: testEnv(),
      stdoutPath: join(root, 'build/x.out'),
      stderrPath: join(root, 'build/x.err'),
    });
    assert.notEqual(result.returncode, 0);
    assert.match(result.stderr, /no\/such\/folder/);
    assert.equal(result.killed, null);
  });
});

describe('TailBuffer', () => {
  it('keeps the last characters across many pushes', () => {
    const tail = new TailBuffer(10);
    for (let i = 0; i < 100; i++) tail.push(`${i},`);
    const all = Array.from({ length: 100 }, (_, i) => `${i},`).join('');
    assert.equal(tail.text(), all.slice(-10));
    assert.equal(new TailBuffer(10).text(), '');
  });
});

describe('login shell', () => {
  const probe = (loginShell: boolean | undefined) => {
    const root = fakeCheckout();
    const dir = join(root, 'build', 'probe');
    return runShell({
      root,
      core: 'pico',
      cwd: root,
      command: 'shopt -q login_shell && echo login || echo plain',
      timeoutS: 30,
      env: testEnv(),
      stdoutPath: join(dir, 'out.log'),
      stderrPath: join(dir, 'err.log'),
      ...(loginShell === undefined ? {} : { loginShell }),
    });
  };

  it('runs a login shell by default, as the original did', async () => {
    assert.equal((await probe(undefined)).stdout.trim(), 'login');
  });

  it('skips the profile when the checkout asks for a plain shell', async () => {
    assert.equal((await probe(false)).stdout.trim(), 'plain');
  });
});
