#!/usr/bin/env node
// Registers tsx relative to this file, so `npx mace` works from any directory with no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../harness/cli/main.ts');
process.exitCode = await main(process.argv);
