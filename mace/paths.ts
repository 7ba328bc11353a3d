/** Where the project's own files are, wherever it is installed or run from. */
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

export { WORKLOADS_DIR } from './openpiton/workloads.ts';
