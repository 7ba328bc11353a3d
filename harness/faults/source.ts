/**
 * Source faults: a planted edit under piton/design (replace one exact piece of text that occurs once)
 * for the length of a job, in every checkout the job uses. Each file is backed up under
 * build/.mace_fault_backup before it changes, with a manifest written first, so a fault left behind
 * by a crash or a SIGKILL is undone the next time a sweep opens the checkout (restoreSourceFaults).
 * The backup folder is not the RTL edit tool's, so neither undoes the other.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../../mace/errors.ts';
import { FAULT_BACKUP_DIR, applyFiles, editablePath, restorePending } from '../../mace/openpiton/edits.ts';

export interface SourceEdit {
  /** Checkout-relative, under piton/design/. */
  readonly path: string;
  readonly old: string;
  readonly new: string;
}

/** Undo a source fault a crash left applied in this checkout; a no-op when there is none. */
export function restoreSourceFaults(root: string): void {
  restorePending(root, FAULT_BACKUP_DIR);
}

/** Why these edits cannot be applied to this checkout (text not found exactly once, unreadable file); empty when they can. */
export function sourceFaultProblems(root: string, edits: readonly SourceEdit[]): string[] {
  try {
    faultedFiles(root, edits);
    return [];
  } catch (error) {
    return [(error as Error).message];
  }
}

/** The new content of every file the edits touch; several edits of one file apply in order. */
function faultedFiles(root: string, edits: readonly SourceEdit[]): Map<string, string> {
  const files = new Map<string, string>();
  for (const edit of edits) {
    const path = editablePath(edit.path);
    let text = files.get(path);
    if (text === undefined) {
      const bytes = readFileSync(join(root, path));
      text = bytes.toString('utf8');
      // A file that is not UTF-8 would come back altered; the backup restores it, but refuse to guess.
      if (!Buffer.from(text, 'utf8').equals(bytes)) throw new InputError(`${path} in ${root} is not UTF-8 text`);
    }
    const count = text.split(edit.old).length - 1;
    if (count !== 1)
      throw new InputError(
        `source fault: ${JSON.stringify(edit.old)} occurs ${count} times in ${path} of ${root}; it must occur exactly once`,
      );
    files.set(
      path,
      text.replace(edit.old, () => edit.new),
    );
  }
  return files;
}

/**
 * Plant the fault in every checkout (first undoing any fault a crash left behind). Returns the
 * function that restores them all; if one checkout cannot take the fault, the others are restored
 * before the error is thrown.
 */
export function plantSourceFault(roots: readonly string[], edits: readonly SourceEdit[]): () => void {
  const restores: (() => void)[] = [];
  const restoreAll = () => {
    for (const restore of restores.splice(0).reverse()) restore();
  };
  try {
    for (const root of roots) {
      restoreSourceFaults(root);
      restores.push(applyFiles(root, faultedFiles(root, edits), FAULT_BACKUP_DIR));
    }
  } catch (error) {
    restoreAll();
    throw error;
  }
  return restoreAll;
}
