import { Option, type Command } from 'commander';
import {
  DEFAULT_REPLAY_OVERRIDES,
  parseReplayOptions,
  replayPlans,
  REPLAY_OPTIONS,
  type ReplayOverrides,
} from '../../analysis/plan-replay.ts';
import { renderPlanReplay } from '../../analysis/replay-report.ts';
import { chooseReplayCheckout } from '../../analysis/replay-savings.ts';
import { DEFAULT_HOURLY_USD } from '../../analysis/runs.ts';
import { nonNegativeNumber } from '../args.ts';
import { printJson } from '../io.ts';
import type { CommandContext } from '../main.ts';

interface ReplayPlansOptions {
  readonly options?: ReplayOverrides;
  readonly pitonRoot?: string;
  readonly hourlyUsd: number;
  readonly json?: boolean;
}

export function registerReplay(program: Command, ctx: CommandContext): void {
  const replay = program
    .command('replay')
    .description('Replay what a results database recorded, with no LLM call and no build');
  replay
    .command('plans')
    .description(
      'Run every recorded plan through the plan check again: what it rejects, strips or adds, and the builds and dollars that would have saved',
    )
    .argument('<db>', 'results database (a DuckDB file)')
    .addOption(
      new Option(
        '--options <k=v,...>',
        `the counterfactual: ${REPLAY_OPTIONS.join(', ')} on or off (default: plan_check=on; other options as each run recorded)`,
      ).argParser(parseReplayOptions),
    )
    .option(
      '--piton-root <dir>',
      "the OpenPiton checkout whose define index and files the check reads (default: the loop's offline checkout)",
    )
    .addOption(
      new Option('--hourly-usd <x>', 'dollars per machine hour for saved machine time')
        .argParser(nonNegativeNumber)
        .default(DEFAULT_HOURLY_USD),
    )
    .option('--json', 'print the per-run table, the total and every replayed look as JSON')
    .addHelpText(
      'after',
      `
Examples:
  $ mace replay plans runs/ablations.duckdb
  $ mace replay plans runs/ablations.duckdb --options plan_check=off --piton-root ~/openpiton
  $ mace replay plans runs/ablations.duckdb --options fast_path=on --json | jq '.total.saved_usd'`,
    )
    .action((db: string, options: ReplayPlansOptions) => replayPlansCommand(db, options, ctx));
}

async function replayPlansCommand(db: string, options: ReplayPlansOptions, ctx: CommandContext): Promise<void> {
  const replay = await replayPlans(db, {
    checkout: await chooseReplayCheckout(options.pitonRoot),
    overrides: options.options ?? DEFAULT_REPLAY_OVERRIDES,
    hourlyUsd: options.hourlyUsd,
  });
  if (options.json) printJson(ctx.io, replay);
  else ctx.io.out(renderPlanReplay(replay));
}
