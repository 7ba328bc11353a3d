/**
 * The Optuna bridge against Debian's real python3-optuna (scripts/setup.sh installs it): seeded
 * reproducibility, TPE learning from its tells, and clear errors when the Python side dies. The only
 * mocks are tiny fake "python" shell scripts at the true edge, for failures real Optuna cannot be made
 * to produce on demand (optuna missing, a crash inside a request, a process that ignores close).
 */
import assert from 'node:assert/strict';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { OptunaStudy, type KnobValue, type OptunaKnob } from '../../mace/codesign/optuna.ts';
import { tempDir } from '../helpers.ts';

const SIZES = ['4K', '8K', '16K', '32K'];
const KNOBS: OptunaKnob[] = [
  { name: 'ways', values: [1, 2, 4, 8] },
  { name: 'size', values: SIZES },
];

/** Distance from the one optimum, ways 4 and size 8K; every other point costs at least 1. */
function cost(params: Record<string, KnobValue>): number {
  return Math.abs(Math.log2(Number(params.ways)) - 2) + Math.abs(SIZES.indexOf(String(params.size)) - 1);
}

/** Run `trials` ask/tell rounds on `cost` and return the params asked, in order. */
async function search(seed: number, trials: number): Promise<Record<string, KnobValue>[]> {
  const study = await OptunaStudy.open({ knobs: KNOBS, seed });
  try {
    const asked = [];
    for (let i = 0; i < trials; i++) {
      const { trial, params } = await study.ask();
      asked.push(params);
      await study.tell(trial, cost(params));
    }
    return asked;
  } finally {
    await study.close();
  }
}

/** Edge mock: a fake python that runs `body` (sh) instead of the bridge. */
function fakePython(body: string): string {
  const path = join(tempDir('mace-optuna-'), 'python3');
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

describe('OptunaStudy', () => {
  // Each study is a Python process that spends about a second importing optuna, so the three searches
  // (seed 1 twice, seed 2 once) run side by side and serve two tests.
  type Asked = Record<string, KnobValue>[];
  let runs: [Asked, Asked, Asked] = [[], [], []];
  before(async () => {
    runs = await Promise.all([search(1, 30), search(1, 30), search(2, 30)]);
  });

  it('is reproducible from its seed, and keeps the JSON types of the values', () => {
    const [first, again, other] = runs;
    assert.deepEqual(again, first);
    assert.notDeepEqual(other, first);
    for (const params of first) {
      assert.equal(typeof params.ways, 'number');
      assert.ok(SIZES.includes(params.size as string));
    }
  });

  it('learns from its tells: after 10 startup trials TPE asks for the optimum far more than uniform would', () => {
    const asked = [runs[0], runs[2]].flatMap((run) => run.slice(10));
    const hits = asked.filter((params) => cost(params) === 0).length;
    // Uniform sampling over 16 points expects 40 / 16 = 2.5 hits in these 40 asks; TPE gets about 20.
    assert.ok(hits >= 10, `TPE asked for the optimum ${hits} times in 40 asks`);
  });

  it('answers a bad request with an error and keeps serving; once Python is killed, every call says so', async () => {
    const study = await OptunaStudy.open({ knobs: KNOBS, seed: 1 });
    assert.match(study.optunaVersion, /^3\./);
    await assert.rejects(study.tell(99, 1), /optuna bridge: .*trial with number 99/);
    const { trial } = await study.ask();
    await study.tell(trial, 1);
    await assert.rejects(study.tell(trial, 2), /optuna bridge: .*COMPLETE/);
    await assert.rejects(study.tell(trial, Number.NaN), /finite value/);
    assert.equal((await study.ask()).trial, 1);

    process.kill(study.pid!, 'SIGKILL');
    const crash = /optuna bridge \(.*optuna-bridge\.py\) was killed by SIGKILL/;
    await assert.rejects(study.ask(), crash);
    await assert.rejects(study.tell(1, 1), crash);
    await study.close();
    await study.close();
    await assert.rejects(study.ask(), /the study is closed/);
  });

  it('rejects bad knobs when the study opens', async () => {
    await assert.rejects(
      OptunaStudy.open({ knobs: [{ name: 'ways', values: [] }], seed: 1 }),
      /optuna bridge: knobs\[0\] \(ways\)\.values must be a non-empty list/,
    );
  });

  it('rejects the request in flight when Python dies inside it, with its exit code and stderr', async () => {
    const python = fakePython(
      `read config; echo '{"ok": true, "optuna": "fake"}'; read ask
       echo 'Traceback (most recent call last):' >&2; echo 'RuntimeError: sampler blew up' >&2; exit 3`,
    );
    const study = await OptunaStudy.open({ knobs: KNOBS, seed: 1, python });
    await assert.rejects(
      study.ask(),
      /optuna bridge \(.*\) exited with code 3; stderr:\n.*\nRuntimeError: sampler blew up/,
    );
    await study.close();
  });

  it('names scripts/setup.sh when the python cannot import optuna (also through MACE_PYTHON)', async () => {
    const python = fakePython(`echo "ModuleNotFoundError: No module named 'optuna'" >&2; exit 1`);
    const missing = /cannot import optuna; run scripts\/setup\.sh .*python3-optuna/;
    await assert.rejects(OptunaStudy.open({ knobs: KNOBS, seed: 1, python }), missing);
    const saved = process.env.MACE_PYTHON;
    process.env.MACE_PYTHON = python;
    try {
      await assert.rejects(OptunaStudy.open({ knobs: KNOBS, seed: 1 }), missing);
    } finally {
      if (saved === undefined) delete process.env.MACE_PYTHON;
      else process.env.MACE_PYTHON = saved;
    }
  });

  it('says which python it could not start', async () => {
    await assert.rejects(
      OptunaStudy.open({ knobs: KNOBS, seed: 1, python: '/nonexistent/python3' }),
      /cannot start \/nonexistent\/python3 .*ENOENT/,
    );
  });

  it('kills a bridge that does not exit when closed', async () => {
    const python = fakePython(`read config; echo '{"ok": true, "optuna": "fake"}'; exec sleep 30`);
    const study = await OptunaStudy.open({ knobs: KNOBS, seed: 1, python });
    const pid = study.pid!;
    await study.close();
    assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' });
  });
});
