/**
 * Unit-test environments in a checkout: OpenPiton's `create_env.py` scaffolds one for a module, the
 * scaffold's sims config is edited for Verilator and given the module's file, and the testbench is
 * read and written for the agent that adapts it. The scaffold is temporary: sims.config and the new
 * files are backed up first (crash-safe) and restored after the task, so the checkout's source
 * fingerprint, and with it every manycore model built from it, is untouched by a unit test.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { execa } from 'execa';
import { backupPaths, restorePending } from './edits.ts';
import { readModule, type Port } from './verilog.ts';

export const UNIT_TEST_BACKUP_DIR = 'build/.mace_unit_test_backup';
export const CREATE_ENV = 'piton/verif/env/create_env.py';
const SIMS_SRC = 'piton/tools/src/sims';
const SCAFFOLD_TIMEOUT_S = 60;

/**
 * The environment name for a module path: its folder with every run of other characters turned into
 * `_`, then `_<stem>_ut`. `piton/design/chip/tile/pico/rtl/picorv32.v` gives
 * `piton_design_chip_tile_pico_rtl_picorv32_ut`.
 */
export function unitTestEnvName(modulePath: string): string {
  const path = modulePath.trim();
  const folder = dirname(path) === '.' ? '' : dirname(path);
  const prefix = folder.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
  const stem = moduleNameFromPath(path);
  return `${prefix ? `${prefix}_` : ''}${stem || 'module'}_ut`;
}

/** The module a file is named after: `l15_pipeline.v.pyv` gives `l15_pipeline`. */
export const moduleNameFromPath = (modulePath: string): string => basename(modulePath.trim()).split('.')[0] ?? '';

export interface UnitTestEnv {
  readonly name: string;
  readonly module: string;
  /** The module's file, relative to the checkout root. */
  readonly modulePath: string;
  /** Checkout-relative paths of the environment's folder, testbench, flist and sims config. */
  readonly dir: string;
  readonly testbench: string;
  readonly flist: string;
  readonly config: string;
}

export function unitTestEnv(modulePath: string): UnitTestEnv {
  const name = unitTestEnvName(modulePath);
  const dir = `piton/verif/env/${name}`;
  return {
    name,
    module: moduleNameFromPath(modulePath),
    modulePath: modulePath.trim(),
    dir,
    testbench: `${dir}/${name}_top.v`,
    flist: `${dir}/${name}.flist`,
    config: `${SIMS_SRC}/${name}.config`,
  };
}

export class UnitTestScaffoldError extends Error {
  override name = 'UnitTestScaffoldError';
}

export interface Scaffold {
  readonly env: UnitTestEnv;
  /** False when the environment was already in the checkout (then only its testbench is restored). */
  readonly created: boolean;
  /** Put the checkout back as it was before the scaffold. */
  readonly restore: () => void;
}

/**
 * Scaffold the environment for `modulePath` in the checkout: `python3 create_env.py --name=<env>`,
 * then the Verilator edits of its sims config and the module's file appended to its flist. Throws
 * UnitTestScaffoldError (with the checkout restored) when the script fails.
 */
export async function scaffoldUnitTest(
  root: string,
  modulePath: string,
  options: { readonly signal?: AbortSignal; readonly timeoutS?: number } = {},
): Promise<Scaffold> {
  const env = unitTestEnv(modulePath);
  if (existsSync(join(root, env.dir))) {
    return { env, created: false, restore: backupPaths(root, [env.testbench], UNIT_TEST_BACKUP_DIR) };
  }
  const restore = backupPaths(
    root,
    [`${SIMS_SRC}/sims.config`, env.config, `${SIMS_SRC}/${env.name}.Linux.x86_64`, env.dir],
    UNIT_TEST_BACKUP_DIR,
  );
  try {
    const result = await execa('python3', [CREATE_ENV, `--name=${env.name}`, '--author=mace-ts'], {
      cwd: root,
      env: { DV_ROOT: join(root, 'piton'), PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '' },
      extendEnv: false,
      reject: false,
      timeout: (options.timeoutS ?? SCAFFOLD_TIMEOUT_S) * 1000,
      ...(options.signal ? { cancelSignal: options.signal } : {}),
    });
    if (result.exitCode !== 0 || !existsSync(join(root, env.testbench)) || !existsSync(join(root, env.config))) {
      const output = `${result.stdout}\n${result.stderr}`.trim().slice(-600);
      throw new UnitTestScaffoldError(
        `python3 ${CREATE_ENV} --name=${env.name} ${result.timedOut ? 'timed out' : `exited with ${result.exitCode ?? result.signal}`}` +
          `${output ? `: ${output}` : ''}`,
      );
    }
    const config = join(root, env.config);
    writeFileSync(config, verilatorConfig(readFileSync(config, 'utf8'), env.name));
    appendLine(join(root, env.flist), flistEntry(env.modulePath));
  } catch (error) {
    restore();
    throw error;
  }
  return { env, created: true, restore };
}

/** Undo a unit-test scaffold a crash left in the checkout; a no-op when there is none. */
export const restoreUnitTestScaffold = (root: string): void => restorePending(root, UNIT_TEST_BACKUP_DIR);

/**
 * The scaffold's sims config for Verilator: the DUT flist it guesses (which does not exist), its
 * env_base and the VCS-only build arguments go; its include folder becomes a build argument every
 * simulator reads.
 */
export function verilatorConfig(text: string, env: string): string {
  const dropped = [
    `-flist=$DV_ROOT/design/${env}/rtl/Flist.${env}`,
    '-vcs_build_args=+notimingcheck',
    '-vcs_build_args=+nospecify',
    '-vcs_build_args=+nbaopt',
    '-vcs_build_args=-Xstrict=1 -notice',
  ];
  return text
    .split('\n')
    .filter((line) => !dropped.includes(line.trim()) && !line.trim().startsWith('-env_base='))
    .map((line) => line.replace('-vcs_build_args=+incdir+', '-sim_build_args=+incdir+'))
    .join('\n');
}

/** How an flist names a checkout file: under $DV_ROOT (piton/) when it is there, else under $PITON_ROOT. */
function flistEntry(modulePath: string): string {
  const path = modulePath.replace(/^\.\//, '');
  return path.startsWith('piton/') ? `$DV_ROOT/${relative('piton', path)}` : `$PITON_ROOT/${path}`;
}

/** Append a line, after a newline when the file does not end with one (create_env.py leaves none). */
function appendLine(path: string, line: string): void {
  const text = readFileSync(path, 'utf8');
  writeFileSync(path, `${text}${text && !text.endsWith('\n') ? '\n' : ''}${line}\n`);
}

export type DutPorts =
  { readonly module: string; readonly ports: readonly Port[] } | { readonly module: string; readonly error: string };

/** The DUT's ports in declaration order, or why they could not be read. */
export function readDutPorts(root: string, modulePath: string): DutPorts {
  const module = moduleNameFromPath(modulePath);
  try {
    const header = readModule(readDutSource(root, modulePath), module);
    return { module: header.name, ports: header.ports };
  } catch (error) {
    return { module, error: error instanceof Error ? error.message : String(error) };
  }
}

export const readDutSource = (root: string, modulePath: string): string =>
  readFileSync(join(root, modulePath.trim()), 'utf8');

export const readTestbench = (root: string, env: UnitTestEnv): string =>
  readFileSync(join(root, env.testbench), 'utf8');

export function writeTestbench(root: string, env: UnitTestEnv, content: string): void {
  writeFileSync(join(root, env.testbench), content);
}
