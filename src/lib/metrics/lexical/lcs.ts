/**
 * Longest-common-subsequence kernels shared by the two ROUGE variants (Google rouge_score and
 * pltrdy `rouge`). Both libraries fill the full O(n·m) table; we do the same arithmetic but keep
 * only what each caller needs:
 *
 * - the length alone needs two rows of the shorter sequence (O(min(n, m)) memory);
 * - a reconstruction needs, per cell, only which way the backtrack turns on a mismatch, so we
 *   store one bit per cell instead of the table (n·m/8 bytes). The turn rule is the caller's:
 *   rouge_score and pltrdy break ties in opposite directions, and the chosen LCS decides which
 *   words are counted in the union LCS, so the rule is a parameter, not a detail.
 *
 * Sequences are integer ids (see `Interner`) so the inner loop compares numbers, not strings.
 */

/** Cells (tokens × tokens) one LCS computation may fill before we refuse to run it. */
export const LCS_CELL_BUDGET = 20_000_000;

/** Maps tokens to dense integer ids; one interner per comparison so ids are comparable. */
export class Interner {
  private readonly ids = new Map<string, number>();

  /** How many distinct tokens have an id (ids are 0 … size − 1). */
  get size(): number {
    return this.ids.size;
  }

  id(token: string): number {
    let id = this.ids.get(token);
    if (id === undefined) {
      id = this.ids.size;
      this.ids.set(token, id);
    }
    return id;
  }

  intern(tokens: readonly string[]): Int32Array {
    const out = new Int32Array(tokens.length);
    for (let i = 0; i < tokens.length; i++) out[i] = this.id(tokens[i]);
    return out;
  }
}

/** LCS length in O(n·m) time and O(min(n, m)) memory. */
export function lcsLength(a: ArrayLike<number>, b: ArrayLike<number>): number {
  // LCS length is symmetric, so the shorter sequence can index the rows.
  const [outer, inner] = a.length >= b.length ? [a, b] : [b, a];
  const m = inner.length;
  if (m === 0) return 0;
  let prev = new Int32Array(m + 1);
  let cur = new Int32Array(m + 1);
  for (let i = 0; i < outer.length; i++) {
    const x = outer[i];
    for (let j = 1; j <= m; j++) {
      if (x === inner[j - 1]) cur[j] = prev[j - 1] + 1;
      else cur[j] = prev[j] >= cur[j - 1] ? prev[j] : cur[j - 1];
    }
    [prev, cur] = [cur, prev];
  }
  return prev[m];
}

/**
 * How the backtrack leaves a mismatched cell (i, j), given up = T[i-1][j] and left = T[i][j-1]:
 * - 'rouge_score': left if left > up, else up (`_backtrack_norec`);
 * - 'pltrdy': up if up > left, else left (`_recon`).
 */
export type LcsTieBreak = 'rouge_score' | 'pltrdy';

let bitScratch = new Uint8Array(0);

/**
 * One LCS of `x` and `y`, as the indices into `x` of its elements, ascending, chosen exactly as
 * the named library's backtrack chooses it. Memory: one bit per cell (x.length · y.length / 8).
 */
export function lcsIndices(
  x: ArrayLike<number>,
  y: ArrayLike<number>,
  tieBreak: LcsTieBreak,
): number[] {
  const n = x.length;
  const m = y.length;
  if (n === 0 || m === 0) return [];
  if (n * m > 2 ** 31 - 1) throw new RangeError(`LCS table of ${n}×${m} cells is too large`);
  const bytes = Math.ceil((n * m) / 8);
  if (bitScratch.length < bytes) bitScratch = new Uint8Array(Math.max(bytes, 1024));
  const goLeft = bitScratch;
  goLeft.fill(0, 0, bytes);
  const preferLeftOnTie = tieBreak === 'pltrdy';
  let prev = new Int32Array(m + 1);
  let cur = new Int32Array(m + 1);
  for (let i = 1; i <= n; i++) {
    const xi = x[i - 1];
    const rowBase = (i - 1) * m;
    for (let j = 1; j <= m; j++) {
      if (xi === y[j - 1]) {
        cur[j] = prev[j - 1] + 1;
      } else {
        const up = prev[j];
        const left = cur[j - 1];
        cur[j] = up >= left ? up : left;
        const left1 = preferLeftOnTie ? up <= left : left > up;
        if (left1) {
          const bit = rowBase + j - 1;
          goLeft[bit >> 3] |= 1 << (bit & 7);
        }
      }
    }
    [prev, cur] = [cur, prev];
  }
  const out: number[] = [];
  let i = n;
  let j = m;
  while (i > 0 && j > 0) {
    if (x[i - 1] === y[j - 1]) {
      out.push(i - 1);
      i--;
      j--;
    } else {
      const bit = (i - 1) * m + j - 1;
      if (goLeft[bit >> 3] & (1 << (bit & 7))) j--;
      else i--;
    }
  }
  out.reverse();
  return out;
}
