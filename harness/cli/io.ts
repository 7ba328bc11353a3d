/** Where a command writes. Tests pass their own to capture output; the CLI passes the process's. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
  /** True when stdout is a terminal: progress may redraw in place; otherwise print plain lines. */
  readonly isTTY: boolean;
}

export const processIo: Io = {
  out: (text) => void process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => void process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
  isTTY: Boolean(process.stdout.isTTY),
};

/** Print a value as indented JSON (Dates as ISO strings). */
export function printJson(io: Io, value: unknown): void {
  io.out(JSON.stringify(value, null, 2));
}

/** A run or check that completed and failed: the CLI exits with code 1 and prints the message. */
export class CommandFailed extends Error {
  override name = 'CommandFailed';
}
