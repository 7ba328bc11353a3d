/**
 * The suite format as JSON Schema, for editors: with `# yaml-language-server: $schema=suite.schema.json`
 * at the top of a suite file, VS Code's YAML extension completes keys and flags mistakes as you type.
 * suites/suite.schema.json holds a copy; a test keeps it in step with the zod schema.
 */
import { z } from 'zod';
import { SuiteFileSchema } from './schema.ts';

export function suiteJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(SuiteFileSchema, { io: 'input', unrepresentable: 'any' });
  return { ...schema, title: 'MACE-TS suite file' };
}
