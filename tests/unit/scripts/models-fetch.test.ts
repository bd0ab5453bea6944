/**
 * `npm run models:fetch` against a loopback fake hub (tests/helpers/fake-hub.ts): nothing here
 * leaves 127.0.0.1. First with small throwaway repositories built in a temp folder (every path
 * through the downloader), then with the generated tiny models, whose fetched copy must load in
 * transformers.js with remote models switched off.
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { main, type CliIo } from '../../../scripts/models-fetch.ts';
import { fetchModel } from '../../../src/lib/node/models-fetch/fetch-model.ts';
import {
  MANIFEST_NAME,
  OPTIONAL_FILES,
  REQUIRED_FILES,
  UsageError,
} from '../../../src/lib/node/models-fetch/options.ts';
import type {
  FetchManifest,
  FetchOptions,
  ModelResult,
} from '../../../src/lib/node/models-fetch/types.ts';
import { verifyModel } from '../../../src/lib/node/models-fetch/verify.ts';
import { FAKE_COMMIT, startFakeHub, type FakeHub } from '../../helpers/fake-hub.ts';
import { repoRoot } from '../../helpers/shared.ts';

const TOKEN = 'hf_test_SECRET_token_0123456789';

function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Every file under dir, relative, with `/` separators, sorted. */
function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else out.push(relative(dir, p).split('\\').join('/'));
    }
  };
  walk(dir);
  return out.sort();
}

function writeRepo(root: string, modelId: string, files: Record<string, Buffer | string>): void {
  for (const [file, content] of Object.entries(files)) {
    const path = join(root, modelId, file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
  }
}

const tokenizerFiles = {
  'tokenizer.json': JSON.stringify({ version: '1.0', model: { type: 'WordPiece', vocab: {} } }),
  'tokenizer_config.json': JSON.stringify({ tokenizer_class: 'BertTokenizer' }),
};

// Deterministic "weights": the downloader never parses them, and 300 kB spans many chunks.
const FP32 = randomBytes(300_000);
const Q8 = randomBytes(75_000);
const DATA = randomBytes(120_000);

function buildRepos(root: string): void {
  writeRepo(root, 'acme/tiny', {
    'config.json': JSON.stringify({ model_type: 'bert', hidden_size: 32 }),
    ...tokenizerFiles,
    'special_tokens_map.json': JSON.stringify({ cls_token: '[CLS]' }),
    'onnx/model.onnx': FP32,
    'onnx/model_quantized.onnx': Q8,
  });
  // Declares its external data, as transformers.js models over 2 GB do.
  writeRepo(root, 'acme/external', {
    'config.json': JSON.stringify({
      model_type: 'bert',
      'transformers.js_config': { use_external_data_format: { 'model.onnx': 2 } },
    }),
    ...tokenizerFiles,
    'onnx/model.onnx': Buffer.from('graph'),
    'onnx/model.onnx_data': DATA,
    'onnx/model.onnx_data_1': Buffer.from('second chunk'),
  });
  // Has external data without declaring it: fetched anyway, when present.
  writeRepo(root, 'acme/undeclared', {
    'config.json': JSON.stringify({ model_type: 'bert' }),
    ...tokenizerFiles,
    'onnx/model.onnx': Buffer.from('graph'),
    'onnx/model.onnx_data': DATA,
  });
  writeRepo(root, 'acme/no-tokenizer', {
    'config.json': JSON.stringify({ model_type: 'bert' }),
    'tokenizer_config.json': '{}',
    'onnx/model.onnx': Buffer.from('graph'),
  });
  writeRepo(root, 'acme/broken-config', {
    'config.json': '{ not json',
    ...tokenizerFiles,
  });
  writeRepo(root, 'gated/model', {
    'config.json': '{}',
    ...tokenizerFiles,
    'onnx/model.onnx': Buffer.from('graph'),
  });
}

function captureIo(): CliIo & { out: string[]; err: string[]; all(): string } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    stdout: (t) => void out.push(t),
    stderr: (t) => void err.push(t),
    isTTY: false,
    all: () => out.join('') + err.join(''),
  };
}

