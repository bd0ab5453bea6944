/**
 * Names a person tells apart: a data set imported again from the same file is "dev (2)", and the
 * runs of a data set are "dev · run 1", "dev · run 2" (two runs started the same minute would
 * otherwise read the same in the list).
 */

/** `base`, or the first of "base (2)", "base (3)" … that no name in `taken` is. */
export function uniqueName(base: string, taken: Iterable<string>): string {
  const names = new Set(taken);
  if (!names.has(base)) return base;
  for (let n = 2; ; n++) {
    const name = `${base} (${n})`;
    if (!names.has(name)) return name;
  }
}

/** The next run of the data set `datasetName`: one past the highest run number its runs have. */
export function nextRunName(datasetName: string, taken: Iterable<string | undefined>): string {
  const prefix = `${datasetName} · run `;
  let highest = 0;
  for (const name of taken) {
    if (!name?.startsWith(prefix)) continue;
    const n = Number(name.slice(prefix.length));
    if (Number.isInteger(n) && n > highest) highest = n;
  }
  return `${prefix}${highest + 1}`;
}

/** What the list calls a run: its name, or (runs stored before runs had names) its data set's. */
export function runLabel(run: { name?: string; datasetName: string }): string {
  return run.name ?? run.datasetName;
}
