/** Where the project's own files are, wherever it is installed or run from. */
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The project's gate programs and their CHECKSUMS, passed to sims as an extra diag directory. */
export const WORKLOADS_DIR = fileURLToPath(new URL('../workloads', import.meta.url));
