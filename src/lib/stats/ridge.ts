/**
 * Ridge regression for small, standardised feature sets, as the offline quality estimate is fit
 * (scripts/fit-quality.ts): features standardised with the training rows' statistics, and the
 * fit made within groups (each group's mean removed from features and target) because the
 * estimate only has to rank the summaries of one source, which a per-source offset cannot change.
 */

export interface Standardizer {
  means: number[];
  sds: number[];
}

/** Column means and (population) standard deviations; a constant column gets sd 1. */
export function standardizer(rows: readonly (readonly number[])[]): Standardizer {
  const width = rows[0]?.length ?? 0;
  const means = Array.from({ length: width }, (_, j) => {
    let sum = 0;
    for (const r of rows) sum += r[j];
    return sum / rows.length;
  });
  const sds = means.map((m, j) => {
    let sum = 0;
    for (const r of rows) sum += (r[j] - m) ** 2;
    const sd = Math.sqrt(sum / rows.length);
    return sd > 1e-12 ? sd : 1;
  });
  return { means, sds };
}

export function standardize(row: readonly number[], s: Standardizer): number[] {
  return row.map((x, j) => (x - s.means[j]) / s.sds[j]);
}

/** Rows with their group's mean subtracted, column by column. */
export function centreWithinGroups(
  rows: readonly (readonly number[])[],
  groups: readonly string[],
): number[][] {
  const sums = new Map<string, { n: number; sum: number[] }>();
  for (const [i, r] of rows.entries()) {
    const g = sums.get(groups[i]) ?? { n: 0, sum: r.map(() => 0) };
    g.n++;
    r.forEach((x, j) => (g.sum[j] += x));
    sums.set(groups[i], g);
  }
  return rows.map((r, i) => {
    const g = sums.get(groups[i])!;
    return r.map((x, j) => x - g.sum[j] / g.n);
  });
}

/** Solves A x = b by Gaussian elimination with partial pivoting (A is small and well posed). */
export function solveLinear(a: readonly (readonly number[])[], b: readonly number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(m[r][col]) > Math.abs(m[pivot][col])) pivot = r;
    if (Math.abs(m[pivot][col]) < 1e-12) throw new Error('singular system');
    [m[col], m[pivot]] = [m[pivot], m[col]];
    for (let r = 0; r < n; r++) {
      if (r === col) continue;
      const f = m[r][col] / m[col][col];
      for (let c = col; c <= n; c++) m[r][c] -= f * m[col][c];
    }
  }
  return m.map((row, i) => row[n] / row[i]);
}

/** Ridge weights without intercept: (XᵀX + λ·n·I)⁻¹ Xᵀy, the penalty scaled by the row count. */
export function ridgeWeights(
  x: readonly (readonly number[])[],
  y: readonly number[],
  lambda: number,
): number[] {
  const width = x[0]?.length ?? 0;
  const xtx = Array.from({ length: width }, () => new Array<number>(width).fill(0));
  const xty = new Array<number>(width).fill(0);
  for (const [i, r] of x.entries()) {
    for (let a = 0; a < width; a++) {
      xty[a] += r[a] * y[i];
      for (let b = 0; b < width; b++) xtx[a][b] += r[a] * r[b];
    }
  }
  for (let a = 0; a < width; a++) xtx[a][a] += lambda * x.length;
  return solveLinear(xtx, xty);
}

export function dot(a: readonly number[], b: readonly number[]): number {
  return a.reduce((sum, x, i) => sum + x * b[i], 0);
}
