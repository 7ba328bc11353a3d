/**
 * The scripted agent as a co-design proposer. It reads the proposer prompt the way a careful engineer
 * would use it: it adds up the per-geometry areas the prompt lists, keeps to the budget and the way
 * rule, never repeats a design, and ranks the rest by a prior (capacity close to the core matters most:
 * L1.5, then L1D, then L2, then L1I; extra ways help a little). Once a design has passed, it searches
 * near the soonest one, with a seeded chance of trying something further away.
 */
import { describeDesign, parseDesign, type Design } from '../../codesign/design.ts';
import { ARIANE_WAY_RULE_TEXT } from '../../codesign/proposer.ts';
import { CACHE_NAMES, DEFAULT_CACHES, NETWORKS, type CacheName, type Network } from '../../openpiton/geometry.ts';
import type { Random } from './random.ts';

const PRIOR_WEIGHT: Readonly<Record<CacheName, number>> = { l15: 1, l1d: 0.8, l2: 0.4, l1i: 0.3 };
const WAY_WEIGHT = 0.1;
/** Share of proposals, once something passed, drawn from the whole feasible set rather than near the best. */
const EXPLORE = 0.3;

interface Option {
  readonly size: number;
  readonly assoc: number;
  readonly area: number;
}

interface ProposerInputs {
  readonly n: number;
  readonly budget: number | null;
  readonly options: Readonly<Record<CacheName, readonly Option[]>>;
  readonly networks: readonly Network[];
  readonly wayRule: boolean;
  readonly tried: ReadonlySet<string>;
  /** Designs that passed, with their finish times. */
  readonly passed: ReadonlyArray<{ design: Design; time: number }>;
}

function readProposerPrompt(prompt: string): ProposerInputs {
  const n = Number(/^Propose (\d+) new designs/m.exec(prompt)?.[1] ?? 1);
  const budgetText = /^Total cache area budget: (\d+|none)/m.exec(prompt)?.[1] ?? 'none';
  const options = {} as Record<CacheName, Option[]>;
  for (const cache of CACHE_NAMES) {
    const line = new RegExp(`^- ${cache}: ((?:\\d+,\\d+=(?:\\d+|invalid) ?)+)`, 'm').exec(prompt)?.[1] ?? '';
    options[cache] = [...line.matchAll(/(\d+),(\d+)=(\d+)/g)].map((m) => ({
      size: Number(m[1]),
      assoc: Number(m[2]),
      area: Number(m[3]),
    }));
  }
  const networks = (/^- network: (.*)$/m.exec(prompt)?.[1] ?? '')
    .split(/,\s*/)
    .filter((n): n is Network => (NETWORKS as readonly string[]).includes(n));
  const tried = new Set<string>();
  const passed: Array<{ design: Design; time: number }> = [];
  for (const m of prompt.matchAll(/^- (l15=.*? network=\S+): (.*)$/gm)) {
    const design = parseDesign(m[1]!);
    if (!design) continue;
    tried.add(describeDesign(design));
    const time = /^passed the check, finish time (\d+)/.exec(m[2]!)?.[1];
    if (time && /\(fits\)/.test(m[2]!)) passed.push({ design, time: Number(time) });
  }
  return {
    n,
    budget: budgetText === 'none' ? null : Number(budgetText),
    options,
    networks: networks.length ? networks : ['2dmesh_config'],
    wayRule: prompt.includes(ARIANE_WAY_RULE_TEXT),
    tried,
    passed,
  };
}

function prior(design: Design): number {
  return CACHE_NAMES.reduce((score, cache) => {
    const [size, assoc] = design.caches[cache];
    const [size0, assoc0] = DEFAULT_CACHES[cache];
    return score + PRIOR_WEIGHT[cache] * Math.log2(size / size0) + WAY_WEIGHT * Math.log2(assoc / assoc0);
  }, 0);
}

/** Knob steps between two designs (sizes and ways in log2 steps, a network change counts one). */
function distance(a: Design, b: Design): number {
  return CACHE_NAMES.reduce(
    (d, cache) =>
      d +
      Math.abs(Math.log2(a.caches[cache][0] / b.caches[cache][0])) +
      Math.abs(Math.log2(a.caches[cache][1] / b.caches[cache][1])),
    a.network === b.network ? 0 : 1,
  );
}

/** Every untried design within the budget and the way rule, from the geometries the prompt lists. */
function candidates(inputs: ProposerInputs): Design[] {
  let partial: Array<{ caches: Partial<Record<CacheName, [number, number]>>; area: number }> = [
    { caches: {}, area: 0 },
  ];
  for (const cache of CACHE_NAMES)
    partial = partial.flatMap((p) =>
      inputs.options[cache].map((o) => ({
        caches: { ...p.caches, [cache]: [o.size, o.assoc] },
        area: p.area + o.area,
      })),
    );
  return partial
    .filter((p) => inputs.budget === null || p.area <= inputs.budget)
    .flatMap((p) => inputs.networks.map((network) => ({ caches: p.caches as Design['caches'], network })))
    .filter((d) => !inputs.wayRule || (d.caches.l1d[1] <= d.caches.l15[1] && d.caches.l1i[1] <= d.caches.l15[1]))
    .filter((d) => !inputs.tried.has(describeDesign(d)));
}

export function proposeReply(prompt: string, random: Random): string {
  const inputs = readProposerPrompt(prompt);
  const pool = candidates(inputs);
  const best = [...inputs.passed].sort((a, b) => a.time - b.time)[0]?.design;
  const rank = (d: Design) => (best ? distance(d, best) * 10 - prior(d) : -prior(d)) + random() * 0.5;
  const ranked = pool.map((d) => ({ d, score: rank(d) })).sort((a, b) => a.score - b.score);
  const chosen: Design[] = [];
  while (chosen.length < inputs.n && ranked.length) {
    const pick = best && random() < EXPLORE ? Math.floor(random() * ranked.length) : 0;
    chosen.push(ranked.splice(pick, 1)[0]!.d);
  }
  if (!chosen.length) return 'Every design within the budget has been tried; I have nothing new to propose.';
  return [
    best
      ? `Searching near the soonest design so far (${describeDesign(best)}).`
      : 'Spending the area budget where it is closest to the core first.',
    ...chosen.map((d) => `DESIGN: ${describeDesign(d)}`),
  ].join('\n');
}
