/** one_checkout (A2): the full loop on one checkout, so nothing of a plan runs in parallel. */
import { loopMethod } from './loop.ts';

export const oneCheckout = loopMethod({
  name: 'one_checkout',
  summary: 'A2: the full loop on one checkout (no parallel builds or probes)',
  checkouts: 'one',
});
