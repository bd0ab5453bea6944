/**
 * `npm run faults [-- --short] [--port 4180] [--only single,batch,…] [--readme]`: serves dist/ with
 * `vite preview` on its own port, drives the built app in Chromium against the fault-injecting
 * fake provider (loopback, port 0), prints one row per scenario/fault and the totals, writes
 * .tmp/faults-report.json and .tmp/faults-report.md, and exits 1 when a row is lost (at import or
 * in a run), a row is scored or an answer bought twice, a page error occurs, the key shows where
 * the user did not put it, a run is shown running with nothing running, or any check fails.
 * `--readme` also puts the table, single cases folded per fault, into docs/providers.md.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { preview } from 'vite';
import { markdownTable, readmeTable, textTable, verdict, withReadmeTable } from './report.ts';
import { SCENARIOS, runSuite, type ScenarioName } from './suite.ts';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const root = resolve(import.meta.dirname, '../..');
const short = process.argv.includes('--short');
/** Puts the (folded) table into docs/providers.md between its faults-table markers. */
const writeReadme = process.argv.includes('--readme');
const port = Number(arg('--port') ?? process.env.SUMLENS_FAULTS_PORT ?? 4180);
const only = arg('--only')
  ?.split(',')
  .map((s) => s.trim()) as ScenarioName[] | undefined;
for (const s of only ?? []) {
  if (!(SCENARIOS as readonly string[]).includes(s)) {
    console.error(`Unknown scenario ${s}; choose from ${SCENARIOS.join(', ')}`);
    process.exit(2);
  }
}
if (!existsSync(resolve(root, 'dist/index.html'))) {
  console.error('No build in dist/: run "npm run build" first (npm run faults does).');
  process.exit(2);
}

const server = await preview({
  root,
  logLevel: 'warn',
  preview: { port, strictPort: true, host: '127.0.0.1' },
});
let code: number;
try {
  const origin = `http://127.0.0.1:${port}`;
  console.error(`fault suite (${short ? 'short' : 'full'}) against ${origin}`);
  const report = await runSuite({
    short,
    origin,
    ...(only ? { only } : {}),
    log: (line) => console.error(`  ${line}`),
  });
  console.log(textTable(report));
  mkdirSync(resolve(root, '.tmp'), { recursive: true });
  writeFileSync(resolve(root, '.tmp/faults-report.json'), JSON.stringify(report, null, 2) + '\n');
  writeFileSync(resolve(root, '.tmp/faults-report.md'), markdownTable(report));
  if (writeReadme) {
    const path = resolve(root, 'docs/providers.md');
    writeFileSync(path, withReadmeTable(readFileSync(path, 'utf8'), readmeTable(report)));
  }
  const why = verdict(report.totals);
  console.log(
    `\n${why.length ? `FAILED: ${why.join(', ')}` : 'OK: no row lost, nothing bought twice, no page error, no key leak, every check held'} (${Math.round(report.ms / 1000)} s; .tmp/faults-report.json, .tmp/faults-report.md)`,
  );
  code = why.length ? 1 : 0;
} catch (error) {
  console.error(error);
  code = 2;
} finally {
  await server.close();
}
process.exit(code);
