/**
 * The fault suite's scenarios on the provider's faults, each returning report rows: single cases
 * under every fault and provider kind, a data-set batch with random transient faults and its
 * retry, fatal errors mid-run, a reload mid-run, an offline spell, two tabs, and a full storage
 * quota. Every scenario waits on the run it started (by id) and measures from two sides: what the
 * page stored and shows (sampled during the run, sampler.ts), and what the fake provider received
 * (against the fault-free need and the bound, harness.ts). The run's life beyond the provider
 * (tabs closed, storage full or cleared, imported runs) is in run-life.ts; imports and key
 * settings in imports.ts.
 */
import type { ProviderKind } from '../../src/lib/llm/types.ts';
import {
  FAULTS,
  INJECTION_CLOSE,
  INJECTION_TEXT,
  faultOnWire,
  type FaultId,
  type FaultLogEntry,
} from '../helpers/fault-llm.ts';
import { singleCase } from './dataset.ts';
import {
  CONCURRENCY,
  JUDGE_IDS,
  RUN_CHOICE,
  TIMEOUT_SEC,
  WIRE_OF,
  account,
  accountingNotes,
  allRows,
  answeredLog,
  canaryKey,
  checkBound,
  closingAccount,
  contractNotes,
  errorText,
  everyExport,
  fail,
  finish,
  goneAt,
  inBatchPage,
  logged,
  neededFor,
  providerFor,
  resumeToDone,
  row,
  settleOrPause,
  tags,
  type Baseline,
  type SuiteEnv,
} from './harness.ts';
import { keyLeaks } from './leaks.ts';
import {
  OFFLINE_METRIC_IDS,
  clearJudgeCache,
  clickIn,
  configureJudge,
  enterKey,
  fillCase,
  hasTimeoutField,
  openFaultPage,
  poll,
  runView,
  sampleRun,
  scoreAndWait,
  startRun,
  storedRun,
  usageRequests,
  waitApp,
  waitSettled,
  watchPage,
} from './page.ts';
import type { ReportRow } from './report.ts';
import { RunSampler, samplerNotes, sampledRun, samplesOf, type Sample } from './sampler.ts';

// --- checks ------------------------------------------------------------------------------------

