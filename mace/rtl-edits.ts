/**
 * RTL edits: an rtl task's agent edits the design through a tool confined to piton/design. The
 * edits collect in an overlay over the checkout (nothing is written until the task builds), they
 * are applied with a crash-safe backup for the build and run, and restored after. Their diff is part
 * of the build's identity, so an edited design never reuses a model built without the edit.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import type { LlmTool } from './llm/types.ts';
import { editablePath, EditPathError } from './openpiton/edits.ts';

/** Checkout-relative path to the file's full edited content. */
export type EditSet = ReadonlyMap<string, string>;
export const NO_EDITS: EditSet = new Map();

const MAX_READ_CHARS = 60_000;

/** The agent's view of the checkout: the files as they stand, with the edits so far on top. */
export class EditOverlay {
  private readonly edits = new Map<string, string>();

  constructor(
    private readonly root: string,
    base: EditSet = NO_EDITS,
  ) {
    for (const [path, content] of base) this.edits.set(path, content);
  }

  read(relPath: string): string {
    const path = relPath.trim().replace(/^\.\//, '');
    if (this.edits.has(path)) return this.edits.get(path)!;
    if (path.startsWith('/') || path.split('/').includes('..'))
      throw new EditPathError(`${JSON.stringify(relPath)} is not a path inside the checkout`);
    return readFileSync(join(this.root, path), 'utf8');
  }

  write(relPath: string, content: string): void {
    this.edits.set(editablePath(relPath), content);
  }

  list(relDir: string): string[] {
    const dir = relDir.trim().replace(/\/+$/, '');
    if (dir.startsWith('/') || dir.split('/').includes('..'))
      throw new EditPathError(`${JSON.stringify(relDir)} is not a folder inside the checkout`);
    return readdirSync(join(this.root, dir))
      .map((name) => (statSync(join(this.root, dir, name)).isDirectory() ? `${name}/` : name))
      .sort();
  }

  /** The edits made so far (base edits included). */
  current(): EditSet {
    return new Map(this.edits);
  }
}

/** A tool's answer: what `fn` returns, or its error as `ERROR: ...` text (tools never throw). */
export function guard(fn: () => string): Promise<string> {
  try {
    return Promise.resolve(fn());
  } catch (error) {
    return Promise.resolve(`ERROR: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** A string argument of a tool call, or '' when it is missing or not a string. */
export const textArg = (args: Readonly<Record<string, unknown>>, key: string): string =>
  typeof args[key] === 'string' ? (args[key] as string) : '';

/** Read-only file tools plus the edit tool, for an rtl task's agent. */
export function editTools(overlay: EditOverlay): LlmTool[] {
  const text = textArg;
  return [
    {
      name: 'list_files',
      description:
        'List a folder of the OpenPiton checkout (paths relative to its root, e.g. piton/design/chip/tile/pico/rtl).',
      parameters: { type: 'object', properties: { folder: { type: 'string' } }, required: ['folder'] },
      execute: (args) => guard(() => overlay.list(text(args, 'folder')).join('\n')),
    },
    {
      name: 'read_file',
      description: 'Read a text file of the checkout, with the edits made so far applied.',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      execute: (args) => guard(() => overlay.read(text(args, 'path')).slice(0, MAX_READ_CHARS)),
    },
    {
      name: 'replace_in_file',
      description:
        'Replace one exact occurrence of `old` with `new` in a file under piton/design/ (piton/verif is read-only).',
      parameters: {
        type: 'object',
        properties: { path: { type: 'string' }, old: { type: 'string' }, new: { type: 'string' } },
        required: ['path', 'old', 'new'],
      },
      execute: (args) =>
        guard(() => {
          const path = text(args, 'path');
          const content = overlay.read(path);
          const old = text(args, 'old');
          const count = old ? content.split(old).length - 1 : 0;
          if (count !== 1) return `ERROR: \`old\` must occur exactly once in ${path}; it occurs ${count} time(s)`;
          overlay.write(path, content.replace(old, text(args, 'new')));
          return `OK, replaced 1 occurrence in ${path}`;
        }),
    },
    {
      name: 'write_file',
      description: 'Write the whole content of a file under piton/design/.',
      parameters: {
        type: 'object',
        properties: { path: { type: 'string' }, content: { type: 'string' } },
        required: ['path', 'content'],
      },
      execute: (args) =>
        guard(() => {
          overlay.write(text(args, 'path'), text(args, 'content'));
          return `OK, wrote ${text(args, 'content').length} characters to ${text(args, 'path')}`;
        }),
    },
  ];
}

/** A unified diff of the edits against the checkout's files, in path order ('' for no edits). */
export function editsDiff(root: string, edits: EditSet): string {
  return [...edits.keys()]
    .sort()
    .map((path) => {
      let original = '';
      try {
        original = readFileSync(join(root, path), 'utf8');
      } catch {
        original = '';
      }
      return original === edits.get(path)
        ? ''
        : createTwoFilesPatch(`a/${path}`, `b/${path}`, original, edits.get(path)!, '', '', { context: 3 });
    })
    .filter(Boolean)
    .join('');
}
