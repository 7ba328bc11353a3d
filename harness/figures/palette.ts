/**
 * Colours: one per method in every figure, colour-blind safe, and the same however many or few
 * methods a figure shows.
 *
 * The colours are Okabe & Ito's eight (minus black, kept for medians and text) followed by Paul Tol's
 * muted scheme: both were chosen to stay apart under the common colour-vision deficiencies. The
 * baselines and MACE hold fixed colours; any other method (an ablation, a seeded fault) takes the
 * colour its name hashes to (moving on to a free one within the study), so it keeps that colour in
 * every figure and notebook of a study, and mostly across studies. A full study has more methods
 * than there are safe colours: every figure also names its methods on an axis, and the colour only
 * repeats that.
 */

const OKABE_ITO = ['#0072B2', '#E69F00', '#009E73', '#D55E00', '#CC79A7', '#56B4E9', '#F0E442'] as const;
const TOL_MUTED = ['#332288', '#88CCEE', '#44AA99', '#117733', '#999933', '#DDCC77', '#CC6677', '#882255', '#AA4499'];

/** Methods every study has: fixed colours, never handed to another method. */
export const FIXED_METHOD_COLOURS: Readonly<Record<string, string>> = {
  mace: OKABE_ITO[0],
  expert: OKABE_ITO[1],
  one_shot: OKABE_ITO[2],
  retry_agent: OKABE_ITO[3],
};

const HASHED = [...OKABE_ITO.slice(4), ...TOL_MUTED];

/** FNV-1a, 32 bits: a stable hash of a name (no dependence on run order or on other names). */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/**
 * The colour of each method of a study. The fixed methods keep theirs; each other method, in name
 * order, takes the colour its name hashes to, or the next one no method of the study holds yet, so
 * no two methods share a colour until the study has more methods than the palette has colours.
 * @example methodColours(['mace', 'no_triage', 'no_reuse']).get('mace') // '#0072B2'
 */
export function methodColours(methods: Iterable<string>): Map<string, string> {
  const colours = new Map<string, string>();
  const taken = new Set<string>();
  const names = [...new Set(methods)].sort();
  for (const name of names) {
    const fixed = FIXED_METHOD_COLOURS[name];
    if (fixed) {
      colours.set(name, fixed);
      taken.add(fixed);
    }
  }
  for (const name of names.filter((n) => !colours.has(n))) {
    const start = fnv1a(name) % HASHED.length;
    let slot = start;
    for (let step = 0; step < HASHED.length && taken.has(HASHED[slot]!); step++)
      slot = (start + step + 1) % HASHED.length;
    colours.set(name, HASHED[slot]!);
    taken.add(HASHED[slot]!);
  }
  return colours;
}

/** A Vega-Lite colour scale for the methods shown, coloured as in the whole study (`study`: every method of it). */
export function methodScale(
  shown: Iterable<string>,
  study: Iterable<string> = shown,
): { domain: string[]; range: string[] } {
  const domain = [...new Set(shown)];
  const colours = methodColours([...study, ...domain]);
  return { domain, range: domain.map((m) => colours.get(m)!) };
}

/**
 * Colours for categories that are not methods (catch stages, timeline kinds), from Tol's light
 * scheme: each category keeps its place in `all`, whichever of them a figure shows.
 */
export function categoryScale(
  all: readonly string[],
  shown: readonly string[] = all,
): { domain: string[]; range: string[] } {
  const LIGHT = ['#77AADD', '#EE8866', '#EEDD88', '#FFAABB', '#99DDFF', '#44BB99', '#BBCC33', '#AAAA00', '#DDDDDD'];
  return { domain: [...shown], range: shown.map((c) => LIGHT[all.indexOf(c) % LIGHT.length]!) };
}

/** Ink for medians, reference lines and text. */
export const INK = '#222222';
