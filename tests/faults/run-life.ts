/**
 * A run's life beyond the provider's faults, each scenario with the run item sampled throughout
 * (sampler.ts) and its requests held to the bound (harness.ts):
 *
 * - a reload with the key kept for the tab: the run resumes by itself and buys nothing twice;
 * - tab A, which runs the run, closed while tab B shows it: B takes over within a few seconds
 *   (goes on with the key, or shows the run paused saying why), never "Running" with nothing
 *   running;
 * - the origin's quota filled mid-run: the run stops paused saying storage is full, a reload does
 *   not resume it (nor buy answers again), and once space is freed Resume finishes it with no row
 *   lost or doubled;
 * - the site's data cleared mid-run: a message in words, no run shown running;
 * - runs imported from a JSON export whose status says running (or paused): nothing is sent
 *   until the user presses Resume, and the run shows paused with the reason.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CDPSession, Page } from 'playwright-core';
import {
  CONCURRENCY,
  account,
  accountingNotes,
  allRows,
  checkBound,
  closingAccount,
  contractNotes,
  errorText,
  fail,
  finish,
  goneAt,
  IN_TRANSIT_MS,
  logged,
  settleOrStall,
  neededFor,
  openBatch,
  resumeToDone,
  row,
  startAndReach,
  type Baseline,
  type BatchPage,
  type SuiteEnv,
} from './harness.ts';
import { keyLeaks } from './leaks.ts';
import {
  clickIn,
  enterKey,
  importRunFile,
  poll,
  runExports,
  sampleRun,
  waitApp,
  waitSettled,
  watchPage,
  type RunSampleView,
} from './page.ts';
import type { ReportRow } from './report.ts';
import { sampledRun, statusAgrees } from './sampler.ts';

/** How soon a tab must take over a run whose tab has gone. */
const TAKEOVER_MS = 5_000;
/**
 * The headroom of the quota a storage scenario starts under. Chromium's IndexedDB checks a write
 * against the space it found free at its last look at the quota, and looks again only when a write
 * is larger than that or the look is 30 s old (measured: a quota lowered mid-run let writes through
 * for 29.8 s). Started under a quota with a small headroom, a probe write larger than the headroom
 * makes it look again at once, and so a lowered quota holds from the next write on.
 */
const QUOTA_HEADROOM = 24 * 2 ** 20;

/** A database of the suite's own, opened before the quota fills (opening one costs space). */
async function openProbe(page: Page): Promise<void> {
  await page.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const r = indexedDB.open('faults-probe', 1);
      r.onupgradeneeded = () => r.result.createObjectStore('probe');
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    (globalThis as unknown as { __probe: IDBDatabase }).__probe = db;
  });
}

/** Whether a write of `bytes` into the probe database fails (nothing else is written). */
function probeFails(page: Page, bytes: number): Promise<boolean> {
  return page.evaluate(async (bytes) => {
    const db = (globalThis as unknown as { __probe: IDBDatabase }).__probe;
    return new Promise<boolean>((resolve) => {
      const tx = db.transaction('probe', 'readwrite');
      tx.objectStore('probe').put('x'.repeat(bytes), 'probe');
      tx.oncomplete = () => resolve(false);
      tx.onabort = () => resolve(true);
    });
  }, bytes);
}

/** Before the data set is stored: the quota at the usage now plus the headroom. */
async function boundQuota(page: Page, cdp: CDPSession, origin: string): Promise<void> {
  await openProbe(page);
  const { usage } = await cdp.send('Storage.getUsageAndQuota', { origin });
  await cdp.send('Storage.overrideQuotaForOrigin', {
    origin,
    quotaSize: Math.round(usage + QUOTA_HEADROOM),
  });
}

/**
 * Fills the quota: the override set to the usage now, then a probe write over the headroom to make
 * the browser look at it; a small write must then fail. Returns how long the small write took to
 * fail (0 when at once).
 */
