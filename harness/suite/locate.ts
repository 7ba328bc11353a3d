/**
 * A suite file as a YAML document that knows where each value stands, so every problem is reported
 * as `file:line:column: field.path: message`, the way compilers report them and editors jump to them.
 */
import { LineCounter, isAlias, isMap, isPair, isScalar, isSeq, parseDocument, type Document, type Node } from 'yaml';
import { fieldPath } from '../../mace/openpiton/issues.ts';

export type Path = readonly PropertyKey[];

export interface Problem {
  readonly path: Path;
  readonly message: string;
  /** For an unknown key: point at the key itself rather than the object holding it. */
  readonly key?: string;
}

export class SuiteDocument {
  private readonly lines = new LineCounter();
  private readonly doc: Document.Parsed;

  constructor(
    readonly file: string,
    text: string,
  ) {
    this.doc = parseDocument(text, { lineCounter: this.lines, prettyErrors: true, uniqueKeys: true });
  }

  /** YAML syntax errors, each with its position; empty when the text parsed. */
  syntaxErrors(): string[] {
    return this.doc.errors.map((error) => {
      const [line, col] = error.linePos?.[0] ? [error.linePos[0].line, error.linePos[0].col] : [1, 1];
      return `${this.file}:${line}:${col}: ${error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`;
    });
  }

  /** The document as plain data. */
  value(): unknown {
    return this.doc.toJS({ maxAliasCount: 1000 });
  }

  /** `file:line:col: path: message` for one problem. */
  describe(problem: Problem): string {
    const { line, col } = this.position(problem.path, problem.key);
    const where = fieldPath(problem.path);
    return `${this.file}:${line}:${col}: ${where ? `${where}: ` : ''}${problem.message}`;
  }

  /**
   * Where a path points: its node, or for a path that goes further than the document (a missing key),
   * the deepest node it reaches; for `key`, that key of the object at the path.
   */
  position(path: Path, key?: string): { line: number; col: number } {
    let node: Node | null | undefined = this.doc.contents;
    for (const segment of path) {
      const next = this.child(node, segment);
      if (!next) break;
      node = next.value;
    }
    if (key !== undefined) {
      const pair = this.pair(node, key);
      if (pair?.key && typeof pair.key === 'object' && 'range' in pair.key) node = pair.key as Node;
    }
    const offset = node?.range?.[0] ?? 0;
    return this.lines.linePos(offset);
  }

  private resolved(node: Node | null | undefined): Node | null | undefined {
    return node && isAlias(node) ? (node.resolve(this.doc) as Node | undefined) : node;
  }

  private pair(node: Node | null | undefined, key: PropertyKey) {
    const map = this.resolved(node);
    if (!isMap(map)) return undefined;
    return map.items.find((item) => isPair(item) && isScalar(item.key) && String(item.key.value) === String(key));
  }

  private child(node: Node | null | undefined, segment: PropertyKey): { value: Node } | undefined {
    const resolved = this.resolved(node);
    if (isSeq(resolved) && typeof segment === 'number') {
      const item = resolved.items[segment];
      return item && typeof item === 'object' ? { value: item as Node } : undefined;
    }
    const pair = this.pair(resolved, segment);
    return pair?.value && typeof pair.value === 'object' ? { value: pair.value as Node } : undefined;
  }
}
