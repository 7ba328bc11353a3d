/**
 * Read-only tools over a failed task's run, offered to triage and the post-mortem on backends that
 * take tools: grep the run's logs, collect its small text files, find where its sim.log departs from
 * a healthy reference, and check the symbols of the built program. All of them stay inside the run
 * directory; a task that failed at build has no run, and every tool says so.
 */
import { fileURLToPath } from 'node:url';
import type { TaskResult } from './integrator.ts';
import type { LlmTool } from './llm/types.ts';
import { collectRunFiles, compareToReference, grepRunLog, GREP_SOURCES, symbolCheck } from './openpiton/inspect.ts';

/** Heads of real passing sim.logs (see the README there). */
export const REFERENCE_LOGS_DIR = fileURLToPath(new URL('./openpiton/references', import.meta.url));

const str = (args: Readonly<Record<string, unknown>>, key: string, fallback = '') =>
  typeof args[key] === 'string' ? (args[key] as string) : fallback;
const num = (args: Readonly<Record<string, unknown>>, key: string, fallback: number) =>
  typeof args[key] === 'number' && Number.isFinite(args[key]) ? (args[key] as number) : fallback;

/** The tools over `failed`'s last run. */
export function diagnosticTools(failed: TaskResult): LlmTool[] {
  const runDir = failed.runs.at(-1)?.runDir || '';
  const withRun = (fn: (dir: string) => Promise<string>) => () =>
    runDir ? fn(runDir) : Promise.resolve(`ERROR: task ${failed.task.id} failed at build (${failed.build.failureReason || 'unknown'}); it has no run to inspect`);
  return [
    {
      name: 'grep_run_log',
      description: `Lines of the failed run's sim.log, status.log or UART log that match a regular expression, with context. source is one of ${Object.keys(GREP_SOURCES).join(', ')}.`,
      parameters: {
        type: 'object',
        properties: {
          source: { type: 'string', enum: Object.keys(GREP_SOURCES) },
          pattern: { type: 'string' },
          context: { type: 'integer' },
          max_lines: { type: 'integer' },
        },
        required: ['source', 'pattern'],
      },
      execute: (args) =>
        withRun((dir) => grepRunLog(dir, str(args, 'source'), str(args, 'pattern'), { context: num(args, 'context', 3), maxLines: num(args, 'max_lines', 40) }))(),
    },
    {
      name: 'collect_run_files',
      description: 'Small text files of the failed run directory that match a glob (e.g. *.log), each under a header.',
      parameters: { type: 'object', properties: { pattern: { type: 'string' }, max_bytes: { type: 'integer' } }, required: [] },
      execute: (args) => withRun((dir) => collectRunFiles(dir, str(args, 'pattern', '*'), num(args, 'max_bytes', 200_000)))(),
    },
    {
      name: 'compare_to_reference',
      description:
        'Where the failed run\'s sim.log first departs from a passing reference log: pico_1x1_addi_pass.sim.log, pico_2x2_addi_pass.sim.log or ariane_1x1_rv64ui-p-addi_pass.sim.log.',
      parameters: { type: 'object', properties: { reference: { type: 'string' }, max_context: { type: 'integer' } }, required: ['reference'] },
      execute: (args) => withRun((dir) => compareToReference(dir, REFERENCE_LOGS_DIR, str(args, 'reference'), num(args, 'max_context', 5)))(),
    },
    {
      name: 'symbol_check',
      description: "objdump -f and -t of the run's diag.exe beside its symbol.tbl: raw data to check the pass/fail trap addresses against.",
      parameters: { type: 'object', properties: {}, required: [] },
      execute: () => withRun((dir) => symbolCheck(dir))(),
    },
  ];
}