async function fillQuota(page: Page, cdp: CDPSession, origin: string): Promise<number> {
  const { usage } = await cdp.send('Storage.getUsageAndQuota', { origin });
  await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: Math.round(usage) });
  const started = Date.now();
  await probeFails(page, QUOTA_HEADROOM + 2 ** 20);
  const { ok } = await poll(
    () => probeFails(page, 512),
    (failed) => failed,
    { timeout: 40_000, interval: 250 },
  );
  if (!ok) throw new Error('the quota was lowered to the usage, and writes still pass');
  return Date.now() - started;
}

/** What a raw storage exception looks like on screen (instead of words). */
const RAW_STORAGE_ERROR =
  /Failed to execute|IDBDatabase|IDBTransaction|InvalidStateError|DOMException|UnknownError|connection is closing/u;

const stopped = (s: RunSampleView) => s.shown?.word === 'paused' || s.shown?.word === 'stopped';

/**
 * Nothing starts by itself: no request reaches the provider and nothing takes the runs' locks
 * within `ms` (an absence has to be watched for some time; the page's start-up resume, when there
 * is one, begins within a second of the list being drawn). When something does start, it is let
 * run until it lets go of the locks, so that `sent` says what it spent.
 */
async function staysQuiet(
  env: SuiteEnv,
  page: Page,
  runIds: readonly string[],
  ms = 4_000,
): Promise<{ quiet: boolean; sent: number; started: Set<string> }> {
  const mark = env.fault.log.length;
  const started = new Set<string>();
  const look = async () => {
    const samples = await Promise.all(runIds.map((id) => sampleRun(page, id)));
    samples.forEach((s, i) => s.locked && started.add(runIds[i]!));
    return samples.some((s) => s.locked);
  };
  const { ok } = await poll(
    async () => (await look()) || env.fault.log.length > mark,
    (moved) => moved,
    { timeout: ms, interval: 150 },
  );
  if (!ok) return { quiet: true, sent: 0, started };
  await poll(look, (busy) => !busy, { timeout: 90_000, interval: 250 });
  return { quiet: false, sent: env.fault.log.length - mark, started };
}

// --- a reload that resumes the run by itself ------------------------------------------------------

export async function reloadResume(
  env: SuiteEnv,
  rows: number,
  base: Baseline,
): Promise<ReportRow> {
  const started = Date.now();
  const r = row({
    scenario: 'reload-resume',
    fault: 'page.reload() mid-run, key kept until the tab closes',
    kind: 'openai',
  });
  const open = { kind: 'openai' as const, rows, name: 'resume', persistence: 'session' as const };
  return sampledRun(env, r, started, open, { latencyMs: 300, reach: 3 }, async (b, runId) => {
    const page = b.fp.page;
    const old = new Set((await sampleRun(page, runId)).lockClients);
    const asked = env.fault.elapsed();
    await page.reload();
    await waitApp(page, runId);
    const gone = await goneAt(env, page, asked);
    // It goes on by itself: the reloaded page takes the run's lock (or has finished it) unasked.
    const resumed = (s: RunSampleView) =>
      s.lockClients.some((c) => !old.has(c)) || s.stored?.status === 'done';
    const going = await poll(
      () => sampleRun(page, runId),
      (s) => resumed(s) || (stopped(s) && !s.locked),
      { timeout: 20_000, interval: 150 },
    );
    let clicks = 0;
    if (!going.ok || !resumed(going.value)) {
      r.notes.push(
        fail(
          `after the reload the run did not resume by itself (${going.value.shown?.word ?? 'no item'}: "${going.value.shown?.message.slice(0, 90) ?? ''}")`,
        ),
      );
      clicks++;
      await resumeToDone(page, runId, r, 'after the reload');
    } else {
      const { view, ok } = await settleOrStall(env, page, runId);
      if (!ok || view.stored?.status !== 'done') {
        r.notes.push(fail(`after the reload the run ended ${view.stored?.status}`));
        clicks++;
        await resumeToDone(page, runId, r, 'stalled after the reload');
      }
    }
    // Answers delivered before the reload (not in transit then), and bought again after it.
    const key = (e: { row?: number; sig: string }) => `${e.row}|${e.sig}`;
    const log = env.fault.log;
    const bought = new Set(
      log
        .filter((e) => e.success && e.row !== undefined && e.repliedAt! < gone - IN_TRANSIT_MS)
        .map(key),
    );
    const again = log.filter((e) => e.success && e.arrivedAt > gone && bought.has(key(e)));
    r.notes.push(`${again.length} answers delivered before the reload were bought again after it`);
    await closingAccount(env, page, runId, r, base, rows, {
      interruptions: 1 + clicks,
      goneAt: [gone],
    });
    return { storage: true };
  });
}

