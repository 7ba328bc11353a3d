/** Reading logs that may be far larger than anything worth holding in memory. */
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { LineScanner } from './parse.ts';

/** Stream each line of a file through the scanners; false when the file cannot be read. */
export async function scanFile(path: string, ...scanners: LineScanner[]): Promise<boolean> {
  try {
    await stat(path);
  } catch {
    return false;
  }
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  try {
    for await (const line of lines) for (const scanner of scanners) scanner.push(line);
    return true;
  } catch {
    return false;
  }
}

/** The last `chars` characters of a file; empty when it is missing. */
export async function readTail(path: string, chars: number): Promise<string> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch {
    return '';
  }
  try {
    const { size } = await handle.stat();
    // A UTF-8 character takes at most 4 bytes; the first one read may be cut, which the slice drops.
    const length = Math.min(size, 4 * chars + 4);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, size - length);
    const text = buffer.toString('utf8');
    return text.length > chars ? text.slice(-chars) : text;
  } finally {
    await handle.close();
  }
}

/** Size in bytes, or 0 when the file is missing. */
export async function fileSize(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}
