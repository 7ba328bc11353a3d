/** Shared builders for tests: temporary folders and a CLI runner that captures output. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { main } from '../harness/cli/main.ts';

/** A fresh temporary directory, removed when the test file finishes. */
export function tempDir(prefix = 'mace-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Run `mace ARGS...` in-process and capture what it prints. */
export async function runCli(...args: string[]): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await main(['node', 'mace', ...args], {
    out: (text) => void (stdout += text.endsWith('\n') ? text : `${text}\n`),
    err: (text) => void (stderr += text.endsWith('\n') ? text : `${text}\n`),
    isTTY: false,
  });
  return { code, stdout, stderr };
}

/** The project root, for spawning the CLI or fixture scripts as separate processes. */
export const ROOT = new URL('..', import.meta.url).pathname;