// --- tab A closed mid-run -------------------------------------------------------------------------

export async function tabClosed(
  env: SuiteEnv,
  rows: number,
  base: Baseline,
  keyInB: boolean,
): Promise<ReportRow> {
  const started = Date.now();
  const r = row({
    scenario: 'tab-close',
    fault: keyInB
      ? 'tab A closed mid-run, tab B open, key kept on the device'
      : "tab A closed mid-run, tab B open, key in A's memory only",
    kind: 'openai',
  });
  const open = {
    kind: 'openai' as const,
    rows,
    name: keyInB ? 'closed-key' : 'closed-nokey',
    persistence: keyInB ? ('device' as const) : ('memory' as const),
  };
  // Slow answers: most of the run is still to go when A closes, with B up.
  const at = { latencyMs: 1_500, reach: 1 };
  return sampledRun(env, r, started, open, at, async (b, runId, sampler) => {
    const tabA = b.fp.page;
    const tabB = await b.fp.context.newPage();
    watchPage(tabB, b.fp);
    await tabB.goto(env.origin);
    await waitApp(tabB, runId);
    sampler.addTab('B', tabB);
    await sampler.tick();
    sampler.removeTab('A');
    const before = await sampleRun(tabB, runId);
    if (before.stored?.status !== 'running')
      throw new Error(
        `the run was ${before.stored?.status} before tab A closed: nothing to take over`,
      );
    // A's lock may outlive A by a moment: taking over means a lock of another client.
    const ofA = new Set(before.lockClients);
    const asked = env.fault.elapsed();
    await tabA.close();
    const gone = await goneAt(env, tabB, asked);
    const closedAt = Date.now();
    // B takes over: it runs the run (holds its lock, says running), or shows it paused with why.
    const takeover = await poll(
      () => sampleRun(tabB, runId),
      (s) =>
        (s.lockClients.some((c) => !ofA.has(c)) && s.shown?.word === 'running') ||
        (s.shown?.word === 'done' && s.stored?.status === 'done') ||
        (stopped(s) && (s.shown?.message ?? '') !== ''),
      { timeout: TAKEOVER_MS + 5_000, interval: 100 },
    );
    const after = Date.now() - closedAt;
    const v = takeover.value;
    const said = `${v.shown?.word ?? 'no item'}${v.shown?.message ? `: "${v.shown.message.slice(0, 90)}"` : ''}, lock ${v.locked ? 'held' : 'free'}`;
    let clicks = 0;
    if (!takeover.ok || after > TAKEOVER_MS) {
      r.notes.push(
        fail(`tab B had not taken over ${(after / 1000).toFixed(1)} s after A closed (${said})`),
      );
    } else if (stopped(v)) {
      if (keyInB) r.notes.push(fail(`tab B has the key but only paused the run (${said})`));
      else if (!/key/iu.test(v.shown?.message ?? ''))
        r.notes.push(fail(`tab B paused the run without naming the key (${said})`));
      else r.notes.push(`tab B paused it after ${(after / 1000).toFixed(1)} s (${said})`);
    } else {
      r.notes.push(`tab B went on with the run after ${(after / 1000).toFixed(1)} s`);
    }
    env.fault.setLatency(0);
    const end = await settleOrStall(env, tabB, runId, 8_000);
    if (end.view.stored?.status !== 'done') {
      // Paused (or stuck): the user gives B the key, if it needs one, and presses Resume.
      if (end.stalled)
        r.notes.push(fail(`the run stalled at ${end.view.stored?.counts.done}/${rows} in tab B`));
      if (!keyInB) await enterKey(tabB, b.key);
      clicks++;
      await resumeToDone(tabB, runId, r, 'in tab B');
    }
    await closingAccount(env, tabB, runId, r, base, rows, {
      interruptions: 1 + clicks,
      goneAt: [gone],
    });
    return { storage: true };
  });
}

