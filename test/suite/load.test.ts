import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { InputError } from '../../mace/errors.ts';
import { LOOP_OPTION_NAMES } from '../../mace/spec.ts';
import { ABLATION_NAMES, FAULT_METHOD_NAMES, METHODS } from '../../harness/methods/index.ts';
import { suiteJsonSchema } from '../../harness/suite/json-schema.ts';
import { loadSuite, parseSuite } from '../../harness/suite/load.ts';
import { withOverrides } from '../../harness/suite/overrides.ts';
import { ROOT, tempDir } from '../helpers.ts';
import { ARIANE_TASK, PICO_TASK, suiteText, writeSuite } from './support.ts';

const SUITES = join(ROOT, 'suites');
const dir = tempDir();

/** Load `text` from bad.yaml in a temp folder and return the error message. */
function problem(text: string): string {
  const file = writeSuite(dir, text, 'bad.yaml');
  assert.throws(() => loadSuite(file), InputError);
  try {
    loadSuite(file);
  } catch (error) {
    return (error as Error).message;
  }
  return '';
}

const good = suiteText({ methods: '[mace, expert]', tasks: PICO_TASK + ARIANE_TASK });

describe('suite files', () => {
  it('loads every shipped suite, and each says what it is for and how long it takes', () => {
    const files = readdirSync(SUITES).filter((f) => f.endsWith('.yaml'));
    assert.ok(files.length >= 5, files.join(', '));
    for (const file of files) {
      const suite = loadSuite(join(SUITES, file));
      assert.ok(suite.tasks.length > 0, file);
      const text = readFileSync(join(SUITES, file), 'utf8');
      assert.match(text, /^# .*\n#[^\n]*\n/m, `${file} opens with a comment`);
      assert.match(text, /takes|took/, `${file} says how long it takes`);
    }
  });

  it('quickstart runs offline with the scripted agent, without a login shell, MACE against every baseline', () => {
    const suite = loadSuite(join(SUITES, 'quickstart.yaml'));
    assert.equal(suite.study.checkouts.login_shell, false);
    assert.ok(suite.study.checkouts.offline);
    assert.equal(suite.study.llm?.backend, 'scripted');
    const names = suite.study.methods.map((m) => m.name);
    for (const method of ['mace', 'expert', 'one_shot', 'retry_agent']) assert.ok(names.includes(method), method);
    assert.ok(names.some((n) => ABLATION_NAMES.includes(n)));
    assert.ok(names.some((n) => FAULT_METHOD_NAMES.includes(n)));
    assert.ok(suite.tasks.some((t) => t.spec.core === 'pico') && suite.tasks.some((t) => t.spec.core === 'ariane'));
  });

  it('ablations.yaml runs every ablation and faults.yaml every seeded fault and fault check', () => {
    const ablations = loadSuite(join(SUITES, 'ablations.yaml')).study.methods.map((m) => m.name);
    for (const name of ABLATION_NAMES) assert.ok(ablations.includes(name), name);
    const faults = loadSuite(join(SUITES, 'faults.yaml')).study.methods.map((m) => m.name);
    for (const name of FAULT_METHOD_NAMES) assert.ok(faults.includes(name), name);
  });

  it('has an ablation for every loop option, named after what it removes', () => {
    for (const option of LOOP_OPTION_NAMES) {
      const ablation = ABLATION_NAMES.map((n) => METHODS.get(n)!).find((m) => option in m.options);
      assert.ok(ablation, `no ablation changes ${option}`);
    }
    assert.deepEqual(METHODS.get('no_triage')!.options, { triage: 'raw' });
    assert.equal(METHODS.get('one_checkout')!.checkouts, 'one');
  });

  it('keeps suites/suite.schema.json in step with the schema', () => {
    const committed = JSON.parse(readFileSync(join(SUITES, 'suite.schema.json'), 'utf8'));
    assert.deepEqual(
      committed,
      suiteJsonSchema(),
      'regenerate it: npx mace suite schema --out suites/suite.schema.json',
    );
  });

  it('resolves specs, budgets, expert configurations and study-defined methods', () => {
    const suite = parseSuite(
      suiteText({
        methods: `
    - mace
    - { name: raw_quick, base: no_triage, options: { narrowing: false } }
    - { name: raw_quicker, base: raw_quick, options: { fast_path: false } }`,
        tasks: `${PICO_TASK}
    budget: { max_iterations: 5 }
  - id: later
    mesh: [1, 1]
    workloads: [barrier_atomic_rv64.S]
    objective: not verified yet
    expert: { caches: { l1d: [16384, 4] } }`,
      }),
      join(dir, 'x.yaml'),
    );
    assert.deepEqual(
      suite.tasks.map((t) => t.id),
      ['pico-2x2-addi'],
      'only verified tasks by default',
    );
    const pico = suite.tasks[0]!;
    assert.deepEqual(pico.spec.budget, { max_iterations: 5, max_usd: 20, max_wall_s: 600 });
    assert.deepEqual(pico.expert.config_rtl, ['CONFIG_DISABLE_BIST_CLEAR']);
    assert.equal(suite.allTasks[1]!.spec.core, 'ariane');
    assert.deepEqual(suite.allTasks[1]!.expert.caches, { l1d: [16384, 4] });
    const quicker = suite.study.methods.find((m) => m.name === 'raw_quicker')!;
    assert.equal(quicker.method.name, 'no_triage');
    assert.deepEqual(quicker.options, { triage: 'raw', narrowing: false, fast_path: false });
    assert.equal(quicker.base, 'raw_quick');
  });

  it('lets flags override the study: methods, tasks, repeats, seed, LLM and checkouts', () => {
    const suite = parseSuite(good, join(dir, 'x.yaml'));
    const over = withOverrides(suite, {
      methods: ['expert', 'no_narrowing'],
      tasks: ['ariane-2x2-barrier'],
      repeats: 4,
      seed: 9,
      llm: { ...suite.study.llm!, model: 'other' },
      roots: ['/abs/piton'],
    });
    assert.deepEqual(
      over.study.methods.map((m) => m.name),
      ['expert', 'no_narrowing'],
    );
    assert.deepEqual(
      over.tasks.map((t) => t.id),
      ['ariane-2x2-barrier'],
    );
    assert.equal(over.study.repeats, 4);
    assert.equal(over.study.seed, 9);
    assert.equal(over.study.llm!.model, 'other');
    assert.deepEqual(over.study.checkouts.roots, ['/abs/piton']);
    assert.equal(over.study.checkouts.login_shell, false);
    assert.throws(() => withOverrides(suite, { methods: ['nope'] }), /--methods: unknown method nope/);
    assert.throws(() => withOverrides(suite, { tasks: ['nope'] }), /--tasks: no task nope/);
    assert.throws(() => withOverrides(suite, { roots: ['/a'], speed: 1 }), /--speed is a setting of offline/);
  });
});

describe('a malformed suite file', () => {
  /** Each mistake, the line it is on, and what the message must say. */
  const cases: [string, string, RegExp][] = [
    ['YAML syntax', good.replace('  repeats: 1', '  repeats: [1'), /bad\.yaml:\d+:\d+: .*(flow|collection|Flow)/],
    [
      'unknown top-level key',
      `${good}taks: []\n`,
      /bad\.yaml:24:1: unknown key "taks"; accepted: version, name, description, study, tasks/,
    ],
    [
      'unknown task key',
      good.replace('    workloads: [addi.S]', '    workload: [addi.S]'),
      /bad\.yaml:14:5: tasks\[0\]: unknown key "workload"/,
    ],
    [
      'missing field',
      good.replace('    workloads: [addi.S]\n', ''),
      /bad\.yaml:11:5: tasks\[0\]\.workloads: workloads must be a list of gate program names, got nothing/,
    ],
    [
      'wrong type',
      good.replace('mesh: [2, 2]', 'mesh: 2x2'),
      /bad\.yaml:13:11: tasks\[0\]\.mesh: mesh must be \[x_tiles, y_tiles\]/,
    ],
    [
      'unknown core',
      good.replace('core: pico', 'core: picorv'),
      /bad\.yaml:12:11: tasks\[0\]\.core: core must be one of ariane, sparc, pico, generic; got "picorv"/,
    ],
    [
      'bad budget',
      good.replace('max_iterations: 3', 'max_iterations: 0'),
      /bad\.yaml:9:29: study\.budget\.max_iterations: max_iterations must be a positive integer, got 0/,
    ],
    [
      'duplicate task id',
      good.replace('id: ariane-2x2-barrier', 'id: pico-2x2-addi'),
      /bad\.yaml:18:9: tasks\[1\]\.id: duplicate task id pico-2x2-addi \(also tasks\[0\]\)/,
    ],
    [
      'unknown method',
      good.replace('[mace, expert]', '[mace, expret]'),
      /bad\.yaml:4:19: study\.methods\[1\]: unknown method expret; known: mace, expert, /,
    ],
    [
      'unknown loop option',
      good.replace('[mace, expert]', '[mace, { name: m2, base: mace, options: { narowing: false } }]'),
      /bad\.yaml:4:54: study\.methods\[1\]\.options: unknown key "narowing"; accepted: triage/,
    ],
    [
      'options on a method that takes none',
      good.replace('[mace, expert]', '[{ name: e2, base: expert, options: { triage: raw } }]'),
      /study\.methods\[0\]\.options: expert takes no loop options/,
    ],
    [
      'way rule in the expert configuration',
      `${good}    expert: { caches: { l1d: [8192, 8] } }\n`,
      /bad\.yaml:24:23: tasks\[1\]\.expert\.caches: the expert configuration breaks Ariane's way rule: l1d has 8 ways, more than the L1\.5's 4/,
    ],
    ['duplicate key', `${good}    verified: false\n`, /bad\.yaml:24:5: Map keys must be unique/],
    [
      'bad define',
      good.replace('[CONFIG_DISABLE_BIST_CLEAR]', '[disable_bist]'),
      /bad\.yaml:17:28: tasks\[0\]\.expert\.config_rtl\[0\]: "disable_bist" is not an upper-snake-case define/,
    ],
    [
      'both roots and offline',
      good.replace('offline: 2,', 'offline: 2, roots: [/x],'),
      /bad\.yaml:8:14: study\.checkouts: give either roots: \[directories\] or offline: <count>, not both/,
    ],
    [
      'source fault outside the design',
      good.replace(
        '    verified: true\n',
        '    verified: true\n    source_fault: [{ path: piton/verif/env/x.v, old: a, new: b }]\n',
      ),
      /tasks\[0\]\.source_fault\[0\]\.path: "piton\/verif\/env\/x\.v" is outside piton\/design\//,
    ],
    [
      'workload_args for a program not run',
      good.replace('    verified: true\n', '    verified: true\n    workload_args: { lw.S: { finish_mask: "1" } }\n'),
      /tasks\[0\]\.workload_args\.lw\.S: lw\.S is not one of the workloads \(addi\.S\)/,
    ],
    [
      'a co-design grid outside its space',
      good.replace(
        '    verified: true\n',
        '    verified: true\n    codesign: { space: { l2: { sizes: [32768], assocs: [4] } }, grid: { l2_size: [65536] } }\n',
      ),
      /bad\.yaml:17:\d+: tasks\[0\]\.codesign\.grid\.l2_size: 65536 not in space\.l2\.sizes \(32768\)/,
    ],
    [
      'a co-design geometry that is not whole sets',
      good.replace(
        '    verified: true\n',
        '    verified: true\n    codesign: { space: { l2: { sizes: [65536], assocs: [3] } }, grid: { l2_assoc: [3] } }\n',
      ),
      /tasks\[0\]\.codesign\.space\.l2: l2 65536,3 is not a whole power-of-two number of 3-way sets of 64-byte lines/,
    ],
    [
      'a co-design grid larger than its simulation budget',
      good.replace(
        '    verified: true\n',
        '    verified: true\n    codesign: { simulations: 2, space: { l2: { sizes: [32768, 65536, 131072], assocs: [4] } }, grid: { l2_size: [32768, 65536, 131072] } }\n',
      ),
      /tasks\[0\]\.codesign\.grid: the grid holds 3 designs, more than simulations \(2\)/,
    ],
    [
      'the crossbar on a mesh of more than one row',
      good.replace(
        '    verified: true\n',
        '    verified: true\n    codesign: { space: { networks: [2dmesh_config, xbar_config] }, grid: { network: [xbar_config] } }\n',
      ),
      /tasks\[0\]\.codesign\.space\.networks: xbar_config needs a mesh of one row/,
    ],
    [
      "a co-design grid against Ariane's way rule",
      suiteText({
        methods: '[codesign_grid]',
        tasks:
          ARIANE_TASK +
          '\n    codesign: { space: { l1d: { sizes: [8192], assocs: [4, 8] } }, grid: { l1d_assoc: [4, 8] } }\n',
      }),
      /tasks\[0\]\.codesign\.grid: the grid holds l15=8192,4 l1d=8192,8 l1i=16384,4 l2=65536,4 network=2dmesh_config, whose l1d has 8 ways, more than the L1\.5's 4/,
    ],
    ['wrong version', good.replace('version: 1', 'version: 2'), /bad\.yaml:1:10: version: version must be 1/],
    [
      'bad LLM backend',
      good.replace('backend: scripted', 'backend: gemini'),
      /bad\.yaml:7:19: study\.llm\.backend: backend must be one of vertex, openai, scripted, replay; got "gemini"/,
    ],
  ];

  for (const [kind, text, expected] of cases) {
    it(`reports ${kind} with file:line:column and the field`, () => {
      assert.match(problem(text), expected);
    });
  }

  it('reports every problem at once, in file order', () => {
    const message = problem(good.replace('repeats: 1', 'repeats: 0').replace('mesh: [2, 2]', 'mesh: [0, 2]'));
    const lines = message.split('\n').slice(1);
    assert.equal(lines.length, 2);
    assert.match(lines[0]!, /bad\.yaml:5:12: study\.repeats/);
    assert.match(lines[1]!, /bad\.yaml:13:12: tasks\[0\]\.mesh/);
  });
});
