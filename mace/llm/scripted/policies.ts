/**
 * The scripted agent's policies: a competent but imperfect engineer. It plans from the objective and
 * the feedback, states the defines the objective names, follows triage's fixes, reads build errors
 * and verdicts to diagnose, and at configured rates makes the mistakes real models made in the
 * original evaluation.
 */
import { CACHE_NAMES, describeCaches, type CacheName } from '../../openpiton/geometry.ts';
import { namedDefines } from '../../objective.ts';
import type { Random } from './random.ts';
import { applyFixes, readFailure, type DesignDraft, type FailureReport, type PlannerInputs } from './reading.ts';

export const MISTAKES = [
  'l15_zero',
  'oversized_cache',
  'drop_objective_define',
  'bare_kind',
  'no_plan',
  'unknown_define',
  'speculative_task',
  'source_edit',
] as const;
/** Mistakes of the task agents rather than the planner: drawn on their own calls. */
export const AGENT_MISTAKES = ['testbench_port'] as const;
export type Mistake = (typeof MISTAKES)[number] | (typeof AGENT_MISTAKES)[number];
export type MistakeRates = Readonly<Partial<Record<Mistake, number>>>;

/** A define OpenPiton has never heard of; the plan check strips it. */
export const INVENTED_DEFINE = 'ENABLE_TURBO_PREFETCH';

/** Which mistakes a call makes among `among` (the planner's by default): each independently, at its rate. */
export function drawMistakes(random: Random, rates: MistakeRates, among: readonly Mistake[] = MISTAKES): Set<Mistake> {
  const out = new Set<Mistake>();
  for (const mistake of among) if (random() < (rates[mistake] ?? 0)) out.add(mistake);
  return out;
}

/** The design the objective asks for: its defines, any cache it names as name=size,assoc, a crossbar if it says so. */
function draftFromObjective(objective: string): DesignDraft {
  const caches: DesignDraft['caches'] = {};
  for (const m of objective.matchAll(/\b(l1i|l1d|l15|l2)\s*=\s*(\d+)\s*,\s*(\d+)/gi))
    caches[m[1]!.toLowerCase() as CacheName] = [Number(m[2]), Number(m[3])];
  return {
    defines: new Set(namedDefines(objective)),
    caches,
    network: /\b(crossbar|xbar)\b/i.test(objective) ? 'xbar_config' : null,
  };
}