// --- the quota filled mid-run -----------------------------------------------------------------------

export async function storageMidRun(
  env: SuiteEnv,
  rows: number,
  base: Baseline,
): Promise<ReportRow> {
  const started = Date.now();
  const r = row({
    scenario: 'storage-run',
    fault: 'quota filled mid-run, a reload, space freed, Resume',
    kind: 'openai',
  });
  let session: CDPSession | undefined;
  const cdpOf = async () => {
    if (!session) throw new Error('no CDP session');
    return session;
  };
  const open = {
    kind: 'openai' as const,
    rows,
    name: 'full',
    // The key kept for the tab: a reload could resume the run by itself, and spend.
    persistence: 'session' as const,
    beforeImport: async (page: Page) => {
      session = await page.context().newCDPSession(page);
      await boundQuota(page, session, env.origin);
    },
  };
  // Slow answers: the disk fills with most of the run still to go.
  const at = { latencyMs: 1_000, reach: 2 };
  return sampledRun(env, r, started, open, at, async (b, runId, sampler) => {
    const page = b.fp.page;
    const cdp = await cdpOf();
    const took = await fillQuota(page, cdp, env.origin);
    const at = await sampleRun(page, runId);
    r.notes.push(
      `disk full at ${at.stored?.done ?? '?'}/${rows} rows${took > 1_000 ? ` (after ${(took / 1000).toFixed(1)} s)` : ''}`,
    );
    let interruptions = 1;
    const reloads: number[] = [];
    try {
      // The run stops: nothing holds its lock any more, or the stored run is no longer running.
      const halt = await poll(
        () => sampleRun(page, runId),
        (s) => !s.locked || (s.stored !== null && s.stored.status !== 'running'),
        { timeout: 60_000, interval: 150 },
      );
      await sampler.tick();
      const s = await sampleRun(page, runId);
      const shown = `${s.shown?.word ?? 'no item'}${s.shown?.message ? `: "${s.shown.message.slice(0, 110)}"` : ''}`;
      if (!halt.ok) r.notes.push(fail(`the run was still running 60 s after the disk filled`));
      if (s.stored?.status === 'done')
        r.notes.push(fail('the run finished: the quota never filled (margin too wide?)'));
      else if (!stopped(s) || !/storage|full|space|quota|disk/iu.test(s.shown?.message ?? '')) {
        const banner = await page
          .getByTestId('datasets-error')
          .innerText({ timeout: 1_000 })
          .catch(() => '');
        r.notes.push(
          fail(
            `storage full: the run item says ${shown}${banner ? ` (the page: "${banner.slice(0, 90)}")` : ''}`,
          ),
        );
      } else r.notes.push(`storage full: ${shown}`);
      if (s.stored && s.stored.status !== 'paused')
        r.notes.push(
          `the stored run stays ${s.stored.status} (its paused status could not be stored)`,
        );
      // A reload with the disk still full must not resume the run (it would buy answers it
      // cannot store).
      const asked = env.fault.elapsed();
      await page.reload();
      await waitApp(page, runId);
      reloads.push(await goneAt(env, page, asked));
      interruptions++;
      const quiet = await staysQuiet(env, page, [runId]);
      if (!quiet.quiet)
        r.notes.push(
          fail(
            `after a reload with the disk still full the run started by itself: ${quiet.sent} requests`,
          ),
        );
      const settled = await settleOrStall(env, page, runId, 5_000, 60_000);
      if (!settled.ok)
        r.notes.push(fail(`after the reload the run stays ${settled.view.stored?.status}`));
    } finally {
      // Space freed: the quota back to the browser's own.
      await cdp.send('Storage.overrideQuotaForOrigin', { origin: env.origin });
    }
    env.fault.setLatency(0);
    const now = await sampleRun(page, runId);
    if (now.stored?.status !== 'done') await resumeToDone(page, runId, r, 'space freed');
    await closingAccount(env, page, runId, r, base, rows, {
      interruptions: interruptions + 1,
      goneAt: reloads,
    });
    return { storage: true, allowed: { session: true } };
  });
}

