import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findTag, parseDiagnosis, parsePostMortem, parseTasks } from '../../mace/directives.ts';

describe('directive lines (planner seed examples)', () => {
  it('parses the seed example plan', () => {
    const reply = [
      'TASK: base | deps= | kind=workload | Run the gate workload on the default caches',
      'TASK: l1d_8way | deps=base | kind=config | Rebuild with an 8-way L1D and run it again',
      'CACHES: l1d_8way | l1d=8192,8',
    ].join('\n');
    const { tasks, dropped } = parseTasks(reply);
    assert.deepEqual(dropped, []);
    assert.deepEqual(tasks, [
      {
        id: 'base',
        deps: [],
        kind: 'workload',
        instruction: 'Run the gate workload on the default caches',
        caches: null,
        config_rtl: null,
        network: null,
      },
      {
        id: 'l1d_8way',
        deps: ['base'],
        kind: 'config',
        instruction: 'Rebuild with an 8-way L1D and run it again',
        caches: { l1d: [8192, 8] },
        config_rtl: null,
        network: null,
      },
    ]);
  });

  it('accepts list markers and any case for tags', () => {
    for (const marker of ['- ', '* ', '• ', '1. ', '2) ', '   ']) {
      const { tasks } = parseTasks(`${marker}task: t | deps= | kind=config | do it`);
      assert.equal(tasks.length, 1, JSON.stringify(marker));
    }
  });

  it('ends a value before another known tag on the same line', () => {
    assert.deepEqual(parseDiagnosis('DIAGNOSIS: timeout FIX: raise rtl_timeout'), {
      diagnosis: 'timeout',
      fix: 'raise rtl_timeout',
    });
    const { tasks } = parseTasks('TASK: a | deps= | kind=config | build CONFIG_RTL: a | FOO_BAR');
    assert.equal(tasks[0]!.instruction, 'build');
    assert.deepEqual(tasks[0]!.config_rtl, ['FOO_BAR']);
  });

  it('reads a bare known kind as kind=', () => {
    const { tasks, unknownKinds } = parseTasks('TASK: fix | deps= | rtl | Patch the adapter');
    assert.deepEqual(unknownKinds, []);
    assert.equal(tasks[0]!.kind, 'rtl');
  });

  it('drops malformed lines without an error and reports why', () => {
    const { tasks, dropped, unknownKinds } = parseTasks(
      [
        'TASK: a | deps= | kind=config',
        'TASK: b | kind=config | x | y',
        'TASK: c | deps= | kind=test | x',
        'TASK:  | deps= | kind=config | empty id',
        'TASK: d | deps=, | kind=config | fine',
      ].join('\n'),
    );
    assert.deepEqual(
      tasks.map((t) => t.id),
      ['d'],
    );
    assert.deepEqual(tasks[0]!.deps, []);
    assert.equal(unknownKinds.length, 1);
    assert.equal(dropped.length, 4);
    assert.match(dropped[0]!.reason, /needs 4 \|-separated fields/);
    assert.match(dropped[1]!.reason, /second field must be deps=/);
    assert.match(dropped[3]!.reason, /id must not be empty/);
  });

  it('does not let an empty tag line swallow the next line', () => {
    const { tasks } = parseTasks('TASK:\nTASK: t2 | deps= | kind=config | x');
    assert.deepEqual(
      tasks.map((t) => t.id),
      ['t2'],
    );
    assert.equal(parseDiagnosis('DIAGNOSIS:\nFIX: x'), undefined);
  });

  it('merges CACHES lines with later values winning and drops bad entries', () => {
    const { tasks, dropped } = parseTasks(
      [
        'TASK: t | deps= | kind=config | x',
        'CACHES: t | l1d=8192,4 l2=65536,8',
        'CACHES: t | l1d=16384,8 l3=1024,1 l15=big,1 l15=0,1',
        'CACHES: t l1d=1,1',
      ].join('\n'),
    );
    assert.deepEqual(tasks[0]!.caches, { l1d: [16384, 8], l2: [65536, 8] });
    assert.deepEqual(
      dropped.map((d) => d.text),
      ['l3=1024,1', 'l15=big,1', 'l15=0,1', 't l1d=1,1'],
    );
  });

  it('forms a sorted union of CONFIG_RTL flags and keeps only upper-snake-case ones', () => {
    const { tasks } = parseTasks(
      [
        'TASK: t | deps= | kind=config | x',
        'CONFIG_RTL: t | ZED_FLAG CONFIG_DISABLE_BIST_CLEAR',
        'CONFIG_RTL: t | lower_case ALPHA ZED_FLAG',
      ].join('\n'),
    );
    assert.deepEqual(tasks[0]!.config_rtl, ['ALPHA', 'CONFIG_DISABLE_BIST_CLEAR', 'ZED_FLAG']);
  });

  it('applies an override only to the task it names', () => {
    const { tasks, dropped } = parseTasks(['TASK: a | deps= | kind=config | x', 'CACHES: b | l1d=4096,4'].join('\n'));
    assert.equal(tasks[0]!.caches, null);
    assert.match(dropped[0]!.reason, /override for unknown task "b"/);
  });

  it('keeps the last DIAGNOSIS (lowercased) and FIX (verbatim)', () => {
    assert.deepEqual(
      parseDiagnosis(
        'DIAGNOSIS: Timeout\nFIX: first\nDIAGNOSIS: CONFIG_ERROR\nFIX: Remove the PITON_FPGA_SYNTH define',
      ),
      {
        diagnosis: 'config_error',
        fix: 'Remove the PITON_FPGA_SYNTH define',
      },
    );
    assert.deepEqual(parseDiagnosis('DIAGNOSIS: odd_label'), { diagnosis: 'odd_label', fix: '' });
    assert.equal(parseDiagnosis('no footer here'), undefined);
  });

  it('parses the post-mortem and drops one without ASSESSMENT', () => {
    assert.deepEqual(parsePostMortem('ASSESSMENT: Fixable_Config\nEXPLANATION: the define\nNEXT_STEPS: add it'), {
      assessment: 'fixable_config',
      explanation: 'the define',
      nextSteps: 'add it',
    });
    assert.equal(parsePostMortem('EXPLANATION: x'), undefined);
  });

  it('reports the line each tag stands on', () => {
    assert.deepEqual(findTag('x\n  FIX: a\nFIX: b', 'FIX'), [
      { value: 'a', line: 2 },
      { value: 'b', line: 3 },
    ]);
  });
});
