/** Process entry of the bundled model sims: run it on this process's arguments and exit with its code. */
import { realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import { main } from './main.ts';

process.exitCode = main(process.argv.slice(2), process.env, process.cwd(), dirname(realpathSync(process.argv[1]!)));
