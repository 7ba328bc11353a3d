/**
 * The Verilator tools an offline checkout puts on PATH besides sims: `verilator_coverage` reads the
 * model's coverage.dat and prints the total line as the real tool does (`verilator` itself is a
 * shell script that only answers --version).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** `verilator_coverage [--annotate DIR] FILE...`: count the points and print the total. */
export function verilatorCoverage(args: readonly string[]): number {
  let annotate: string | undefined;
  const files: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--annotate') annotate = args[++i];
    else if (!args[i]!.startsWith('-')) files.push(args[i]!);
  }
  let hit = 0;
  let total = 0;
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'latin1');
    } catch {
      process.stderr.write(`%Error: Can't read ${file}\n`);
      return 1;
    }
    for (const line of text.split('\n')) {
      const m = /^C '.*' (\d+)$/.exec(line);
      if (!m) continue;
      total++;
      if (Number(m[1]) > 0) hit++;
    }
  }
  if (annotate) {
    mkdirSync(annotate, { recursive: true });
    writeFileSync(join(annotate, 'model.v'), `// ${hit} of ${total} coverage points hit (offline model)\n`);
  }
  // The real tool truncates the percentage to a whole number before printing it with two decimals.
  const percent = total ? Math.floor((100 * hit) / total).toFixed(2) : '0.00';
  process.stdout.write(`Total coverage (${hit}/${total}) ${percent}%\n`);
  if (annotate) process.stdout.write(`See lines with '%00' in ${annotate}\n`);
  return 0;
}