// --- site data cleared mid-run --------------------------------------------------------------------

export async function clearedMidRun(
  env: SuiteEnv,
  rows: number,
  base: Baseline,
): Promise<ReportRow> {
  const started = Date.now();
  const r = row({
    scenario: 'clear-data',
    fault: 'Storage.clearDataForOrigin (all) mid-run',
    kind: 'openai',
  });
  const open = { kind: 'openai' as const, rows, name: 'cleared' };
  return sampledRun(
    env,
    r,
    started,
    open,
    { latencyMs: 300, reach: 3 },
    async (b, runId, sampler) => {
      const page = b.fp.page;
      const cdp = await b.fp.context.newCDPSession(page);
      await cdp.send('Storage.clearDataForOrigin', { origin: env.origin, storageTypes: 'all' });
      const sentAtClear = env.fault.log.length;
      // The page stops driving the run (nothing of it is left to store into).
      const halt = await poll(
        () => sampleRun(page, runId),
        (s) => !s.locked,
        {
          timeout: 60_000,
          interval: 150,
        },
      );
      if (!halt.ok)
        r.notes.push(fail('the run still held its lock 60 s after its data was cleared'));
      const shownMessages = () =>
        page.evaluate(() =>
          Array.from(
            document.querySelectorAll(
              '[role="alert"], .error, [data-testid="run-message"], .storage-error',
            ),
          )
            .map((e) => (e as HTMLElement).innerText.trim())
            .filter((t) => t !== ''),
        );
      const saysGone = (m: string) =>
        !RAW_STORAGE_ERROR.test(m) &&
        /clear|delet|remov|gone|no longer|erase|wip|missing|not found|storage|site data/iu.test(m);
      // Until the page says what happened (a finding below if it never does), then two rounds of
      // samples past that moment: whether "running" stays on screen is read from them.
      const said = await poll(shownMessages, (m) => m.some(saysGone), {
        timeout: 30_000,
        interval: 150,
      });
      await sampler.tick();
      await sampler.tick();
      env.fault.setLatency(0);
      const messages = said.ok ? said.value : await shownMessages();
      const raw = messages.filter((m) => RAW_STORAGE_ERROR.test(m));
      if (raw.length)
        r.notes.push(fail(`a raw storage error on screen: "${raw[0]!.slice(0, 120)}"`));
      const words = messages.filter(saysGone);
      if (words.length === 0)
        r.notes.push(
          fail(
            `no message says the run's data is gone (shown: ${messages.map((m) => `"${m.slice(0, 60)}"`).join(', ') || 'nothing'})`,
          ),
        );
      else r.notes.push(`"${words[0]!.slice(0, 110)}"`);
      const after = env.fault.log.length - sentAtClear;
      if (after > CONCURRENCY)
        r.notes.push(fail(`${after} requests after the site's data was cleared`));
      checkBound(r, env.fault.log, neededFor(base, allRows(rows)), 'run', {
        interruptions: 1,
        resets: 1,
      });
      return { storage: true };
    },
  );
}

// --- imported run files ---------------------------------------------------------------------------

export type ImportedStatus = 'running' | 'paused';

/**
 * A run paused by hand after two rows, exported as JSON, its status rewritten to each of
 * `statuses` and imported again, then the page reloaded with the key kept for the tab: nothing
 * may be sent before Resume is pressed, and each imported run shows paused with a reason.
 */
