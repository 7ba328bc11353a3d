/**
 * codesign_mace's strategy: the LLM proposes each round's designs. Its prompt carries the task, the
 * space, the budget, every searchable geometry's area over all tiles (so the model can trade area
 * between caches without arithmetic it might get wrong), the way rule on Ariane, and every design
 * tried so far with its outcome. Its reply is read strictly: a DESIGN line that does not parse, lies
 * outside the space or repeats a design is dropped.
 */
import type { RunLlm } from '../llm/recorder.ts';
import { CACHE_NAMES, DEFAULT_CACHES } from '../openpiton/geometry.ts';
import { renderInputs } from '../planner.ts';
import type { MaceSpec } from '../spec.ts';
import { cacheArea, GeometryError, type AreaModel } from './area.ts';
import { describeDesign, parseDesign, type Design } from './design.ts';
import { describeSpace, inSpace, type DesignSpace } from './space.ts';
import { firstUnseen, seenDesigns, type Evaluation, type Strategy } from './strategy.ts';

export const ARIANE_WAY_RULE_TEXT = 'On Ariane, the L1D and the L1I may not have more ways than the L1.5.';

/** The form the prompt asks a proposal line to take; designsFromReply reads it back. */
const DESIGN_LINE_FORMAT =
  'DESIGN: l15=<size>,<ways> l1d=<size>,<ways> l1i=<size>,<ways> l2=<size>,<ways> network=<network>';
const DESIGN_LINE = /^\s*\**\s*DESIGN:\s*(.+?)\s*$/gim;

/**
 * One line per cache: each geometry of the space with its area over all tiles, in square microns
 * (`- l15: 4096,4=165376 8192,4=325632`); `(fixed)` marks a cache the search does not change and
 * `invalid` a geometry that is not whole sets.
 */
export async function areaNotes(space: DesignSpace, tiles: number, model: AreaModel): Promise<string> {
  const lines: string[] = [];
  for (const cache of CACHE_NAMES) {
    const axis = space.caches[cache];
    const geometries = axis
      ? axis.sizes.flatMap((size) => axis.assocs.map((assoc) => [size, assoc] as const))
      : [DEFAULT_CACHES[cache]];
    const cells: string[] = [];
    for (const [size, assoc] of geometries) {
      try {
        const { areaUm2 } = await cacheArea(cache, size, assoc, model);
        cells.push(`${size},${assoc}=${Math.round(areaUm2 * tiles)}`);
      } catch (error) {
        if (!(error instanceof GeometryError)) throw error;
        cells.push(`${size},${assoc}=invalid`);
      }
    }
    lines.push(`- ${cache}: ${cells.join(' ')}${axis ? '' : ' (fixed)'}`);
  }
  return lines.join('\n');
}

const fmt = (n: number | null | undefined) => (n === null || n === undefined ? '-' : String(Math.round(n)));

/** How one evaluation reads in the prompt's history. */
export function historyLine(e: Evaluation): string {
  const area = fmt(e.area?.areaUm2);
  if (!e.simulated) return `- ${describeDesign(e.design)}: rejected before building (${e.rejected}), area ${area}`;
  return `- ${describeDesign(e.design)}: ${e.passed ? 'passed' : 'failed'} the check, finish time ${fmt(e.simTime)}, area ${area} (${e.fits ? 'fits' : 'over budget'})`;
}

export interface ProposerPrompt {
  readonly spec: MaceSpec;
  readonly space: DesignSpace;
  readonly budgetUm2: number | null;
  readonly notes: string;
  readonly history: readonly Evaluation[];
  readonly n: number;
}

export function buildProposerPrompt(p: ProposerPrompt): string {
  return [
    `You are choosing cache geometries for an OpenPiton/${p.spec.core} chip. The goal is the design whose gate ` +
      'workloads finish soonest in simulation while the caches of all tiles fit a total area budget. A design ' +
      'counts only when every tile passes and its area fits.',
    '',
    renderInputs(p.spec),
    '',
    describeSpace(p.space),
    `Total cache area budget: ${p.budgetUm2 === null ? 'none' : Math.round(p.budgetUm2)} square microns over all tiles.`,
    '',
    'Area of each geometry over all tiles (square microns); a design costs the sum over its four caches:',
    p.notes,
    ...(p.spec.core === 'ariane' ? ['', ARIANE_WAY_RULE_TEXT] : []),
    '',
    `Propose ${p.n} new designs, one per line, each exactly in this form:`,
    DESIGN_LINE_FORMAT,
    'Use only sizes, ways and networks from the space; caches marked fixed keep their geometry.',
    '',
    'Designs tried so far:',
    p.history.length ? p.history.map(historyLine).join('\n') : '- none yet',
  ].join('\n');
}

/** The designs a reply proposes, in order, as written (validity is the caller's to check). */
export function designsFromReply(reply: string): Array<Design | null> {
  return [...reply.matchAll(DESIGN_LINE)].map((m) => parseDesign(m[1]!));
}

export interface ProposerSettings {
  readonly llm: RunLlm;
  readonly spec: MaceSpec;
  readonly space: DesignSpace;
  readonly budgetUm2: number | null;
  readonly notes: string;
}

/** Rounds that built something: the search's iteration number for the next round. */
const builtRounds = (history: readonly Evaluation[]) =>
  new Set(history.filter((e) => e.simulated).map((e) => e.round)).size;

/**
 * One LLM call per round, recorded under the round's iteration; a round that built nothing (every
 * proposal rejected) asks again under the same iteration as attempt 2, 3, ...
 */
export function llmProposer(settings: ProposerSettings): Strategy {
  const calls = new Map<number, number>();
  return {
    name: 'mace',
    async propose(history, n) {
      const round = builtRounds(history);
      const attempt = (calls.get(round) ?? 0) + 1;
      calls.set(round, attempt);
      const prompt = buildProposerPrompt({ ...settings, history, n });
      const reply = await settings.llm.call({
        phase: 'propose',
        prompt,
        iteration: round,
        ...(attempt > 1 ? { attempt } : {}),
      });
      const valid = designsFromReply(reply.text).filter((d): d is Design => d !== null && inSpace(settings.space, d));
      return firstUnseen(valid, seenDesigns(history), n);
    },
    observe: async () => {},
    close: async () => {},
  };
}
