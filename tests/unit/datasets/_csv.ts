/**
 * A CSV of cases whose id column is the spreadsheet row number each row is written at, with an
 * unclosed quote in one row: what the parser and the CLI tests feed in.
 */

/**
 * `rows` data rows (rows 2 … rows + 1 counting the header) of `id,source,summary`; row `bad` opens
 * a quote it never closes. `later`: whether the other rows quote their text fields.
 */
export function brokenCsv(
  rows: number,
  bad: number,
  later: 'quoted' | 'unquoted',
  newline = '\n',
): string {
  const lines = ['id,source,summary'];
  for (let row = 2; row <= rows + 1; row++) {
    const source = `Source ${row}, a sentence.`;
    const summary = `Summary ${row}.`;
    if (row === bad) lines.push(`${row},"Source ${row} has a stray quote,${summary}`);
    else if (later === 'quoted') lines.push(`${row},"${source}","${summary}"`);
    else lines.push(`${row},Source ${row} a sentence.,${summary}`);
  }
  return lines.join(newline) + newline;
}
