/** A small line diff (longest common subsequence), enough to compare two versions of a source file. */

export interface Hunk {
  /** Lines only the first text has. */
  removed: string[];
  /** Lines only the second text has. */
  added: string[];
}

/** The changes that turn `a` into `b`, as runs of removed and added lines. */
export function lineDiff(a: string, b: string): Hunk[] {
  const x = a.split('\n');
  const y = b.split('\n');
  // lcs[i][j]: length of the longest common subsequence of x[i..] and y[j..].
  const lcs = Array.from({ length: x.length + 1 }, () => new Array<number>(y.length + 1).fill(0));
  for (let i = x.length - 1; i >= 0; i--) {
    for (let j = y.length - 1; j >= 0; j--)
      lcs[i]![j] = x[i] === y[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  }
  const hunks: Hunk[] = [];
  let current: Hunk | null = null;
  const flush = () => {
    if (current) hunks.push(current);
    current = null;
  };
  let i = 0;
  let j = 0;
  while (i < x.length || j < y.length) {
    if (i < x.length && j < y.length && x[i] === y[j]) {
      flush();
      i++;
      j++;
    } else if (j < y.length && (i === x.length || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) {
      current ??= { removed: [], added: [] };
      current.added.push(y[j++]!);
    } else {
      current ??= { removed: [], added: [] };
      current.removed.push(x[i++]!);
    }
  }
  flush();
  return hunks;
}

/** `- removed` / `+ added` lines, for a failure message. */
export function formatHunks(file: string, hunks: Hunk[]): string {
  return hunks.map((h) => [`@@ ${file}`, ...h.removed.map((l) => `- ${l}`), ...h.added.map((l) => `+ ${l}`)].join('\n')).join('\n');
}
