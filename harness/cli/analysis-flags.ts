/** The flags every command that analyses databases shares (report, figures), with the library's defaults. */
import { Option, type Command } from 'commander';
import { DEFAULT_REFERENCE, DEFAULT_RESAMPLES, DEFAULT_SEED, DEFAULT_HOURLY_USD } from '../analysis/index.ts';
import type { AnalysisOptions } from '../analysis/index.ts';
import { nonNegativeInt, nonNegativeNumber, positiveInt } from './args.ts';

export interface AnalysisFlags {
  readonly hourlyUsd: number;
  readonly seed: number;
  readonly resamples: number;
  readonly reference: string;
}

export function addAnalysisFlags(command: Command): Command {
  return command
    .addOption(
      new Option('--hourly-usd <x>', 'dollars per machine hour for compute cost')
        .argParser(nonNegativeNumber)
        .default(DEFAULT_HOURLY_USD),
    )
    .addOption(
      new Option('--seed <n>', 'seed of the bootstrap intervals').argParser(nonNegativeInt).default(DEFAULT_SEED),
    )
    .addOption(
      new Option('--resamples <n>', 'bootstrap resamples per interval')
        .argParser(positiveInt)
        .default(DEFAULT_RESAMPLES),
    )
    .option('--reference <method>', 'the method the others are compared with', DEFAULT_REFERENCE);
}

export function analysisOptions(flags: AnalysisFlags): AnalysisOptions {
  return { hourlyUsd: flags.hourlyUsd, seed: flags.seed, resamples: flags.resamples, reference: flags.reference };
}
