/**
 * Loading a suite file: YAML (syntax errors with their position), then the schema (unknown keys
 * refused), then resolution (specs, expert configurations, methods). Every problem is reported at
 * once, each as `file:line:column: field.path: message`, and loading fails before any job starts.
 *
 * @example
 *   const suite = loadSuite('suites/quickstart.yaml');
 *   suite.tasks.map((t) => t.id);   // the selected tasks: verified ones unless told otherwise
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename, dirname, extname, relative, resolve } from 'node:path';
import type { z } from 'zod';
import { InputError, indent } from '../../mace/errors.ts';
import { SuiteDocument, type Path, type Problem } from './locate.ts';
import { resolveSuite, type ResolvedSuite, type SuiteTask } from './resolve.ts';
import { SuiteFileSchema } from './schema.ts';

export interface Suite extends ResolvedSuite {
  /** The study's name; the default database is runs/<name>.duckdb. */
  readonly name: string;
  readonly description: string | null;
  /** As given on the command line (for messages), and absolute. */
  readonly file: string;
  readonly path: string;
  /** sha256 of the file's text (first 16 hex digits), recorded with every run. */
  readonly hash: string;
  /** Every task of the file; `tasks` holds the selected ones. */
  readonly allTasks: readonly SuiteTask[];
  /** `file:line:col: path: message` for a problem found after loading (a source fault that does not apply). */
  describe(problem: Problem): string;
}

/** A suite file with problems; the message lists every one with its position. */
export class SuiteError extends InputError {
  override name = 'SuiteError';
}

export function loadSuite(file: string): Suite {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new InputError(`cannot read suite file ${file}: ${(error as NodeJS.ErrnoException).code ?? error}`);
  }
  return parseSuite(text, file);
}

/** Parse suite text; `file` names it in messages and anchors relative checkout roots. */
export function parseSuite(text: string, file: string): Suite {
  const fromHere = relative(process.cwd(), resolve(file));
  const shown = fromHere && !fromHere.startsWith('..') ? fromHere : resolve(file);
  const document = new SuiteDocument(shown, text);
  const fail = (lines: readonly string[]): never => {
    throw new SuiteError(`invalid suite ${shown}:\n${indent(lines.join('\n'))}`);
  };
  const located = (problems: readonly Problem[]) =>
    problems
      .map((problem) => ({ problem, at: document.position(problem.path, problem.key) }))
      .sort((a, b) => a.at.line - b.at.line || a.at.col - b.at.col)
      .map(({ problem }) => document.describe(problem));
  const syntax = document.syntaxErrors();
  if (syntax.length) fail(syntax);

  const parsed = SuiteFileSchema.safeParse(document.value());
  if (!parsed.success) fail(located(problemsOf(parsed.error.issues)));
  const { suite, problems } = resolveSuite(parsed.data!);
  if (problems.length) fail(located(problems));

  const path = resolve(file);
  return {
    ...suite,
    tasks: suite.tasks.filter((t) => t.verified),
    allTasks: suite.tasks,
    name: parsed.data!.name ?? basename(file, extname(file)),
    description: parsed.data!.description ?? null,
    file: shown,
    path,
    hash: createHash('sha256').update(text).digest('hex').slice(0, 16),
    describe: (problem) => document.describe(problem),
  };
}

/** The directory relative checkout roots in the file are resolved against. */
export const suiteDir = (suite: Pick<Suite, 'path'>): string => dirname(suite.path);

/**
 * zod issues as problems to locate: a union that failed is reported by the branch that matched the
 * value's type; an unknown key points at the key; a missing field says it is required.
 */
export function problemsOf(issues: readonly z.core.$ZodIssue[], base: Path = []): Problem[] {
  const out: Problem[] = [];
  for (const issue of issues) {
    const path = [...base, ...issue.path];
    if (issue.code === 'invalid_union') {
      const close = issue.errors.filter((branch) => !branch.some((i) => i.code === 'invalid_type' && !i.path.length));
      if (close.length) out.push(...problemsOf(close[0]!, path));
      else out.push({ path, message: issue.message });
    } else if (issue.code === 'unrecognized_keys') {
      out.push({ path, key: issue.keys[0], message: issue.message });
    } else if (issue.code === 'invalid_type' && / received undefined$/.test(issue.message)) {
      out.push({ path, message: `missing: ${String(path.at(-1))} is required (${issue.expected})` });
    } else {
      out.push({ path, message: issue.message });
    }
  }
  return out;
}
