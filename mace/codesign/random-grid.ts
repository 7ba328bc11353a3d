/** The two strategies with no model: uniform random draws (seeded by the repeat) and a fixed grid in order. */
import { seeded } from '../llm/scripted/random.ts';
import type { Design } from './design.ts';
import { sampleDesign, spaceCount, type DesignSpace } from './space.ts';
import { firstUnseen, seenDesigns, type Strategy } from './strategy.ts';

/** Draws at most this many samples per wanted design before giving up on finding unseen ones. */
const DRAWS_PER_DESIGN = 200;

export function randomSearch(space: DesignSpace, seed: number): Strategy {
  const random = seeded(seed);
  const total = spaceCount(space);
  return {
    name: 'random',
    async propose(history, n) {
      const seen = seenDesigns(history);
      function* draws(): Generator<Design> {
        for (let i = 0; i < DRAWS_PER_DESIGN * Math.max(n, 1) && seen.size < total; i++)
          yield sampleDesign(space, random);
      }
      return firstUnseen(draws(), seen, Math.min(n, total - seen.size));
    },
    observe: async () => {},
    close: async () => {},
  };
}

export function gridSearch(designs: readonly Design[]): Strategy {
  return {
    name: 'grid',
    propose: async (history, n) => firstUnseen(designs, seenDesigns(history), n),
    observe: async () => {},
    close: async () => {},
  };
}
