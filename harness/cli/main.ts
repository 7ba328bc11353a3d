/**
 * The `mace` command. Each subcommand lives in its own module under commands/ and registers its
 * options and an action that calls library code; this file only assembles them and holds the one
 * error boundary that turns errors into exit codes: 0 success, 1 a run or check failed, 2 bad usage
 * or input.
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { InputError } from '../../mace/errors.ts';
import { CommandFailed, processIo, type Io } from './io.ts';
import { registerDoctor } from './commands/doctor.ts';
import { registerInspect } from './commands/inspect.ts';
import { registerLlm } from './commands/llm.ts';
import { registerExport } from './commands/export.ts';
import { registerFigures } from './commands/figures.ts';
import { registerImport } from './commands/import.ts';
import { registerNotebooks } from './commands/notebooks.ts';
import { registerOffline } from './commands/offline.ts';
import { registerReplay } from './commands/replay.ts';
import { registerReport } from './commands/report.ts';
import { registerResults } from './commands/results.ts';
import { registerRun } from './commands/run.ts';
import { registerSuite } from './commands/suite.ts';

export interface CommandContext {
  readonly io: Io;
  /** Set by an action to report a failed run or check (exit code 1) without throwing. */
  fail(message?: string): void;
}

export type Registrar = (program: Command, ctx: CommandContext) => void;

/** Every subcommand, in the order `mace --help` lists them. */
const REGISTRARS: readonly Registrar[] = [
  registerSuite,
  registerRun,
  registerResults,
  registerReport,
  registerFigures,
  registerNotebooks,
  registerReplay,
  registerExport,
  registerImport,
  registerInspect,
  registerDoctor,
  registerOffline,
  registerLlm,
];

const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

export function buildProgram(ctx: CommandContext): Command {
  const program = new Command('mace')
    .description(
      'Evaluate LLM agents that bring up OpenPiton many-core chips: run the MACE loop, sweep suites, analyse results.',
    )
    .version(packageJson.version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help for a command')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeOut: (s) => ctx.io.out(s), writeErr: (s) => ctx.io.err(s) })
    .exitOverride();
  // Subcommands inherit exitOverride and configureOutput from the program at creation.
  for (const register of REGISTRARS) register(program, ctx);
  return program;
}

/** Run the CLI with these arguments; resolves to the exit code. */
export async function main(argv: readonly string[], io: Io = processIo): Promise<number> {
  let code = 0;
  const ctx: CommandContext = {
    io,
    fail(message) {
      if (message) io.err(message);
      code = 1;
    },
  };
  const program = buildProgram(ctx);
  try {
    await program.parseAsync([...argv]);
    return code;
  } catch (error) {
    return exitCodeFor(error, io);
  }
}

function exitCodeFor(error: unknown, io: Io): number {
  if (error instanceof CommanderError) {
    if (
      error.code === 'commander.helpDisplayed' ||
      error.code === 'commander.version' ||
      error.code === 'commander.help'
    )
      return 0;
    return 2;
  }
  if (error instanceof InputError) {
    io.err(`error: ${error.message}`);
    return 2;
  }
  if (error instanceof CommandFailed) {
    io.err(error.message);
    return 1;
  }
  io.err(error instanceof Error ? (error.stack ?? error.message) : String(error));
  return 1;
}
