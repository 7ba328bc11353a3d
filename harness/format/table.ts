/**
 * Text and Markdown tables from rows of plain values. Numbers are right-aligned; null and undefined
 * print as `-`; floats get a fixed number of decimals per column when asked.
 */

export interface Column<R> {
  readonly key: keyof R & string;
  readonly title?: string;
  /** Decimals for a number; integers print as they are unless this is set. */
  readonly decimals?: number;
  readonly format?: (value: R[keyof R], row: R) => string;
}

export function cellText<R>(column: Column<R>, row: R): string {
  const value = row[column.key];
  if (column.format) return column.format(value, row);
  if (value === null || value === undefined) return '-';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return String(value);
    if (column.decimals !== undefined) return value.toFixed(column.decimals);
    return Number.isInteger(value) ? String(value) : value.toFixed(2);
  }
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (value instanceof Date) return value.toISOString().replace('T', ' ').slice(0, 19);
  return String(value);
}

/** A space-aligned table for a terminal. */
export function textTable<R>(rows: readonly R[], columns: readonly Column<R>[]): string {
  const head = columns.map((c) => c.title ?? c.key);
  const body = rows.map((row) => columns.map((c) => cellText(c, row)));
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const numeric = columns.map((c) => rows.some((row) => typeof row[c.key] === 'number'));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (numeric[i] ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

/** A GitHub-flavoured Markdown table. */
export function markdownTable<R>(rows: readonly R[], columns: readonly Column<R>[]): string {
  // Most cells have no pipe; testing first skips a regular-expression pass over each of them.
  const escape = (text: string) => (text.includes('|') ? text.replace(/\|/g, '\\|') : text);
  const head = `| ${columns.map((c) => escape(c.title ?? c.key)).join(' | ')} |`;
  const rule = `|${columns.map((c) => (rows.some((row) => typeof row[c.key] === 'number') ? '---:' : '---')).join('|')}|`;
  const body = rows.map((row) => `| ${columns.map((c) => escape(cellText(c, row))).join(' | ')} |`);
  return [head, rule, ...body].join('\n');
}
