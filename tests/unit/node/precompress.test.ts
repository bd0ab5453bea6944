import { afterEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import {
  pickEncoding,
  precompressDir,
  precompressedFiles,
  shouldPrecompress,
} from '../../../src/lib/node/precompress.ts';

const dirs: string[] = [];
let server: Server | undefined;

afterEach(async () => {
  await new Promise((done) => (server ? server.close(done) : done(undefined)));
  server = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sumlens-precompress-'));
  dirs.push(dir);
  return dir;
}

function write(root: string, path: string, bytes: Uint8Array | string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), bytes);
}

/** A wasm-like file: compressible, like the real ones (mostly repeated code patterns). */
const compressible = Buffer.from('\0asm'.repeat(20_000));

describe('precompressed copies (build)', () => {
  it('names the wasm runtimes, the default encoder and the vectors, not other models or text', () => {
    for (const path of [
      'vendor/ort/ort-wasm-simd-threaded.wasm',
      'vendor/jieba/jieba_rs_wasm_bg.wasm',
      'models/use-lite/int8.onnx',
      'models/use-lite/use-lite-int8-weights.bin',
      'assets/glove-100d-333f0997e1.bin',
    ]) {
      expect(shouldPrecompress(path), path).toBe(true);
    }
    for (const path of [
      'models/Xenova/all-MiniLM-L6-v2/onnx/model.onnx',
      'models/use-lite/vocab.json',
      'models/use-lite/group1-shard1of7',
      'assets/index-x.js',
      'vendor/ort/ort-wasm-simd-threaded.mjs',
      'vendor/ort/ort-wasm-simd-threaded.wasm.br',
    ]) {
      expect(shouldPrecompress(path), path).toBe(false);
    }
  });

  it('writes .br and .gz copies that decode to the file, skips what does not shrink, and reuses its cache', async () => {
    const out = tempDir();
    const cache = join(tempDir(), 'cache');
    write(out, 'vendor/ort/a.wasm', compressible);
    write(out, 'models/use-lite/noise.bin', randomBytes(50_000));
    write(out, 'models/other/big.onnx', compressible);
    const first = await precompressDir(out, cache);
    expect(first.map((f) => f.path).sort()).toEqual([
      'models/use-lite/noise.bin',
      'vendor/ort/a.wasm',
    ]);
    const wasm = join(out, 'vendor/ort/a.wasm');
    expect(brotliDecompressSync(readFileSync(`${wasm}.br`))).toEqual(compressible);
    expect(gunzipSync(readFileSync(`${wasm}.gz`))).toEqual(compressible);
    expect(first.find((f) => f.path.endsWith('.wasm'))?.cached).toBe(false);
    // Random bytes do not compress: sent as they are.
    expect(existsSync(join(out, 'models/use-lite/noise.bin.br'))).toBe(false);
    expect(existsSync(join(out, 'models/other/big.onnx.br'))).toBe(false);

    const rebuilt = tempDir();
    write(rebuilt, 'vendor/ort/a.wasm', compressible);
    const second = await precompressDir(rebuilt, cache);
    expect(second).toEqual([expect.objectContaining({ path: 'vendor/ort/a.wasm', cached: true })]);
    expect(readFileSync(join(rebuilt, 'vendor/ort/a.wasm.br'))).toEqual(readFileSync(`${wasm}.br`));
  });
});

describe('precompressed copies (preview server)', () => {
  it('picks the first accepted encoding that exists; q=0 refuses one; none means as it is', () => {
    const both = () => true;
    expect(pickEncoding('gzip, deflate, br, zstd', both)).toBe('br');
    expect(pickEncoding('gzip, deflate', both)).toBe('gzip');
    expect(pickEncoding('br;q=0, gzip;q=0.5', both)).toBe('gzip');
    expect(pickEncoding('*', both)).toBe('br');
    expect(pickEncoding('*, br;q=0', both)).toBe('gzip');
    expect(pickEncoding('identity', both)).toBe(undefined);
    expect(pickEncoding(undefined, both)).toBe(undefined);
    expect(pickEncoding('br, gzip', (e) => e === 'gzip')).toBe('gzip');
  });

  async function get(
    path: string,
    headers: Record<string, string>,
  ): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
    const { port } = server!.address() as AddressInfo;
    return new Promise((done, fail) => {
      request({ host: '127.0.0.1', port, path, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      })
        .on('error', fail)
        .end();
    });
  }

  it('sends the copy with Content-Encoding, Vary and the headers every file gets; passes the rest on', async () => {
    const dist = tempDir();
    write(dist, 'vendor/ort/a.wasm', compressible);
    await precompressDir(dist, join(tempDir(), 'cache'));
    const serve = precompressedFiles(dist, {
      'Cross-Origin-Embedder-Policy': 'require-corp',
      'Cross-Origin-Opener-Policy': 'same-origin',
    });
    server = createServer((req, res) =>
      serve(req, res, () => {
        res.statusCode = 299;
        res.end('passed on');
      }),
    );
    await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));

    const br = await get('/vendor/ort/a.wasm', { 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toBe('application/wasm');
    expect(br.headers['vary']).toMatch(/Accept-Encoding/u);
    expect(br.headers['cross-origin-embedder-policy']).toBe('require-corp');
    expect(br.headers['cross-origin-opener-policy']).toBe('same-origin');
    expect(Number(br.headers['content-length'])).toBe(br.body.length);
    expect(br.body.length).toBeLessThan(compressible.length / 10);
    expect(brotliDecompressSync(br.body)).toEqual(compressible);

    const gz = await get('/vendor/ort/a.wasm', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body)).toEqual(compressible);

    const again = await get('/vendor/ort/a.wasm', {
      'accept-encoding': 'br',
      'if-none-match': String(br.headers['etag']),
    });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);

    // No encoding accepted, a file without copies, a path out of dist/: the static server's.
    const plain = await get('/vendor/ort/a.wasm', { 'accept-encoding': 'identity' });
    expect(plain.status).toBe(299);
    expect(plain.headers['vary']).toMatch(/Accept-Encoding/u);
    expect((await get('/index.html', { 'accept-encoding': 'br' })).status).toBe(299);
    expect((await get('/vendor/ort/b.wasm', { 'accept-encoding': 'br' })).status).toBe(299);
    expect((await get('/../../etc/x.wasm', { 'accept-encoding': 'br' })).status).toBe(299);
  });
});
