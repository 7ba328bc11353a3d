/** One call of the model sims: its parsed arguments, environment, output and where its model lives. */
import type { SimsOptions } from './options.ts';
import type { ModelSettings, Output } from './runtime.ts';

export interface Invocation {
  readonly argv: readonly string[];
  readonly opts: SimsOptions;
  readonly out: Output;
  /** The directory sims runs in (build/ for a build, the run directory for a run). */
  readonly cwd: string;
  /** $DV_ROOT: the checkout's piton/ directory. */
  readonly dvRoot: string;
  /** The checkout root ($DV_ROOT/..). */
  readonly pitonRoot: string;
  /** $MODEL_DIR: the checkout's build/ directory. */
  readonly modelDir: string;
  /** $MODEL_DIR/<model>/<build_id>. */
  readonly modelPath: string;
  readonly settings: ModelSettings;
  readonly env: NodeJS.ProcessEnv;
}
