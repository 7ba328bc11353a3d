import { Option, type Command } from 'commander';
import { InputError } from '../../../mace/errors.ts';
import { checkCheckout, requiredFailures, type DoctorCheck } from '../../../mace/openpiton/doctor.ts';
import { CORE_KINDS, type CoreKind } from '../../../mace/openpiton/geometry.ts';
import { printJson } from '../io.ts';
import type { CommandContext } from '../main.ts';

interface DoctorOptions {
  readonly pitonRoot?: string;
  readonly core?: CoreKind[];
  readonly json?: boolean;
}

export function registerDoctor(program: Command, ctx: CommandContext): void {
  program
    .command('doctor')
    .description(
      'Check an OpenPiton checkout: its layout, sims and Verilator, the fixes Verilator 5 needs, the RISC-V toolchains, the Generic Tile',
    )
    .option('--piton-root <dir>', 'the OpenPiton checkout (default: $PITON_ROOT)')
    .addOption(
      new Option(
        '--core <core...>',
        'also require what these cores need; generic: the Generic Tile (default: report every core, require none)',
      ).choices(CORE_KINDS),
    )
    .option('--json', 'print JSON instead of text')
    .addHelpText(
      'after',
      `
Exits 1 when something the checkout (or a core given with --core) needs is missing.

Examples:
  $ mace doctor --piton-root ~/openpiton
  $ PITON_ROOT=~/openpiton mace doctor --core pico
  $ mace doctor --piton-root .mace/offline/checkout-0 --core generic
  $ mace doctor --json | jq '.checks[] | select(.ok | not)'`,
    )
    .action((options: DoctorOptions) => doctor(options, ctx));
}

async function doctor(options: DoctorOptions, ctx: CommandContext): Promise<void> {
  const root = options.pitonRoot ?? process.env.PITON_ROOT;
  if (!root) throw new InputError('no checkout to check: pass --piton-root DIR or set PITON_ROOT');
  const cores = options.core ?? [];
  const report = await checkCheckout(root);
  const failures = requiredFailures(report, cores);
  if (options.json) printJson(ctx.io, { ...report, required_failures: failures.length });
  else ctx.io.out(renderReport(report.root, report.checks, cores));
  if (failures.length > 0)
    ctx.fail(
      `${failures.length} required check(s) failed: ${failures.map((f) => (f.scope === 'checkout' ? f.name : `${f.scope} ${f.name}`)).join(', ')}`,
    );
}

function renderReport(root: string, checks: readonly DoctorCheck[], cores: readonly CoreKind[]): string {
  const lines = [`OpenPiton checkout ${root}`];
  for (const scope of ['checkout', ...CORE_KINDS] as const) {
    const mine = checks.filter((c) => c.scope === scope);
    if (mine.length === 0) continue;
    const counted = scope === 'checkout' || cores.includes(scope);
    lines.push(
      '',
      scope === 'checkout'
        ? 'checkout and common tools:'
        : `${scope}${counted ? '' : ' (not required; pass --core ' + scope + ')'}:`,
    );
    const width = Math.max(...mine.map((c) => c.name.length));
    for (const check of mine) {
      const mark = check.ok ? 'ok     ' : counted ? 'MISSING' : 'missing';
      lines.push(`  ${mark}  ${check.name.padEnd(width)}  ${check.detail}`);
      if (!check.ok && check.fix) lines.push(`  ${' '.repeat(7)}  ${' '.repeat(width)}  fix: ${check.fix}`);
    }
  }
  return lines.join('\n');
}