function readManifest(dir: string): FetchManifest {
  return JSON.parse(readFileSync(join(dir, MANIFEST_NAME), 'utf8')) as FetchManifest;
}

describe('models:fetch against a fake hub (throwaway repositories)', () => {
  let root: string;
  let out: string;
  let hub: FakeHub;
  let lines: string[];
  let opts: FetchOptions;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'sumlens-hub-'));
    buildRepos(root);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  beforeEach(async () => {
    out = mkdtempSync(join(tmpdir(), 'sumlens-fetch-'));
    hub = await startFakeHub({ root, faults: { 'gated/model': 401 } });
    lines = [];
    opts = {
      outDir: out,
      endpoint: hub.url,
      retryDelayMs: 1,
      reporter: { line: (t) => void lines.push(t) },
    };
  });
  afterEach(async () => {
    await hub.close();
    rmSync(out, { recursive: true, force: true });
  });

  const dirOf = (id: string): string => join(out, ...id.split('/'));

  it('fetches config, tokenizer and fp32+q8 weights byte for byte, through the CDN redirect', async () => {
    const result = await fetchModel('acme/tiny', opts);
    expect(result.errors).toEqual([]);
    expect(result.ok).toBe(true);
    const dir = dirOf('acme/tiny');
    expect(result.dir).toBe(dir);
    expect(listFiles(dir)).toEqual([
      MANIFEST_NAME,
      'config.json',
      'onnx/model.onnx',
      'onnx/model_quantized.onnx',
      'special_tokens_map.json',
      'tokenizer.json',
      'tokenizer_config.json',
    ]);
    for (const file of listFiles(dir).filter((f) => f !== MANIFEST_NAME)) {
      expect(
        readFileSync(join(dir, file)).equals(readFileSync(join(root, 'acme/tiny', file))),
        file,
      ).toBe(true);
    }
    expect(result.files.every((f) => f.outcome === 'downloaded')).toBe(true);

    // JSON straight from /resolve/, weights via a 302 to the "CDN" path.
    expect(hub.requests).toContain('GET /acme/tiny/resolve/main/config.json');
    expect(hub.requests).toContain('GET /acme/tiny/resolve/main/onnx/model.onnx');
    expect(hub.requests).toContain('GET /cdn-lfs/acme/tiny/onnx/model.onnx?sig=fake-signature');
    expect(hub.requests).toContain(
      'GET /cdn-lfs/acme/tiny/onnx/model_quantized.onnx?sig=fake-signature',
    );
    expect(hub.requests.some((r) => r.startsWith('GET /cdn-lfs/') && r.includes('.json'))).toBe(
      false,
    );

    // One line per file, with bytes/total, when not on a terminal; no signed query in the log.
    expect(lines.some((l) => /downloaded\s+onnx\/model\.onnx\s+300\.0 kB\/300\.0 kB/.test(l))).toBe(
      true,
    );
    expect(lines.join('\n')).not.toContain('sig=');
  });

  it('writes a manifest an offline host can verify against', async () => {
    const before = Date.now();
    await fetchModel('acme/tiny', opts);
    const manifest = readManifest(dirOf('acme/tiny'));
    expect(manifest).toMatchObject({
      schema: 1,
      modelId: 'acme/tiny',
      revision: 'main',
      commit: FAKE_COMMIT,
      endpointHost: `127.0.0.1:${hub.port}`,
      dtypes: ['fp32', 'q8'],
    });
    expect(Date.parse(manifest.fetchedAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(manifest.files.find((f) => f.path === 'onnx/model.onnx')).toEqual({
      path: 'onnx/model.onnx',
      size: FP32.length,
      sha256: sha256(FP32),
    });
    expect(manifest.files.map((f) => f.path)).toEqual([
      'config.json',
      'tokenizer.json',
      'tokenizer_config.json',
      'special_tokens_map.json',
      'onnx/model.onnx',
      'onnx/model_quantized.onnx',
    ]);
    for (const f of manifest.files) {
      expect(f.sha256).toBe(sha256(readFileSync(join(dirOf('acme/tiny'), f.path))));
    }
    expect(manifest.absent).toEqual([
      'preprocessor_config.json',
      'generation_config.json',
      'onnx/model.onnx_data',
      'onnx/model_quantized.onnx_data',
    ]);

    expect((await verifyModel('acme/tiny', out)).ok).toBe(true);
    writeFileSync(join(dirOf('acme/tiny'), 'onnx/model.onnx'), randomBytes(FP32.length));
    rmSync(join(dirOf('acme/tiny'), 'tokenizer.json'));
    const verified = await verifyModel('acme/tiny', out);
    expect(verified.ok).toBe(false);
    expect(verified.problems).toEqual([
      'tokenizer.json: missing',
      'onnx/model.onnx: SHA-256 differs from the manifest',
    ]);
  });

  it('skips complete files on a rerun without touching the CDN, and re-fetches changed ones', async () => {
    await fetchModel('acme/tiny', opts);
    hub.requests.length = 0;
    const again = await fetchModel('acme/tiny', opts);
    expect(again.ok).toBe(true);
    expect(again.files.map((f) => f.outcome)).toEqual(Array(6).fill('up to date'));
    expect(hub.requests.filter((r) => r.includes('/cdn-lfs/'))).toEqual([]);
    expect(readManifest(dirOf('acme/tiny')).files).toHaveLength(6);

    // Same size, other bytes: the hub's SHA-256 gives it away. Other size: the length does.
    const dir = dirOf('acme/tiny');
    writeFileSync(join(dir, 'onnx/model.onnx'), randomBytes(FP32.length));
    writeFileSync(join(dir, 'onnx/model_quantized.onnx'), Q8.subarray(0, 1000));
    writeFileSync(join(dir, 'tokenizer.json'), '{}');
    const third = await fetchModel('acme/tiny', opts);
    const outcome = Object.fromEntries(third.files.map((f) => [f.path, f.outcome]));
    expect(outcome).toEqual({
      'config.json': 'up to date',
      'tokenizer.json': 'downloaded',
      'tokenizer_config.json': 'up to date',
      'special_tokens_map.json': 'up to date',
      'onnx/model.onnx': 'downloaded',
      'onnx/model_quantized.onnx': 'downloaded',
    });
    expect(readFileSync(join(dir, 'onnx/model.onnx')).equals(FP32)).toBe(true);
    expect(readFileSync(join(dir, 'onnx/model_quantized.onnx')).equals(Q8)).toBe(true);
  });

  it('downloads everything again with --force', async () => {
    await fetchModel('acme/tiny', opts);
    hub.requests.length = 0;
    const forced = await fetchModel('acme/tiny', { ...opts, force: true });
    expect(forced.files.map((f) => f.outcome)).toEqual(Array(6).fill('downloaded'));
    expect(hub.requests.filter((r) => r.includes('/cdn-lfs/'))).toHaveLength(2);
  });

  it('notes a missing optional file and goes on', async () => {
    const result = await fetchModel('acme/external', { ...opts, dtypes: ['fp32'] });
    expect(result.ok).toBe(true);
    expect(result.absent).toContain('special_tokens_map.json');
    expect(lines).toContain(
      '  absent      special_tokens_map.json (optional; the repository has none)',
    );
  });

  it('fetches the external-data chunks a config declares, and undeclared ones when present', async () => {
    const declared = await fetchModel('acme/external', { ...opts, dtypes: ['fp32'] });
    expect(declared.errors).toEqual([]);
    expect(declared.files.map((f) => f.path).slice(-3)).toEqual([
      'onnx/model.onnx',
      'onnx/model.onnx_data',
      'onnx/model.onnx_data_1',
    ]);
    expect(readFileSync(join(dirOf('acme/external'), 'onnx/model.onnx_data')).equals(DATA)).toBe(
      true,
    );

    const undeclared = await fetchModel('acme/undeclared', { ...opts, dtypes: ['fp32'] });
    expect(undeclared.ok).toBe(true);
    expect(undeclared.files.map((f) => f.path)).toContain('onnx/model.onnx_data');

    // A declared chunk that the repository lacks is an error, not a skip.
    rmSync(join(root, 'acme/external/onnx/model.onnx_data_1'));
    try {
      const lacking = await fetchModel('acme/external', { ...opts, dtypes: ['fp32'], force: true });
      expect(lacking.ok).toBe(false);
      expect(lacking.errors).toEqual([expect.stringContaining('onnx/model.onnx_data_1: HTTP 404')]);
    } finally {
      writeFileSync(join(root, 'acme/external/onnx/model.onnx_data_1'), 'second chunk');
    }
  });

  it('fails on a missing requested weight, naming the file, URL and status, and keeps the rest', async () => {
    const result = await fetchModel('acme/tiny', { ...opts, dtypes: ['fp32', 'fp16'] });
    expect(result.ok).toBe(false);
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toContain('acme/tiny: onnx/model_fp16.onnx');
    expect(result.errors[0]).toContain(
      `HTTP 404 for ${hub.url}/acme/tiny/resolve/main/onnx/model_fp16.onnx`,
    );
    expect(result.errors[0]).toContain('no fp16 weights');
    // The rest is there, but no manifest claims the model complete.
    expect(existsSync(join(dirOf('acme/tiny'), 'onnx/model.onnx'))).toBe(true);
    expect(existsSync(join(dirOf('acme/tiny'), MANIFEST_NAME))).toBe(false);
  });

  it('fails on a missing required file', async () => {
    const result = await fetchModel('acme/no-tokenizer', { ...opts, dtypes: ['fp32'] });
    expect(result.ok).toBe(false);
    expect(result.errors).toEqual([
      expect.stringMatching(/^acme\/no-tokenizer: tokenizer\.json: HTTP 404 .*not found/),
    ]);
    expect(result.files.map((f) => f.path)).toContain('onnx/model.onnx');
  });

  it('explains 401 (gated, private or unknown: set HF_TOKEN) and stops at config.json', async () => {
    const result = await fetchModel('gated/model', opts);
    expect(result.ok).toBe(false);
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatch(/config\.json: HTTP 401 .*private or gated.*set HF_TOKEN/);
    expect(hub.requests).toEqual(['GET /gated/model/resolve/main/config.json']);
    expect(existsSync(dirOf('gated/model'))).toBe(false);

    const unknown = await fetchModel('nobody/nothing', opts);
    expect(unknown.errors[0]).toMatch(/HTTP 401 .*does not exist/);

    hub.faults['gated/model'] = 403;
    const forbidden = await fetchModel('gated/model', { ...opts, token: TOKEN });
    expect(forbidden.errors[0]).toMatch(/HTTP 403 .*gated.*accept its conditions/);
    expect(forbidden.errors[0]).not.toContain(TOKEN);
  });

  it('explains an unknown revision, and fetches a known one', async () => {
    const bad = await fetchModel('acme/tiny', { ...opts, revision: 'v9' });
    expect(bad.errors[0]).toMatch(/revision "v9" not found/);

    await hub.close();
    hub = await startFakeHub({ root, revisions: ['main', 'refs/pr/1'] });
    const pr = await fetchModel('acme/tiny', { ...opts, endpoint: hub.url, revision: 'refs/pr/1' });
    expect(pr.ok).toBe(true);
    expect(hub.requests[0]).toBe('GET /acme/tiny/resolve/refs%2Fpr%2F1/config.json');
    expect(readManifest(dirOf('acme/tiny')).revision).toBe('refs/pr/1');
  });

  it('refuses bad model ids, dtypes and endpoints before any request', async () => {
    for (const id of [
      '../etc',
      '/etc/passwd',
      'acme/../../x',
      'acme/tiny/extra',
      'just-a-name',
      'C:\\models\\x',
      'acme/',
      '',
      'acme/ti ny',
      '.hidden/x',
    ]) {
      await expect(fetchModel(id, opts), id).rejects.toThrow(UsageError);
    }
    await expect(fetchModel('acme/tiny', { ...opts, dtypes: ['fp64'] })).rejects.toThrow(
      /unknown dtype fp64/,
    );
    await expect(fetchModel('acme/tiny', { ...opts, endpoint: 'ftp://x' })).rejects.toThrow(
      /invalid endpoint/,
    );
    await expect(
      fetchModel('acme/tiny', { ...opts, extraFiles: ['../../etc/passwd'] }),
    ).rejects.toThrow(/invalid file path/);
    expect(hub.requests).toEqual([]);
    expect(listFiles(out)).toEqual([]);
  });

  it('sends HF_TOKEN to the hub only, never to another host, and never prints it', async () => {
    // The weights' redirect goes to a second server, as the hub's does to its CDN.
    const cdn = await startFakeHub({ root });
    await hub.close();
    hub = await startFakeHub({ root, cdnBase: cdn.url, faults: { 'gated/model': 401 } });
    try {
      const io = captureIo();
      const code = await main(
        ['acme/tiny', 'gated/model', '--out', out, '--dtype', 'fp32'],
        { HF_TOKEN: TOKEN, HF_ENDPOINT: hub.url },
        io,
      );
      expect(code).toBe(1);
      const hubAuth = hub.records.map((r) => r.authorization);
      expect(hubAuth.length).toBeGreaterThan(0);
      expect(hubAuth.every((a) => a === `Bearer ${TOKEN}`)).toBe(true);
      expect(cdn.requests).toEqual(['GET /cdn-lfs/acme/tiny/onnx/model.onnx?sig=fake-signature']);
      expect(cdn.records[0].authorization).toBeUndefined();
      expect(io.all()).not.toContain(TOKEN);
      expect(io.all()).toContain('HF_TOKEN given was refused');
      expect(readFileSync(join(dirOf('acme/tiny'), MANIFEST_NAME), 'utf8')).not.toContain(TOKEN);
    } finally {
      await cdn.close();
    }
  });

  it('masks the token even where the hub echoes it back', async () => {
    hub.faults['gated/model'] = { status: 403, message: `token ${TOKEN} cannot read gated/model` };
    const io = captureIo();
    const code = await main(
      ['gated/model', '--out', out],
      { HF_TOKEN: TOKEN, HF_ENDPOINT: hub.url },
      io,
    );
    expect(code).toBe(1);
    expect(io.all()).toContain('(hub: token *** cannot read gated/model)');
    expect(io.all()).not.toContain(TOKEN);
  });

  it('sends no Authorization header without a token', async () => {
    await fetchModel('acme/tiny', opts);
    expect(hub.records.every((r) => r.authorization === undefined)).toBe(true);
  });

  it('retries a cut connection and a truncated download, then succeeds', async () => {
    hub.faults['acme/tiny/tokenizer.json'] = { reset: true, times: 1 };
    hub.faults['acme/tiny/onnx/model.onnx'] = { truncate: true, times: 2 };
    const result = await fetchModel('acme/tiny', opts);
    expect(result.errors).toEqual([]);
    expect(readFileSync(join(dirOf('acme/tiny'), 'onnx/model.onnx')).equals(FP32)).toBe(true);
    expect(hub.requests.filter((r) => r.endsWith('/tokenizer.json'))).toHaveLength(2);
    expect(
      hub.requests.filter((r) => r.startsWith('GET /cdn-lfs/acme/tiny/onnx/model.onnx?')),
    ).toHaveLength(3);
    expect(lines.filter((l) => l.startsWith('  retry'))).toHaveLength(3);
    expect(listFiles(dirOf('acme/tiny')).filter((f) => f.endsWith('.part'))).toEqual([]);
  });

  it('gives up after the retries with a clear network error, and leaves no partial file', async () => {
    hub.faults['acme/tiny/onnx/model.onnx'] = { truncate: true };
    hub.faults['acme/tiny/special_tokens_map.json'] = { reset: true };
    const result = await fetchModel('acme/tiny', { ...opts, retries: 1 });
    expect(result.ok).toBe(false);
    expect(result.errors).toEqual([
      expect.stringMatching(/special_tokens_map\.json: network error for http:\/\/127\.0\.0\.1/),
      expect.stringMatching(
        /onnx\/model\.onnx: (incomplete download .*of 300000 bytes|network error)/,
      ),
    ]);
    const dir = dirOf('acme/tiny');
    expect(existsSync(join(dir, 'onnx/model.onnx'))).toBe(false);
    expect(listFiles(dir).filter((f) => f.endsWith('.part'))).toEqual([]);
  });

  it('reports an unreachable endpoint as a network error', async () => {
    const port = hub.port;
    await hub.close();
    const result = await fetchModel('acme/tiny', {
      ...opts,
      endpoint: `http://127.0.0.1:${port}`,
      retries: 0,
    });
    expect(result.errors).toEqual([
      expect.stringMatching(/config\.json: network error .*ECONNREFUSED/),
    ]);
    hub = await startFakeHub({ root });
  });

  it('times out a stalled download', async () => {
    hub.faults['acme/tiny/onnx/model.onnx'] = { stall: true };
    // One retry, so that a busy machine's slow answer for a JSON file cannot fail the test.
    const result = await fetchModel('acme/tiny', {
      ...opts,
      dtypes: ['fp32'],
      retries: 1,
      idleTimeoutMs: 1000,
    });
    expect(hub.requests.filter((r) => r.startsWith('GET /cdn-lfs/'))).toHaveLength(2);
    expect(result.errors).toEqual([
      expect.stringMatching(/onnx\/model\.onnx: no data for 1\.0 s from/),
    ]);
  });

  it('rejects bytes whose SHA-256 differs from what the hub announced', async () => {
    hub.faults['acme/tiny/onnx/model_quantized.onnx'] = { badEtag: true };
    const result = await fetchModel('acme/tiny', { ...opts, retries: 0 });
    expect(result.errors).toEqual([
      expect.stringMatching(/onnx\/model_quantized\.onnx: SHA-256 mismatch/),
    ]);
    expect(existsSync(join(dirOf('acme/tiny'), 'onnx/model_quantized.onnx'))).toBe(false);
  });

  it('stops on a config.json that is not JSON', async () => {
    const result = await fetchModel('acme/broken-config', opts);
    expect(result.errors).toEqual(['acme/broken-config: config.json is not valid JSON']);
  });

  describe('CLI', () => {
    it('prints usage for --help, and refuses usage errors with status 2', async () => {
      const help = captureIo();
      expect(await main(['--help'], {}, help)).toBe(0);
      expect(help.out.join('')).toMatch(/^Usage: npm run models:fetch -- <owner\/name>/);
      expect(help.out.join('')).toContain('--dtype');

      for (const argv of [
        [],
        ['../x'],
        ['acme/tiny', '--dtype', 'fp64'],
        ['acme/tiny', '--bogus'],
        ['acme/tiny', '--endpoint', 'not a url'],
      ]) {
        const io = captureIo();
        expect(await main(argv, { HF_ENDPOINT: hub.url }, io), argv.join(' ')).toBe(2);
        expect(io.err.join('')).toMatch(/^models:fetch: .+\n\nUsage:/);
      }
      expect(hub.requests).toEqual([]);
    });

    it('goes on after a failed model and summarises, exiting 1', async () => {
      const io = captureIo();
      const code = await main(
        ['gated/model', 'acme/tiny', '--out', out, '--endpoint', hub.url, '--dtype', 'q8'],
        {},
        io,
      );
      expect(code).toBe(1);
      const stdout = io.out.join('');
      expect(stdout).toContain('Summary: 2 models, 1 failed');
      expect(stdout).toMatch(/FAILED {2}gated\/model/);
      expect(stdout).toMatch(/ok {6}acme\/tiny {2}5 files, .* \(5 downloaded, 0 up to date\)/);
      expect(io.err.join('')).toMatch(/gated\/model: config\.json: HTTP 401/);
      expect(readManifest(dirOf('acme/tiny')).dtypes).toEqual(['q8']);

      const verify = captureIo();
      expect(await main(['acme/tiny', '--out', out, '--verify'], {}, verify)).toBe(0);
      expect(verify.out.join('')).toMatch(/ok {6}acme\/tiny {2}5 files/);
      expect(await main(['gated/model', '--out', out, '--verify'], {}, captureIo())).toBe(1);
    });

    it('draws live progress on a terminal and clears it before each finished line', async () => {
      const io = { ...captureIo(), isTTY: true };
      const code = await main(['acme/tiny', '--out', out, '--endpoint', hub.url], {}, io);
      expect(code).toBe(0);
      const err = io.err.join('');
      const ERASE_LINE = '\r\u001b[K';
      expect(err.startsWith(ERASE_LINE)).toBe(true);
      const drawn = err.split(ERASE_LINE).filter(Boolean);
      expect(drawn).toContainEqual(
        expect.stringMatching(/^ {2}\.\.\. {9}onnx\/model\.onnx {2}[\d.]+ kB\/300\.0 kB {2}\d+%$/),
      );
      expect(io.out.join('')).not.toContain('\r');
    });

    it('runs as a script (tsx), taking HF_ENDPOINT from the environment', async () => {
      const child = spawn(
        process.execPath,
        [
          resolve(repoRoot, 'node_modules/tsx/dist/cli.mjs'),
          'scripts/models-fetch.ts',
          'acme/tiny',
          '--out',
          out,
          '--dtype',
          'fp32',
        ],
        {
          cwd: repoRoot,
          env: { ...process.env, HF_ENDPOINT: hub.url, HF_TOKEN: TOKEN },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let output = '';
      child.stdout.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr.on('data', (d: Buffer) => (output += d.toString()));
      const code = await new Promise<number | null>((ok) => child.on('close', ok));
      expect(output).not.toContain(TOKEN);
      expect(code, output).toBe(0);
      // Not a terminal: one line per file, no carriage returns.
      expect(output).not.toContain('\r');
      expect(output.match(/^ {2}downloaded {2}/gm)).toHaveLength(5);
      expect(output).toContain('Summary: 1 model, 0 failed');
      expect(statSync(join(dirOf('acme/tiny'), 'onnx/model.onnx')).size).toBe(FP32.length);
    });
  });
});

describe('fake hub', () => {
  let base: string;
  let root: string;
  let hub: FakeHub;
  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), 'sumlens-hub-'));
    root = join(base, 'hub');
    buildRepos(root);
    writeFileSync(join(base, 'secret.json'), '{"secret":true}');
    hub = await startFakeHub({ root });
  });
  afterAll(async () => {
    await hub.close();
    rmSync(base, { recursive: true, force: true });
  });

  it('answers CORS preflights and HEAD, and puts CORS/CORP headers on every answer', async () => {
    const pre = await fetch(`${hub.url}/acme/tiny/resolve/main/config.json`, { method: 'OPTIONS' });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
    expect(pre.headers.get('access-control-allow-headers')).toMatch(/Authorization/);

    const head = await fetch(`${hub.url}/acme/tiny/resolve/main/config.json`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    const size = statSync(join(root, 'acme/tiny/config.json')).size;
    expect(head.headers.get('content-length')).toBe(String(size));

    const redirect = await fetch(`${hub.url}/acme/tiny/resolve/main/onnx/model.onnx`, {
      redirect: 'manual',
    });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('x-linked-size')).toBe(String(FP32.length));
    expect(redirect.headers.get('x-linked-etag')).toBe(`"${sha256(FP32)}"`);
    const missing = await fetch(`${hub.url}/acme/tiny/resolve/main/nope.json`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-error-code')).toBe('EntryNotFound');
    for (const res of [pre, head, redirect, missing]) {
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    }

    const followed = await fetch(`${hub.url}/acme/tiny/resolve/main/onnx/model.onnx`);
    expect(Buffer.from(await followed.arrayBuffer()).equals(FP32)).toBe(true);
    expect(followed.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('serves byte ranges and nothing outside its root', async () => {
    const part = await fetch(`${hub.url}/cdn-lfs/acme/tiny/onnx/model.onnx`, {
      headers: { Range: 'bytes=10-19' },
    });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer()).equals(FP32.subarray(10, 20))).toBe(true);
    for (const path of [
      '/acme/tiny/resolve/main/..%2F..%2F..%2Fsecret.json',
      '/cdn-lfs/acme/tiny/..%2F..%2F..%2Fsecret.json',
      '/..%2F..%2Fsecret.json/x/resolve/main/y',
    ]) {
      const res = await fetch(`${hub.url}${path}`);
      expect([401, 404], path).toContain(res.status);
      expect(await res.text()).not.toContain('secret');
    }
  });
});