/** Reasons from a rejected plan, turned into the fixes a careful engineer would make. */
function fixesForRejection(rejection: string): string {
  const fixes: string[] = [];
  for (const m of rejection.matchAll(/(l1d|l1i) has \d+ ways, more than the L1\.5's (\d+)/g))
    fixes.push(`lower the ${m[1]} associativity to ${m[2]}`);
  for (const m of rejection.matchAll(/builds without ([A-Z0-9_, ]+), which the objective/g)) {
    for (const define of m[1]!.split(/,\s*/)) fixes.push(`add the ${define.trim()} define`);
  }
  if (/\[(repeated_failure|known_bad_change)\]/.test(rejection)) fixes.push('return to the default configuration');
  return fixes.join('\n');
}

/** Lessons of the feedback history: stated fixes, and the planner's own reading of raw evidence. */
function lessons(feedback: string): string {
  const out = [feedback];
  for (const block of feedback.split(/(?=^Task \S+ \()/m)) {
    if (block.includes('The raw evidence of this failure:')) out.push(diagnose(readFailure(block)).fix);
  }
  return out.join('\n');
}

export function planReply(inputs: PlannerInputs, mistakes: ReadonlySet<Mistake>): string {
  if (mistakes.has('no_plan')) {
    return 'Before planning I would like to know which OpenPiton revision and Verilator version this checkout uses, and whether earlier builds are cached.';
  }
  const draft = draftFromObjective(inputs.objective);
  applyFixes(draft, lessons(inputs.feedback), inputs.objective);
  applyFixes(draft, fixesForRejection(inputs.rejection), inputs.objective);

  if (mistakes.has('drop_objective_define'))
    for (const define of namedDefines(inputs.objective)) draft.defines.delete(define);
  if (mistakes.has('unknown_define')) draft.defines.add(INVENTED_DEFINE);
  if (mistakes.has('l15_zero')) draft.caches.l15 = [0, 4];
  if (mistakes.has('oversized_cache')) draft.caches.l2 = [4194304, 4];

  const kind = (k: string) => (mistakes.has('bare_kind') ? k : `kind=${k}`);
  const defineLines = (id: string) =>
    draft.defines.size ? [`CONFIG_RTL: ${id} | ${[...draft.defines].sort().join(' ')}`] : [];
  const modules = unitTestModules(inputs.objective);
  if (modules.length) {
    return [
      `Plan: a unit test for each module the objective names.`,
      '',
      ...modules.flatMap((path, i) => [
        `TASK: ut${i + 1} | deps= | ${kind('unit_test')} | ${path}`,
        ...defineLines(`ut${i + 1}`),
      ]),
    ].join('\n');
  }
  if (inputs.rtlOffered && inputs.genericWrapper && /\[wrapper_skeleton\]/.test(inputs.rejection)) {
    const { wrapper, top, rtl } = inputs.genericWrapper;
    return [
      "The core's wrapper is still the generated skeleton, so nothing runs until an rtl task writes it.",
      '',
      `TASK: wrapper | deps= | ${kind('rtl')} | Write the Generic Tile wrapper ${wrapper}: instantiate ${top} from ${rtl} and connect every port`,
      ...defineLines('wrapper'),
    ].join('\n');
  }

  const [x, y] = inputs.mesh;
  const repair = inputs.rtlOffered ? rtlRepairTask(inputs) : undefined;
  if (repair && !mistakes.has('no_plan')) {
    return [
      `The last failure is in the RTL; one rtl task repairs it and is then built and simulated.`,
      '',
      `TASK: repair | deps= | kind=rtl | ${repair}`,
      ...defineLines('repair'),
    ].join('\n');
  }
  const describe = () => {
    const parts = [draft.defines.size ? `defines ${[...draft.defines].sort().join(' ')}` : 'the default defines'];
    const caches = describeCaches(draft.caches);
    parts.push(caches ? `caches ${caches}` : 'the default caches');
    if (draft.network) parts.push(`the ${draft.network} interconnect`);
    return parts.join(', ');
  };
  const editAsked = mistakes.has('source_edit') && !inputs.rtlOffered;
  const buildInstruction = editAsked
    ? `Edit piton/design/chip/tile/${inputs.core === 'sparc' ? 'sparc' : inputs.core}/rtl/reset.v to shorten the reset sequence, then build the ${x}x${y} mesh`
    : `Build the ${inputs.core} ${x}x${y} mesh with ${describe()}`;

  const lines = [
    `Plan: one design for the ${x}x${y} ${inputs.core} mesh, built once and checked on ${inputs.workloads.join(', ') || 'the gate workloads'}.`,
    '',
    `TASK: build | deps= | ${kind('config')} | ${buildInstruction}`,
    `TASK: gate | deps=build | ${kind('workload')} | Run ${inputs.workloads.join(', ') || 'the gate workloads'} on that design`,
  ];
  const overrides = (id: string) => {
    const caches = (Object.entries(draft.caches) as [CacheName, readonly [number, number]][])
      .filter(([name]) => (CACHE_NAMES as readonly string[]).includes(name))
      .map(([name, [size, assoc]]) => `${name}=${size},${assoc}`);
    const out: string[] = [];
    if (caches.length) out.push(`CACHES: ${id} | ${caches.join(' ')}`);
    if (draft.defines.size) out.push(`CONFIG_RTL: ${id} | ${[...draft.defines].sort().join(' ')}`);
    return out;
  };
  lines.push(...overrides('build'), ...overrides('gate').filter((l) => l.startsWith('CACHES')));
  if (mistakes.has('speculative_task')) {
    lines.push(
      `TASK: explore | deps=gate | ${kind('config')} | Speculatively try the FPGA synthesis define on the same design for a leaner build`,
      ...overrides('explore').filter((l) => l.startsWith('CACHES')),
      `CONFIG_RTL: explore | ${[...draft.defines, 'PITON_FPGA_SYNTH'].sort().join(' ')}`,
    );
  }
  if (mistakes.has('source_edit') && inputs.rtlOffered) {
    lines.push(`TASK: patch | deps= | ${kind('rtl')} | Shorten the reset sequence in the ${inputs.core} tile RTL`);
  }
  return lines.join('\n');
}

/** RTL paths an objective asks to unit-test ("unit-test piton/design/.../picorv32.v"). */
export function unitTestModules(objective: string): string[] {
  if (!/\bunit[- ]?tests?\b|\btestbench\b/i.test(objective)) return [];
  return [...new Set([...objective.matchAll(/\b((?:piton\/)?[\w./-]+\.(?:v|sv|pyv))\b/g)].map((m) => m[1]!))];
}

/** The repair an rtl task should make, when the last diagnosis blames the RTL. */
function rtlRepairTask(inputs: PlannerInputs): string | undefined {
  const fixes = [...inputs.feedback.matchAll(/diagnosis=(rtl_suspect|needs_rtl_change), suggested fix=([^\n]*)/g)];
  const last = fixes.at(-1);
  if (!last) return undefined;
  const folder =
    inputs.core === 'pico' ? 'piton/design/chip/tile/pico/rtl' : `piton/design/chip/tile/${inputs.core}/rtl`;
  return /piton\/design\//.test(last[2]!)
    ? last[2]!
    : `find and fix the fault in ${folder} that breaks the gate workloads (${last[2]})`;
}

/** Triage's reading of the evidence: a label and a fix in the imperative forms the planner reads. */
export function diagnose(report: FailureReport): { diagnosis: string; fix: string } {
  const evidence = `${report.errors.join('\n')}\n${report.text}`;
  if (report.failureReason === 'way_rule') {
    const m = /(l1d|l1i) has \d+ ways, more than the L1\.5's (\d+)/.exec(evidence);
    return {
      diagnosis: 'config_error',
      fix: m ? `lower the ${m[1]} associativity to ${m[2]}` : 'return to the default configuration',
    };
  }
  if (!report.buildSucceeded) {
    if (/Pin not found: 'async_mux'/.test(evidence) && report.defines.includes('PITON_FPGA_SYNTH')) {
      return {
        diagnosis: 'config_error',
        fix: 'remove the PITON_FPGA_SYNTH define (it selects FPGA pins the simulation top does not have)',
      };
    }
    if (/Duplicate pin connection/.test(evidence) && report.network === 'xbar_config') {
      return {
        diagnosis: 'config_error',
        fix: 'use the 2dmesh_config network instead of xbar_config (the crossbar does not build with two or more rows)',
      };
    }
    const source = /(piton\/design\/[\w./-]+):(\d+)(?::\d+)?:\s*(.*)/.exec(evidence);
    if (source) {
      return report.rtlEdits
        ? { diagnosis: 'rtl_suspect', fix: `fix ${source[1]} line ${source[2]}: ${source[3]!.slice(0, 160)}` }
        : {
            diagnosis: 'needs_rtl_change',
            fix: `the build fails in ${source[1]} line ${source[2]}; no configuration change can fix a source error`,
          };
    }
    return { diagnosis: 'config_error', fix: 'return to the default configuration' };
  }
  switch (report.verdict) {
    case 'timeout':
      if (report.core === 'pico' && !report.defines.includes('CONFIG_DISABLE_BIST_CLEAR')) {
        return {
          diagnosis: 'timeout',
          fix: 'add the CONFIG_DISABLE_BIST_CLEAR define (the BIST clear erases the first writes of a PicoRV32 tile)',
        };
      }
      return report.changes !== 'none'
        ? { diagnosis: 'timeout', fix: 'return to the default configuration' }
        : { diagnosis: 'timeout', fix: 'the design times out at its defaults; raise rtl_timeout or look at the RTL' };
    case 'maxcycles':
      return {
        diagnosis: 'maxcycles',
        fix: 'the core never reaches its trap under this simulator; no configuration change is known to help',
      };
    case 'fail':
      return report.changes !== 'none'
        ? { diagnosis: 'config_error', fix: 'return to the default configuration' }
        : {
            diagnosis: report.rtlEdits ? 'rtl_suspect' : 'needs_rtl_change',
            fix: 'the program hits its bad trap at the default configuration; the RTL or the test is at fault',
          };
    default:
      return { diagnosis: 'config_error', fix: 'return to the default configuration' };
  }
}

export function triageReply(prompt: string): string {
  const report = readFailure(prompt);
  const { diagnosis, fix } = diagnose(report);
  return [
    `The task ${report.taskId} failed with ${report.buildSucceeded ? `verdict ${report.verdict}` : `a build failure (${report.failureReason || 'unknown'})`}.`,
    '',
    `DIAGNOSIS: ${diagnosis}`,
    `FIX: ${fix}`,
  ].join('\n');
}

/** The post-mortem's judgement from the history of what was tried. */
export function postMortemReply(prompt: string): string {
  const diagnoses = [...prompt.matchAll(/(?:triaged as|diagnosis):\s*([a-z_]+)/gi)].map((m) => m[1]!.toLowerCase());
  const last = diagnoses.at(-1);
  const limitation = ['maxcycles', 'needs_rtl_change', 'rtl_suspect'].includes(last ?? '');
  const assessment = limitation ? 'likely_hardware_limitation' : last ? 'fixable_config' : 'inconclusive';
  const explanation = last
    ? `the last failure was diagnosed as ${last}; ${diagnoses.length} failure(s) were diagnosed in all`
    : 'no failure was diagnosed, so there is no evidence either way';
  const next = limitation
    ? 'look at the RTL or the simulator version before spending more runs'
    : last
      ? 'run again with a larger iteration budget, keeping the fixes the diagnoses named'
      : 'run again with triage on to gather evidence';
  return [`ASSESSMENT: ${assessment}`, `EXPLANATION: ${explanation}`, `NEXT_STEPS: ${next}`].join('\n');
}
