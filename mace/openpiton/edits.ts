/**
 * Temporary source edits in a checkout, crash-safe: before any file changes, its original is copied
 * into a backup folder under build/ and a manifest is written, so an edit interrupted by a crash is
 * undone the next time the checkout is opened. RTL edits, planted source faults and unit-test
 * scaffolds each use their own folder, so none undoes another.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize, resolve, sep } from 'node:path';

export const EDIT_BACKUP_DIR = 'build/.mace_edit_backup';
export const FAULT_BACKUP_DIR = 'build/.mace_fault_backup';

/** Only the design may be edited; piton/verif and the tools stay read-only. */
export const EDITABLE_PREFIX = 'piton/design/';

export class EditPathError extends Error {
  override name = 'EditPathError';
}

/** A checkout-relative path an edit may write, normalised; throws EditPathError otherwise. */
export function editablePath(relPath: string): string {
  const path = normalize(relPath.trim()).split(sep).join('/');
  if (!path || path.startsWith('/') || path.startsWith('..') || path.includes('/../')) {
    throw new EditPathError(`${JSON.stringify(relPath)} is not a path inside the checkout`);
  }
  if (!path.startsWith(EDITABLE_PREFIX)) {
    throw new EditPathError(
      `${JSON.stringify(relPath)} is outside ${EDITABLE_PREFIX}; only the design may be edited (piton/verif is read-only)`,
    );
  }
  return path;
}

interface Manifest {
  /** Checkout-relative path to its backup file name, or null when nothing was there. */
  readonly files: Record<string, string | null>;
}

/**
 * Write `files` (path → new content) into the checkout, backing up each original first.
 * Returns a function that restores everything; a crash before it runs is undone by restorePending().
 */
export function applyFiles(root: string, files: ReadonlyMap<string, string>, backupDir = EDIT_BACKUP_DIR): () => void {
  if (!files.size) {
    restorePending(root, backupDir);
    return () => undefined;
  }
  const paths = [...files.keys()].map(editablePath);
  const restore = backupPaths(root, paths, backupDir);
  for (const [rel, content] of files) {
    const full = inside(root, editablePath(rel));
    mkdirSync(dirname(full), { recursive: true });
    // Whole or not at all: a kill mid-write must not leave a truncated source file behind.
    writeAtomically(full, content);
  }
  return restore;
}

/**
 * Back up checkout-relative paths before the caller changes them (a script that creates files, say):
 * each existing file is copied aside, and each path that does not exist yet is noted, so restoring
 * removes it (a folder with everything in it). Undoes any backup a crash left in `backupDir` first.
 * Returns the restore function; a crash before it runs is undone by restorePending().
 */
export function backupPaths(root: string, paths: readonly string[], backupDir: string): () => void {
  restorePending(root, backupDir);
  const dir = join(root, backupDir);
  mkdirSync(dir, { recursive: true });
  const manifest: Manifest = { files: {} };
  paths.forEach((rel, i) => {
    const full = inside(root, rel);
    if (existsSync(full)) {
      copyFileSync(full, join(dir, `${i}.orig`));
      manifest.files[rel] = `${i}.orig`;
    } else {
      manifest.files[rel] = null;
    }
  });
  writeAtomically(join(dir, 'manifest.json'), JSON.stringify(manifest));
  return () => restorePending(root, backupDir);
}

/** Undo edits a crash left applied; a no-op when there are none. */
export function restorePending(root: string, backupDir = EDIT_BACKUP_DIR): void {
  const dir = join(root, backupDir);
  const manifestPath = join(dir, 'manifest.json');
  if (!existsSync(manifestPath)) {
    rmSync(dir, { recursive: true, force: true });
    return;
  }
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Manifest;
  for (const [rel, backup] of Object.entries(manifest.files)) {
    const full = inside(root, rel);
    if (backup === null) rmSync(full, { recursive: true, force: true });
    else copyFileSync(join(dir, backup), full);
  }
  rmSync(dir, { recursive: true, force: true });
}

function inside(root: string, rel: string): string {
  const base = resolve(root);
  const full = resolve(base, rel);
  if (!full.startsWith(base + sep)) throw new EditPathError(`${JSON.stringify(rel)} resolves outside the checkout`);
  return full;
}

function writeAtomically(path: string, text: string): void {
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
}