export async function importedRuns(
  env: SuiteEnv,
  rows: number,
  base: Baseline,
  statuses: readonly ImportedStatus[],
): Promise<ReportRow[]> {
  const started = Date.now();
  const out = statuses.map((status) =>
    row({
      scenario: 'run-file',
      fault: `a run exported with "status": "${status}", imported, page reloaded`,
      kind: 'openai',
    }),
  );
  let b: BatchPage | undefined;
  try {
    b = await openBatch(env, { kind: 'openai', rows, name: 'runfile', persistence: 'session' });
    await checkImportedRuns(env, b, base, rows, statuses, out);
  } catch (e) {
    out[0]!.notes.push(fail(errorText(e)));
  } finally {
    if (b) {
      const leaks = await keyLeaks(env, b.fp, b.key, { storage: true, persistence: 'session' });
      out[0]!.leaks.push(...leaks);
      out[0]!.pageErrors = [...b.fp.pageErrors, ...b.fp.consoleErrors];
      await b.fp.context.close();
    }
  }
  return out.map((r) => logged(env, finish(r, started)));
}

async function checkImportedRuns(
  env: SuiteEnv,
  b: BatchPage,
  base: Baseline,
  rows: number,
  statuses: readonly ImportedStatus[],
  out: ReportRow[],
): Promise<void> {
  const page = b.fp.page;
  env.fault.setLatency(300);
  const original = await startAndReach(page, b.dataset, 2);
  await clickIn(page, original, 'run-pause');
  const paused = await waitSettled(page, original, 60_000);
  if (paused.view.stored?.status !== 'paused')
    throw new Error(`the run to export did not pause (${paused.view.stored?.status})`);
  env.fault.setLatency(0);
  const files = await runExports(page, original, b.downloads);
  const json = files.find((f) => f.what.endsWith('export-json'));
  if (!json) throw new Error('the run view offers no JSON export');
  const data = JSON.parse(readFileSync(json.paths[0]!, 'utf8')) as {
    run: { status: string; message?: string; messageRef?: unknown };
  };
  const imported: string[] = [];
  for (const status of statuses) {
    const copy = structuredClone(data);
    copy.run.status = status;
    if (status === 'running') {
      delete copy.run.message;
      delete copy.run.messageRef;
    }
    const file = join(env.dir, `${b.dataset}-${status}.json`);
    writeFileSync(file, JSON.stringify(copy));
    imported.push(await importRunFile(page, file));
  }
  await page.reload();
  for (const id of imported) await waitApp(page, id);
  const quiet = await staysQuiet(env, page, imported);
  for (const [i, id] of imported.entries()) {
    const r = out[i]!;
    // (the requests of the page, whichever run sent them; each run says whether it started)
    if (quiet.started.has(id))
      r.notes.push(
        fail(
          `the run started by itself: ${quiet.sent} requests on the user's key before anyone pressed Resume`,
        ),
      );
    else if (!quiet.quiet && quiet.started.size === 0)
      r.notes.push(fail(`${quiet.sent} requests before anyone pressed Resume`));
    const s = await sampleRun(page, id);
    const shown = `${s.shown?.word ?? 'no item'}${s.shown?.message ? `: "${s.shown.message.slice(0, 100)}"` : ''}`;
    if (!stopped(s) || !s.shown?.resume) r.notes.push(fail(`the imported run shows ${shown}`));
    else if (statuses[i] === 'running' && !s.shown.message)
      r.notes.push(fail('the imported run shows paused without a reason'));
    else r.notes.push(`shown ${shown}`);
    if (s.shown && s.stored && !statusAgrees(s.shown.word, s.stored.status))
      r.notes.push(fail(`the run item says ${s.shown.word}, the stored run ${s.stored.status}`));
  }
  // Resume, one after the other: each finishes, nothing is bought twice (the judge cache holds
  // what the original run bought).
  for (const [i, id] of imported.entries()) {
    const r = out[i]!;
    if (quiet.started.has(id)) await waitSettled(page, id, 120_000);
    const now = await sampleRun(page, id);
    if (now.stored?.status !== 'done') await resumeToDone(page, id, r, 'imported');
    await contractNotes(page, id, r);
    const a = await account(page, id, env.fault.log, base);
    // The answers (one log for the page) are counted on the first row only.
    accountingNotes(r, i === 0 ? a : { ...a, twice: a.storedTwice, answersTwice: 0 });
  }
  // The whole page buys each row once: the original run's rows, the rest through the imports.
  checkBound(out[0]!, env.fault.log, neededFor(base, allRows(rows)), 'run', {
    interruptions: 2,
  });
}