/** What keeps a failure message from being plain words. */
export function plainProblems(reason: string): string[] {
  const out: string[] = [];
  if (!reason.trim()) out.push('empty message');
  if (/\bundefined\b|\[object Object\]|\bNaN\b/u.test(reason))
    out.push('says undefined/[object Object]');
  if (/\n\s+at \S|\bat \S+ \([^)]*:\d+:\d+\)|\.(?:ts|js|mjs):\d+/u.test(reason))
    out.push('a stack trace');
  if (/[{[]\s*"[\w-]+"\s*:/u.test(reason)) out.push('raw JSON');
  if (/<html|<!doctype/iu.test(reason)) out.push('raw HTML');
  return out;
}

/** The injection must stay inside a fenced block whose nonce the system prompt names. */
export function fencingProblems(entries: readonly FaultLogEntry[]): string[] {
  const out = new Set<string>();
  const carrying = entries.filter((e) => e.messages);
  if (carrying.length === 0) out.add('no request carried the case text');
  for (const e of carrying) {
    const messages = e.messages!;
    const system = messages.find((m) => m.role === 'system')?.content ?? '';
    const user = messages
      .filter((m) => m.role !== 'system')
      .map((m) => m.content)
      .join('\n');
    const blocks = [...user.matchAll(/<(\w+) id="(s_[0-9a-f]{6})">\n([\s\S]*?)\n<\/\1>/gu)];
    let outside = user;
    for (const b of blocks) {
      outside = outside.replace(b[0], '');
      if (b[3]!.includes(INJECTION_CLOSE))
        out.add(`${e.sig}: the case's ${INJECTION_CLOSE} is live inside <${b[1]}>`);
      if (!system.includes(`id="${b[2]}"`))
        out.add(`${e.sig}: the system prompt does not name the fence ${b[2]}`);
    }
    if (outside.includes(INJECTION_TEXT))
      out.add(`${e.sig}: the injected text is outside any fence`);
  }
  return [...out];
}

// --- 1. single cases ---------------------------------------------------------------------------

export interface SingleCasePlan {
  kind: ProviderKind;
  faults: readonly FaultId[];
}

/** Every fault of `plan` on one page per provider kind, each on a freshly cleared judge cache. */
export async function singleCases(
  env: SuiteEnv,
  plans: readonly SingleCasePlan[],
): Promise<ReportRow[]> {
  const rows: ReportRow[] = [];
  const cardIds = [...OFFLINE_METRIC_IDS, ...JUDGE_IDS];
  for (const plan of plans) {
    const key = canaryKey(plan.kind);
    env.fault.recover();
    env.fault.clearLog();
    env.fault.setCanary(key);
    const kindStarted = Date.now();
    const fp = await openFaultPage(env.browser, env.origin);
    const kindSince = { sightings: 0, console: 0 };
    try {
      await configureJudge(fp.page, env.fault.fake, {
        provider: providerFor(plan.kind, key),
        metrics: JUDGE_IDS,
        timeoutSec: TIMEOUT_SEC,
      });
      const timeoutField = await hasTimeoutField(fp.page);
      env.fault.setTimeoutMs(timeoutField ? TIMEOUT_SEC * 1000 : 120_000);

      // The fault-free baseline: what one case needs.
      await fillCase(fp.page, singleCase());
      await clearJudgeCache(fp.page);
      env.fault.clearLog();
      const base = await scoreAndWait(fp.page, cardIds);
      const needed = env.fault.log.length;
      env.log(`single ${plan.kind} baseline: ${needed} requests`);
      const baseBad = base.filter((c) => c.status !== 'ok' && c.status !== 'n/a');
      if (baseBad.length) {
        rows.push(
          finish(
            row({
              scenario: 'single',
              fault: 'baseline',
              kind: plan.kind,
              sent: needed,
              needed,
              notes: baseBad.map((c) => fail(`${c.id} ${c.status} without a fault: ${c.reason}`)),
            }),
            kindStarted,
          ),
        );
      }

      for (const id of plan.faults) {
        const spec = FAULTS[id];
        const started = Date.now();
        const r = row({ scenario: 'single', fault: id, kind: plan.kind, needed });
        if (!faultOnWire(id, WIRE_OF[plan.kind])) {
          r.outcome = 'skipped';
          r.notes.push(`no such fault on the ${WIRE_OF[plan.kind]} wire`);
          rows.push(finish(r, started));
          continue;
        }
        if (id === 'timeout' && !timeoutField) {
          r.outcome = 'skipped';
          r.notes.push(
            'the page has no provider-timeout field yet: a reply past the default 120 s timeout would take minutes',
          );
          rows.push(finish(r, started));
          continue;
        }
        const since = {
          sightings: env.fault.canarySightings.length,
          console: fp.consoleAll.length,
        };
        const errorsBefore = fp.pageErrors.length + fp.consoleErrors.length;
        await clearJudgeCache(fp.page);
        await fillCase(fp.page, singleCase(id === 'prompt-injection'));
        env.fault.clearLog();
        since.sightings = 0;
        const mode = spec.single;
        env.fault.setPlan(
          mode.mode === 'every'
            ? { mode: 'every', fault: id, scope: spec.scope }
            : mode.mode === 'first'
              ? { mode: 'first', fault: id, k: mode.k, scope: spec.scope }
              : { mode: 'none' },
        );
        let cards;
        try {
          cards = await scoreAndWait(fp.page, cardIds, 150_000);
        } catch (e) {
          r.notes.push(fail(`the cards never settled: ${errorText(e)}`));
          await fp.page
            .getByTestId('cancel-button')
            .click()
            .catch(() => undefined);
        }
        env.fault.recover();
        const log = [...env.fault.log];
        r.sent = log.length;
        if (cards) {
          const expectFail: readonly string[] =
            mode.mode === 'every' ? (spec.scope === 'verdict' ? ['vagueness'] : JUDGE_IDS) : [];
          for (const c of cards) {
            const judge = (JUDGE_IDS as readonly string[]).includes(c.id);
            if (!judge) {
              if (c.status === 'error') r.notes.push(fail(`offline ${c.id} failed: ${c.reason}`));
              continue;
            }
            if (expectFail.includes(c.id)) {
              if (c.status !== 'error') {
                r.notes.push(fail(`${c.id} ${c.status}, expected a failure`));
                continue;
              }
              const problems = plainProblems(c.reason);
              if (problems.length)
                r.notes.push(fail(`${c.id}: ${problems.join(', ')}: "${c.reason.slice(0, 160)}"`));
              else if (!spec.message.test(c.reason))
                r.notes.push(fail(`${c.id} not specific: "${c.reason.slice(0, 160)}"`));
            } else if (c.status !== 'ok') {
              r.notes.push(fail(`${c.id} ${c.status}: "${c.reason.slice(0, 160)}"`));
            }
          }
          checkBound(r, log, needed, 'single');
          const failedCard = cards.find(
            (c) => c.status === 'error' && (JUDGE_IDS as readonly string[]).includes(c.id),
          );
          if (failedCard && !r.notes.some((n) => n.startsWith('FAIL')))
            r.notes.push(`"${failedCard.reason.slice(0, 90)}…"`);
          if (id === 'prompt-injection')
            for (const p of fencingProblems(log)) r.notes.push(fail(p));
        }
        const errors = [...fp.pageErrors, ...fp.consoleErrors];
        r.pageErrors = errors.slice(errorsBefore);
        r.leaks = await keyLeaks(env, fp, key, { since });
        rows.push(finish(r, started));
        env.log(
          `single ${plan.kind} ${id}: ${r.outcome} ${r.sent}/${needed} ${r.notes.join('; ')}`,
        );
      }
      // The key in storage, once per kind (memory only: it must be in none).
      const stored = await keyLeaks(env, fp, key, {
        since: { ...kindSince, sightings: env.fault.canarySightings.length },
        storage: true,
      });
      if (stored.length) rows[rows.length - 1]!.leaks.push(...stored);
      if (env.fault.canaryInHeader === 0) {
        rows[rows.length - 1]?.notes.push('the key never reached its header (leak check vacuous)');
      }
    } catch (e) {
      rows.push(
        finish(
          row({ scenario: 'single', fault: 'setup', kind: plan.kind, notes: [fail(errorText(e))] }),
          kindStarted,
        ),
      );
    } finally {
      await fp.context.close();
    }
  }
  return rows;
}

// --- 2. a batch with random transient faults ----------------------------------------------------

export async function batchRandom(
  env: SuiteEnv,
  rows: number,
  base: Baseline,
  seed = 7,
): Promise<ReportRow> {
  const started = Date.now();
  const r = row({
    scenario: 'batch',
    fault: 'random 30% transient, 10% rows 500 until recovery',
    kind: 'openai',
  });
  return inBatchPage(env, r, started, { kind: 'openai', rows, name: 'batch' }, async (b) => {
    const page = b.fp.page;
    env.fault.setPlan({
      mode: 'random',
      p: 0.3,
      seed,
      sticky: { fraction: 0.1, fault: 'server-500-always' },
    });
    const runId = await startRun(page, RUN_CHOICE(b.dataset));
    const sampler = new RunSampler(env.fault, runId, { A: page });
    let view = await settleOrPause(page, runId, 300_000, r);
    let pauses = 0;
    if (base.shared > 1) {
      r.notes.push(
        `the fault-free baseline asked G-Eval's steps ${base.shared}× (1 needed: concurrent rows miss the cache)`,
      );
    }
    const faulty = env.fault.log.length;
    const injected = env.fault.log.filter((e) => e.fault).length;
    r.notes.push(`${injected}/${faulty} requests faulted`);
    env.fault.recover();
    if (view.stored?.status === 'paused') {
      pauses++;
      r.notes.push(`paused during the faults: "${view.message.slice(0, 100)}"`);
      view = await resumeToDone(page, runId, r, 'paused during the faults');
    }
    const phase1 = await account(page, runId, env.fault.log, base);
    r.rowsFailedWithReason = phase1.failedWithReason;
    if (phase1.failed > phase1.failedWithReason) {
      r.notes.push(fail(`${phase1.failed - phase1.failedWithReason} failed rows without a reason`));
    }
    if (phase1.judgeErrors) {
      r.notes.push(
        fail(
          `${phase1.judgeErrors} rows stored as done with a failed judge metric (not marked failed)`,
        ),
      );
    }
    const tried = new Set(phase1.unscored);
    // Retry failed rows: only those rows, on the same run.
    const markRetry = env.fault.log.length;
    if (view.canRetry) {
      await clickIn(page, runId, 'run-retry-failed');
      await waitSettled(page, runId, 180_000);
      const touched = new Set(
        env.fault.log.slice(markRetry).flatMap((e) => (e.row === undefined ? [] : [e.row])),
      );
      const extra = [...touched].filter((t) => !tried.has(t));
      if (extra.length)
        r.notes.push(fail(`Retry failed rows re-sent rows that had not failed: ${tags(extra)}`));
      r.notes.push(`retry: ${env.fault.log.length - markRetry} requests for ${tried.size} rows`);
    } else if (tried.size > 0) {
      r.notes.push(fail(`no "Retry failed rows" on the run (${tried.size} rows to retry)`));
    }
    // The plan's capability probe (a request with no prompt id) is asked before the run starts and
    // is the plan's, not the run's: the run's counter holds every request of its rows.
    const sentOnRun = env.fault.log.filter((e) => e.sig !== '').length;
    const counter = usageRequests(await runView(page, runId));
    if (counter !== sentOnRun) {
      r.notes.push(
        fail(`the run's counter says ${counter ?? '?'} requests, the provider got ${sentOnRun}`),
      );
    }
    samplerNotes(r, await sampler.stop());
    const final = await account(page, runId, env.fault.log, base);
    await contractNotes(page, runId, r);
    accountingNotes(r, final);
    // Again with the same metrics: every answer is cached now.
    const markRerun = env.fault.log.length;
    const rerun = await startRun(page, RUN_CHOICE(b.dataset));
    await waitSettled(page, rerun, 180_000);
    const rerunSent = env.fault.log.length - markRerun;
    if (rerunSent > 0)
      r.notes.push(fail(`the same metrics again made ${rerunSent} requests (0 expected)`));
    else r.notes.push('the same metrics again: 0 requests');
    checkBound(r, env.fault.log, neededFor(base, allRows(rows)), 'run', {
      interruptions: pauses,
    });
    // Every export the page offers: the run's, and a comparison of the run with its rerun.
    const files = await everyExport(page, runId, rerun, b.downloads, r);
    return { storage: true, files };
  });
}

// --- 3. fatal errors mid-run, and a persistent 529 -------------------------------------------

export async function fatalMidRun(
  env: SuiteEnv,
  kind: ProviderKind,
  faultId: FaultId,
  rows: number,
  base: Baseline,
): Promise<ReportRow> {
  const started = Date.now();
  const persistent = FAULTS[faultId].class === 'transient';
  const afterRows = persistent ? 5 : 10;
  const r = row({
    scenario: persistent ? 'persistent' : 'fatal',
    fault: `${faultId} after ${afterRows} rows`,
    kind,
  });
  return inBatchPage(env, r, started, { kind: kind, rows, name: `fatal-${faultId}` }, async (b) => {
    const page = b.fp.page;
    env.fault.setPlan({ mode: 'after', fault: faultId, rows: afterRows });
    const runId = await startRun(page, RUN_CHOICE(b.dataset));
    const sampler = new RunSampler(env.fault, runId, { A: page });
    const view = await settleOrPause(page, runId, persistent ? 75_000 : 120_000, r);
    const log = env.fault.log;
    const first = log.find((e) => e.fault);
    const firstAt = first?.repliedAt ?? Infinity;
    const after = log.filter((e) => e.arrivedAt > firstAt).length;
    const status = view.stored?.status;
    const atStop = await account(page, runId, log, base);
    const bad = atStop.bad.length;
    r.rowsFailedWithReason = atStop.failedWithReason;
    if (!first) r.notes.push(fail('the fault never fired'));
    if (persistent) {
      r.notes.push(`${after} requests after the first 529, ${bad} rows burned`);
      if (status !== 'paused' || r.notes.some((n) => n.includes('paused by hand'))) {
        r.notes.push(fail(`the run did not pause by itself (${status} in the end)`));
      } else if (bad > CONCURRENCY + 3) {
        r.notes.push(fail(`paused only after ${bad} failed rows`));
      }
    } else {
      if (after > CONCURRENCY)
        r.notes.push(
          fail(`${after} requests after the first fatal reply (≤ ${CONCURRENCY} expected)`),
        );
      if (status !== 'paused')
        r.notes.push(fail(`the run did not pause (${status}): ${bad} rows burned`));
      else if (!FAULTS[faultId].message.test(view.message)) {
        r.notes.push(fail(`paused without saying why: "${view.message.slice(0, 120)}"`));
      } else {
        r.notes.push(
          `${after} requests after the first fatal reply (≤ ${CONCURRENCY}), paused: "${view.message.slice(0, 90)}"`,
        );
      }
    }
    env.fault.recover();
    if (view.stored?.status === 'paused') await resumeToDone(page, runId, r, 'paused');
    else if (view.canRetry) {
      await clickIn(page, runId, 'run-retry-failed');
      await waitSettled(page, runId, 180_000);
    }
    samplerNotes(r, await sampler.stop());
    await closingAccount(env, page, runId, r, base, rows, { interruptions: 1 });
    return { storage: true };
  });
}

// --- 4. a reload mid-run -----------------------------------------------------------------------

export async function reloadMidRun(
  env: SuiteEnv,
  rows: number,
  base: Baseline,
): Promise<ReportRow> {
  const started = Date.now();
  const r = row({
    scenario: 'reload',
    fault: 'page.reload() mid-run, key in memory',
    kind: 'openai',
  });
  const open = { kind: 'openai' as const, rows, name: 'reload' };
  return sampledRun(env, r, started, open, { latencyMs: 300, reach: 3 }, async (b, runId) => {
    const page = b.fp.page;
    const asked = env.fault.elapsed();
    await page.reload();
    await waitApp(page, runId);
    const gone = await goneAt(env, page, asked);
    const waited = await poll(
      () => runView(page, runId),
      (v) => v.stored?.status === 'paused' && v.canResume,
      { timeout: 30_000 },
    );
    if (!waited.ok)
      r.notes.push(
        fail(`after the reload the run is ${waited.value.stored?.status}, not waiting paused`),
      );
    else if (!/key/iu.test(waited.value.message))
      r.notes.push(fail(`paused without naming the key: "${waited.value.message}"`));
    else
      r.notes.push(
        `paused at ${waited.value.stored?.counts.done}/${rows}: "${waited.value.message.slice(0, 80)}"`,
      );
    env.fault.setLatency(0);
    await enterKey(page, b.key);
    await resumeToDone(page, runId, r, 'after the reload');
    await closingAccount(env, page, runId, r, base, rows, {
      interruptions: 1,
      goneAt: [gone],
    });
    return { storage: true };
  });
}

// --- 5. an offline spell -----------------------------------------------------------------------

export async function offlineSpell(
  env: SuiteEnv,
  rows: number,
  base: Baseline,
  spellMs = 5_000,
): Promise<ReportRow> {
  const started = Date.now();
  const r = row({
    scenario: 'offline',
    fault: `context.setOffline for ${spellMs / 1000} s mid-run`,
    kind: 'openai',
  });
  const open = { kind: 'openai' as const, rows, name: 'offline' };
  return sampledRun(
    env,
    r,
    started,
    open,
    { latencyMs: 400, reach: 3 },
    async (b, runId, sampler) => {
      const page = b.fp.page;
      const badBefore = (await account(page, runId, env.fault.log, base)).bad.length;
      await b.fp.context.setOffline(true);
      const offAt = sampler.now();
      // On the fake's clock: answers on the wire then never reached the page.
      const cutAt = env.fault.elapsed();
      // The spell is the fault: it lasts its time whatever the page does.
      await page.waitForTimeout(spellMs);
      await b.fp.context.setOffline(false);
      const onAt = sampler.now();
      const spell = sampler.samples.filter((s) => s.t >= offAt && s.t <= onAt);
      const paused = spell.find((s) => s.stored?.status === 'paused');
      const said = paused ? paused.shown?.message || paused.stored?.message || '' : '';
      if (!paused) r.notes.push(fail('did not pause while offline'));
      else if (!/offline|network|connection/iu.test(said)) {
        r.notes.push(fail(`paused without saying offline: "${said.slice(0, 100)}"`));
      }
      const back = await poll(
        () => runView(page, runId),
        (v) => v.stored?.status === 'done' || (v.stored?.status === 'running' && v.running),
        { timeout: 20_000 },
      );
      let resumed = 0;
      if (!back.ok) {
        r.notes.push(fail(`did not resume by itself (${back.value.stored?.status})`));
        if (back.value.stored?.status === 'paused') {
          resumed++;
          await resumeToDone(page, runId, r, 'after the spell');
        }
      }
      const { view } = await waitSettled(page, runId, 180_000);
      if (view.stored?.status !== 'done') r.notes.push(fail(`ended ${view.stored?.status}`));
      env.fault.setLatency(0);
      // One more round once settled, so that the list's last word is read after the end.
      await sampler.tick();
      const sampled = await sampler.stop();
      // Back online, the list shows the run running, then done, and its request counter moves.
      const after = samplesOf(sampled, 'A', onAt);
      const words = after.map((s) => s.shown?.word ?? '-');
      const runningAt = words.indexOf('running');
      if (runningAt < 0)
        r.notes.push(
          fail(
            `back online the run list never showed running (it showed ${[...new Set(words)].join(', ')})`,
          ),
        );
      else if (!words.slice(runningAt).includes('done'))
        r.notes.push(fail(`back online the run list never showed done (last: ${words.at(-1)})`));
      const counterAt = (s: Sample | undefined) => s?.shown?.requests ?? 0;
      const atOnline = counterAt(
        samplesOf(sampled, 'A')
          .filter((s) => s.t <= onAt)
          .at(-1),
      );
      const atEnd = counterAt(after.at(-1));
      const storedEnd = after.at(-1)?.stored?.requests ?? 0;
      if (atEnd <= atOnline)
        r.notes.push(
          fail(
            `the run list's request counter froze at ${atEnd} after the spell (stored ${storedEnd})`,
          ),
        );
      // Nothing but the spell failed anything: every row without a good result now was burned by it.
      const final = await account(page, runId, answeredLog(env.fault.log, [cutAt]), base);
      const burned = final.bad.length - badBefore;
      if (burned > CONCURRENCY) r.notes.push(fail(`${burned} rows failed or burned by the spell`));
      else r.notes.push(`${burned} rows failed or burned by the spell`);
      await contractNotes(page, runId, r);
      accountingNotes(r, final, false);
      checkBound(r, env.fault.log, neededFor(base, allRows(rows)), 'run', {
        interruptions: 1 + resumed,
      });
      return { storage: true };
    },
  );
}

// --- 6. two tabs -----------------------------------------------------------------------------

/**
 * Tab A runs, tab B (no key) opens mid-run: B must leave the run's status alone, its run item must
 * follow the stored run (rows moving while A runs), and say done when A is done.
 */
export async function twoTabs(env: SuiteEnv, rows: number, base: Baseline): Promise<ReportRow> {
  const started = Date.now();
  const r = row({
    scenario: 'two-tabs',
    fault: 'tab B opens mid-run, no key in B',
    kind: 'openai',
  });
  const open = { kind: 'openai' as const, rows, name: 'tabs' };
  // Slow enough that B watches A's run for several rows.
  const at = { latencyMs: 1_000, reach: 1 };
  return sampledRun(env, r, started, open, at, async (b, runId, sampler) => {
    const page = b.fp.page;
    const tabB = await b.fp.context.newPage();
    watchPage(tabB, b.fp);
    await tabB.goto(env.origin);
    await waitApp(tabB, runId);
    sampler.addTab('B', tabB);
    const up = await sampleRun(tabB, runId);
    if (up.stored?.status !== 'running')
      throw new Error(`the run was ${up.stored?.status} before tab B was up: B watched nothing`);
    const { view, ok: settledOk } = await waitSettled(page, runId, 180_000);
    const doneAt = sampler.now();
    env.fault.setLatency(0);
    if (!settledOk || view.stored?.status !== 'done') {
      r.notes.push(fail(`tab A's run ended ${view.stored?.status}`));
      if (view.stored?.status === 'paused') await resumeToDone(page, runId, r, 'tab A after tab B');
    }
    // B shows done once A is done (the sampler holds the rest: within a second).
    const bDone = await poll(
      () => sampleRun(tabB, runId),
      (s) => s.shown?.word === 'done',
      { timeout: 5_000, interval: 100 },
    );
    const sampled = await sampler.stop();
    if (!bDone.ok)
      r.notes.push(
        fail(`tab B still shows ${bDone.value.shown?.word ?? 'nothing'} after A finished`),
      );
    const storedStatuses = new Set(
      sampled.samples
        .filter((s) => s.t < doneAt && s.stored && s.stored.done < s.stored.total)
        .map((s) => s.stored!.status),
    );
    if ([...storedStatuses].some((s) => s !== 'running')) {
      const s = await storedRun(page, runId);
      r.notes.push(
        fail(
          `tab B rewrote the running run's status: ${[...storedStatuses].join(' → ')}${s?.message ? ` ("${s.message.slice(0, 90)}")` : ''}`,
        ),
      );
    }
    const whileRunning = samplesOf(sampled, 'B').filter((s) => s.t < doneAt);
    const shownDone = new Set(whileRunning.map((s) => s.shown?.done));
    const storedDone = whileRunning.map((s) => s.stored?.done ?? 0);
    if (storedDone.length > 1 && storedDone.at(-1)! > storedDone[0]! && shownDone.size < 2)
      r.notes.push(
        fail(
          `tab B's rows froze at ${[...shownDone][0]} while A went from ${storedDone[0]} to ${storedDone.at(-1)}`,
        ),
      );
    await tabB.close();
    await closingAccount(env, page, runId, r, base, rows);
    return { storage: true };
  });
}

// --- 7. a full storage quota -------------------------------------------------------------------

export async function storageQuota(env: SuiteEnv): Promise<ReportRow> {
  const started = Date.now();
  const r = row({
    scenario: 'storage',
    fault: 'quota overridden to 1 byte, single case',
    kind: 'none',
  });
  const fp = await openFaultPage(env.browser, env.origin);
  try {
    const cdp = await fp.context.newCDPSession(fp.page);
    await cdp.send('Storage.overrideQuotaForOrigin', { origin: env.origin, quotaSize: 1 });
    await fillCase(fp.page, singleCase());
    await scoreAndWait(fp.page, OFFLINE_METRIC_IDS);
    const alert = fp.page.locator('p.storage-error');
    const shown = await poll(
      async () => ((await alert.count()) > 0 ? await alert.first().innerText() : ''),
      (t) => t !== '',
      { timeout: 15_000 },
    );
    if (!shown.ok)
      r.notes.push(fail('no message: the case was silently not saved (or saved past the quota)'));
    else if (!/not saved/iu.test(shown.value) || !/quota|full|space|storage/iu.test(shown.value)) {
      r.notes.push(
        fail(`the message does not say why it was not saved: "${shown.value.slice(0, 140)}"`),
      );
    } else r.notes.push(`"${shown.value.slice(0, 120)}"`);
    r.pageErrors = [...fp.pageErrors, ...fp.consoleErrors];
  } catch (e) {
    r.notes.push(fail(errorText(e)));
  } finally {
    await fp.context.close();
  }
  return logged(env, finish(r, started));
}

// --- 8. a gateway that echoes the key in its answers ---------------------------------------------

/**
 * An OpenAI-compatible gateway whose 200 answers carry the caller's key (in the answers' reasons
 * and G-Eval steps, and in a field of the body): a single case and a run are scored through it.
 * The answers are kept (case history, judge cache, run results) and the steps are sent again in
 * later prompts: the key must be in no store, no export and no later request.
 */
export async function echoingGateway(
  env: SuiteEnv,
  rows: number,
  base: Baseline,
): Promise<ReportRow> {
  const started = Date.now();
  const r = row({
    scenario: 'echo',
    fault: 'gateway echoes the key inside 200 answers: a case, then a run',
    kind: 'openai-compatible',
  });
  const open = { kind: 'openai-compatible' as const, rows, name: 'echo' };
  return inBatchPage(env, r, started, open, async (b) => {
    const page = b.fp.page;
    const cardIds = [...OFFLINE_METRIC_IDS, ...JUDGE_IDS];
    await fillCase(page, singleCase());
    // What the case needs without the echo (a gateway's first call may probe it), then again
    // through the echoing gateway, from an empty judge cache.
    await scoreAndWait(page, cardIds);
    const caseNeed = env.fault.log.length;
    await clearJudgeCache(page);
    env.fault.setEchoKey(true);
    const cards = await scoreAndWait(page, cardIds);
    for (const c of cards.filter((x) => (JUDGE_IDS as readonly string[]).includes(x.id)))
      if (c.status !== 'ok')
        r.notes.push(fail(`the echo broke ${c.id}: ${c.status} "${c.reason.slice(0, 90)}"`));
    const runId = await startRun(page, RUN_CHOICE(b.dataset));
    const { view, ok } = await waitSettled(page, runId, 180_000);
    if (!ok || view.stored?.status !== 'done')
      r.notes.push(
        fail(`the run through the gateway ended ${view.stored?.status}: ${view.message}`),
      );
    env.fault.setEchoKey(false);
    const echoed = env.fault.log.filter((e) => e.success).length;
    r.notes.push(`${echoed} answers carried the key`);
    await contractNotes(page, runId, r);
    accountingNotes(r, await account(page, runId, env.fault.log, base));
    checkBound(r, env.fault.log, 2 * caseNeed + neededFor(base, allRows(rows)), 'run');
    const files = await everyExport(page, runId, undefined, b.downloads, r);
    return { storage: true, files };
  });
}
