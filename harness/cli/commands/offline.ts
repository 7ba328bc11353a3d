import { InvalidArgumentError, Option, type Command } from 'commander';
import { InputError } from '../../../mace/errors.ts';
import { initOfflineCheckout, OfflineCheckoutError } from '../../../mace/openpiton/offline/index.ts';
import { printJson } from '../io.ts';
import type { CommandContext } from '../main.ts';

interface InitOptions {
  readonly speed?: number;
  readonly flakeRate?: number;
  readonly seed?: number;
  readonly force?: boolean;
  readonly json?: boolean;
}

const number = (what: string) => (value: string) => {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError(`expected ${what}.`);
  return n;
};

export function registerOffline(program: Command, ctx: CommandContext): void {
  const offline = program
    .command('offline')
    .description('The offline OpenPiton: a checkout whose sims is a calibrated model of OpenPiton (not a simulation)');

  offline
    .command('init')
    .description('Create an offline checkout in DIR (laid out like OpenPiton, with the model sims on PATH)')
    .argument('<dir>', 'where to create it (must be empty unless --force)')
    .addOption(
      new Option('--speed <factor>', 'real seconds are multiplied by this (1 replays real time, 0 answers at once)')
        .argParser(number('a number >= 0'))
        .default(0.01),
    )
    .addOption(
      new Option('--flake-rate <rate>', 'probability that a build or run fails for no configuration reason')
        .argParser(number('a number between 0 and 1'))
        .default(0),
    )
    .addOption(new Option('--seed <n>', 'seed of the flake draws').argParser(number('an integer')).default(0))
    .option('--force', 'replace DIR if it is not empty')
    .option('--json', 'print JSON instead of text')
    .addHelpText(
      'after',
      `
Examples:
  $ mace offline init /tmp/piton
  $ mace offline init /tmp/piton --speed 1 --force          # replay real build and run times
  $ mace offline init /tmp/flaky --flake-rate 0.2 --seed 7  # seeded failures for testing retries`,
    )
    .action((dir: string, options: InitOptions) => init(dir, options, ctx));
}

async function init(dir: string, options: InitOptions, ctx: CommandContext): Promise<void> {
  try {
    const checkout = await initOfflineCheckout(dir, {
      ...(options.speed !== undefined ? { speed: options.speed } : {}),
      ...(options.flakeRate !== undefined ? { flakeRate: options.flakeRate } : {}),
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
      force: Boolean(options.force),
    });
    if (options.json) return printJson(ctx.io, checkout);
    const { speed, flakeRate, seed } = checkout.settings;
    ctx.io.out(
      [
        `offline checkout at ${checkout.root} (mace offline model ${checkout.modelVersion})`,
        `speed ${speed}, flake rate ${flakeRate}, seed ${seed}`,
        'Its sims is a calibrated model of OpenPiton, not a simulation: report its results as model output.',
        `Use it with --piton-root ${checkout.root}`,
      ].join('\n'),
    );
  } catch (error) {
    if (error instanceof OfflineCheckoutError) throw new InputError(error.message);
    throw error;
  }
}