// ---------------------------------------------------------------------------------------------

const fixtureRoot = resolve(repoRoot, 'tests/fixtures/models');
const TINY_EMBEDDING = 'sumlens-test/tiny-embedding';
const TINY_NER = 'sumlens-test/tiny-ner';

describe('models:fetch with the generated tiny models', () => {
  let hub: FakeHub;
  let out: string;
  const results: ModelResult[] = [];

  beforeAll(async () => {
    for (const id of [TINY_EMBEDDING, TINY_NER]) {
      const complete = ['onnx/model.onnx', 'onnx/model_quantized.onnx', ...REQUIRED_FILES].every(
        (f) => existsSync(join(fixtureRoot, id, f)),
      );
      if (!complete) {
        throw new Error(
          `${join(fixtureRoot, id)} is missing: run \`npm run models:test\` (npm test's pretest does).`,
        );
      }
    }
    out = mkdtempSync(join(tmpdir(), 'sumlens-fetch-'));
    hub = await startFakeHub({ root: fixtureRoot });
    for (const id of [TINY_EMBEDDING, TINY_NER]) {
      results.push(await fetchModel(id, { outDir: out, endpoint: hub.url }));
    }
  });
  afterAll(async () => {
    await hub?.close();
    if (out) rmSync(out, { recursive: true, force: true });
  });

  it('copies every file the fixtures have for fp32 and q8, byte for byte, and verifies', async () => {
    const fetchable = new Set([
      ...REQUIRED_FILES,
      ...OPTIONAL_FILES,
      'onnx/model.onnx',
      'onnx/model_quantized.onnx',
    ]);
    for (const result of results) {
      expect(result.errors).toEqual([]);
      const src = join(fixtureRoot, result.modelId);
      const wanted = listFiles(src).filter((f) => fetchable.has(f));
      expect(result.files.map((f) => f.path).sort()).toEqual(wanted);
      for (const file of wanted) {
        expect(
          readFileSync(join(result.dir, file)).equals(readFileSync(join(src, file))),
          file,
        ).toBe(true);
      }
      expect((await verifyModel(result.modelId, out)).problems).toEqual([]);
    }
  });

  it('gives a copy that transformers.js loads with remote models off', async () => {
    const { env, pipeline } = await import('@huggingface/transformers');
    const saved = {
      allowRemoteModels: env.allowRemoteModels,
      allowLocalModels: env.allowLocalModels,
      localModelPath: env.localModelPath,
    };
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.localModelPath = `${out}/`;
    try {
      const before = hub.requests.length;
      const embed = await pipeline('feature-extraction', TINY_EMBEDDING, { dtype: 'fp32' });
      const vectors = await embed(['Heavy rain caused flooding across the region.'], {
        pooling: 'mean',
        normalize: true,
      });
      expect(vectors.dims).toEqual([1, 32]);
      const v = vectors.tolist()[0] as number[];
      expect(v.every(Number.isFinite)).toBe(true);
      expect(Math.hypot(...v)).toBeCloseTo(1, 5);
      await embed.dispose();

      const ner = await pipeline('token-classification', TINY_NER, { dtype: 'q8' });
      const entities = await ner('Ada Lovelace met Grace Hopper in London.');
      expect(Array.isArray(entities)).toBe(true);
      await ner.dispose();
      // Loaded from the fetched copy: nothing more was asked of the hub.
      expect(hub.requests.length).toBe(before);
    } finally {
      Object.assign(env, saved);
    }
  });
});
