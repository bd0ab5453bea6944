/**
 * The fault suite as a library: the CLI (`npm run faults`) and the e2e spec
 * (tests/e2e/faults.spec.ts, the short form inside `npm test`) both call `runSuite`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchBrowser } from '../e2e/support/browser.ts';
import { FAULT_IDS, FAULTS, startFaultLlm, type FaultId } from '../helpers/fault-llm.ts';
import { totalsOf, type Report, type ReportRow } from './report.ts';
import {
  KINDS,
  baseline,
  batchRandom,
  fatalMidRun,
  offlineSpell,
  reloadMidRun,
  singleCases,
  storageQuota,
  twoTabs,
  type SingleCasePlan,
  type SuiteEnv,
} from './scenarios.ts';

export const SCENARIOS = [
  'single',
  'batch',
  'fatal',
  'reload',
  'offline',
  'two-tabs',
  'storage',
] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

export interface SuiteOptions {
  short: boolean;
  /** The built app, served by the caller. */
  origin: string;
  /** Only these scenarios (default all). */
  only?: readonly ScenarioName[];
  log?: (line: string) => void;
}

/** The short form's single cases: 10 faults of every class over three provider kinds. */
export const SHORT_SINGLES: readonly SingleCasePlan[] = [
  { kind: 'openai', faults: ['key-echo', 'rate-limit-hint', 'malformed-json', 'prompt-injection'] },
  { kind: 'anthropic', faults: ['overloaded-529', 'refusal', 'quota'] },
  { kind: 'gemini', faults: ['bad-key', 'prose-not-json', 'truncated'] },
];

export function fullSingles(): SingleCasePlan[] {
  const faults = FAULT_IDS.filter((id) => FAULTS[id] !== undefined) as FaultId[];
  return KINDS.map((kind) => ({ kind, faults }));
}

export async function runSuite(options: SuiteOptions): Promise<Report> {
  const started = Date.now();
  const log = options.log ?? (() => {});
  const want = (s: ScenarioName) => !options.only || options.only.includes(s);
  const dir = mkdtempSync(join(tmpdir(), 'sumlens-faults-'));
  const fault = await startFaultLlm();
  const browser = await launchBrowser();
  const env: SuiteEnv = { browser, origin: options.origin, fault, dir, log };
  const rows: ReportRow[] = [];
  const short = options.short;
  try {
    if (want('single'))
      rows.push(...(await singleCases(env, short ? SHORT_SINGLES : fullSingles())));
    const batchScenarios = SCENARIOS.filter((s) => s !== 'single' && s !== 'storage' && want(s));
    if (batchScenarios.length > 0) {
      const big = short ? 24 : 60;
      const base = await baseline(env, big);
      if (want('batch')) rows.push(await batchRandom(env, big, base));
      if (want('fatal')) {
        rows.push(await fatalMidRun(env, 'openai', 'bad-key', short ? 20 : 30, base));
        if (!short) {
          rows.push(await fatalMidRun(env, 'gemini', 'quota', 30, base));
          rows.push(await fatalMidRun(env, 'anthropic', 'overloaded-529', 30, base));
        }
      }
      if (want('reload')) rows.push(await reloadMidRun(env, short ? 12 : 20, base));
      if (want('offline')) rows.push(await offlineSpell(env, short ? 12 : 20, base));
      if (want('two-tabs')) rows.push(await twoTabs(env, short ? 12 : 20, base));
    }
    if (want('storage')) rows.push(await storageQuota(env));
  } finally {
    await browser.close().catch(() => undefined);
    await fault.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
  return {
    form: short ? 'short' : 'full',
    startedAt: new Date(started).toISOString(),
    ms: Date.now() - started,
    rows,
    totals: totalsOf(rows),
  };
}
