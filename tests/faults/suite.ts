/**
 * The fault suite as a library: the CLI (`npm run faults`) and the e2e spec
 * (tests/e2e/faults.spec.ts, the short form inside `npm test`) both call `runSuite`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchBrowser } from '../e2e/support/browser.ts';
import { FAULT_IDS, FAULTS, startFaultLlm, type FaultId } from '../helpers/fault-llm.ts';
import { KINDS, baseline, type SuiteEnv } from './harness.ts';
import { importChecks, keyChoices, type ImportPlan } from './imports.ts';
import type { KeyPersistence } from './page.ts';
import { totalsOf, type Report, type ReportRow } from './report.ts';
import {
  clearedMidRun,
  importedRuns,
  reloadResume,
  storageMidRun,
  tabClosed,
  type ImportedStatus,
} from './run-life.ts';
import {
  batchRandom,
  echoingGateway,
  fatalMidRun,
  offlineSpell,
  reloadMidRun,
  singleCases,
  storageQuota,
  twoTabs,
  type SingleCasePlan,
} from './scenarios.ts';

export const SCENARIOS = [
  'single',
  'batch',
  'fatal',
  'reload',
  'reload-resume',
  'offline',
  'two-tabs',
  'tab-close',
  'storage',
  'storage-run',
  'clear-data',
  'echo',
  'run-file',
  'import',
  'keys',
] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

/** The scenarios that need no data-set baseline; every other one runs a data set against it. */
const OWN_PAGES: readonly ScenarioName[] = ['single', 'storage', 'import', 'keys'];
const ON_BASELINE = SCENARIOS.filter((s) => !OWN_PAGES.includes(s));

export interface SuiteOptions {
  short: boolean;
  /** The built app, served by the caller. */
  origin: string;
  /** Only these scenarios (default all). */
  only?: readonly ScenarioName[];
  log?: (line: string) => void;
}

/** The short form's single cases: 12 faults of every class over the four provider kinds. */
export const SHORT_SINGLES: readonly SingleCasePlan[] = [
  { kind: 'openai', faults: ['key-echo', 'rate-limit-hint', 'malformed-json', 'prompt-injection'] },
  { kind: 'anthropic', faults: ['overloaded-529', 'refusal', 'quota'] },
  { kind: 'gemini', faults: ['bad-key', 'prose-not-json', 'truncated'] },
  { kind: 'openai-compatible', faults: ['key-echo', 'server-500'] },
];

export function fullSingles(): SingleCasePlan[] {
  const faults = FAULT_IDS.filter((id) => FAULTS[id] !== undefined) as FaultId[];
  return KINDS.map((kind) => ({ kind, faults }));
}

/** What each form runs beyond the single cases. */
interface FormPlan {
  big: number;
  small: number;
  fatal: ReadonlyArray<['openai' | 'gemini' | 'anthropic', FaultId, number]>;
  tabClose: readonly boolean[];
  echoRows: number;
  runFiles: readonly ImportedStatus[];
  imports: ImportPlan;
  keys: ReadonlyArray<readonly [KeyPersistence, KeyPersistence]>;
}

const SHORT: FormPlan = {
  big: 16,
  small: 12,
  fatal: [['openai', 'bad-key', 16]],
  tabClose: [true],
  echoRows: 8,
  runFiles: ['running'],
  imports: { quotes: ['quoted'], encoding: true, duplicates: true },
  keys: [['device', 'memory']],
};

const FULL: FormPlan = {
  big: 60,
  small: 20,
  fatal: [
    ['openai', 'bad-key', 30],
    ['gemini', 'quota', 30],
    ['anthropic', 'overloaded-529', 30],
  ],
  tabClose: [true, false],
  echoRows: 20,
  runFiles: ['running', 'paused'],
  imports: { quotes: ['unquoted', 'quoted'], encoding: true, duplicates: true },
  keys: [
    ['device', 'memory'],
    ['device', 'session'],
    ['session', 'memory'],
  ],
};

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
  const plan = short ? SHORT : FULL;
  try {
    if (want('single'))
      rows.push(...(await singleCases(env, short ? SHORT_SINGLES : fullSingles())));
    if (ON_BASELINE.some(want)) {
      const base = await baseline(env, plan.big);
      if (want('batch')) rows.push(await batchRandom(env, plan.big, base));
      if (want('fatal'))
        for (const [kind, id, n] of plan.fatal)
          rows.push(await fatalMidRun(env, kind, id, n, base));
      if (want('reload')) rows.push(await reloadMidRun(env, plan.small, base));
      if (want('reload-resume')) rows.push(await reloadResume(env, plan.small, base));
      if (want('offline')) rows.push(await offlineSpell(env, plan.small, base));
      if (want('two-tabs')) rows.push(await twoTabs(env, plan.small, base));
      if (want('tab-close'))
        for (const keyInB of plan.tabClose)
          rows.push(await tabClosed(env, plan.small, base, keyInB));
      if (want('storage-run')) rows.push(await storageMidRun(env, plan.small, base));
      if (want('clear-data')) rows.push(await clearedMidRun(env, plan.small, base));
      if (want('echo')) rows.push(await echoingGateway(env, plan.echoRows, base));
      if (want('run-file'))
        rows.push(...(await importedRuns(env, plan.small, base, plan.runFiles)));
    }
    if (want('storage')) rows.push(await storageQuota(env));
    if (want('import')) rows.push(...(await importChecks(env, plan.imports)));
    if (want('keys')) rows.push(...(await keyChoices(env, plan.keys)));
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
