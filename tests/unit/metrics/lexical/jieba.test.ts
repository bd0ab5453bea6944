/**
 * The jieba segmenter: Python-jieba compatibility of the jieba-rs build, the Node and browser
 * loaders, and how the segmenter reaches the metrics (scoreReferenceMetrics, computeMetrics).
 * Parity on real data is in tinyeval-vectors.test.ts.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  jiebaSegmenter,
  loadJiebaBrowser,
  loadJiebaNode,
  pythonJiebaCompat,
  type JiebaWasmModule,
} from '../../../../src/lib/metrics/lexical/jieba.ts';
import {
  intlSegmenterFallback,
  intlWordSegmenter,
} from '../../../../src/lib/metrics/lexical/cjk-words.ts';
import {
  scoreReferenceMetrics,
  type RougeDetails,
  type TokenF1Details,
} from '../../../../src/lib/metrics/lexical/reference/reference-metrics.ts';
import { computeMetrics } from '../../../../src/lib/metrics/offline.ts';
import { DEFAULT_SETTINGS } from '../../../../src/lib/metrics/settings.ts';
import type { MetricResult } from '../../../../src/lib/metrics/types.ts';
import { repoRoot } from '../../../helpers/shared.ts';

const raw = createRequire(import.meta.url)('jieba-wasm/node') as JiebaWasmModule;
const jieba = loadJiebaNode();

describe('Python jieba compatibility of jieba-rs', () => {
  it('segments as jieba does', () => {
    expect(jieba.name).toBe('jieba');
    expect(jieba.cut('我来到北京清华大学')).toEqual(['我', '来到', '北京', '清华大学']);
    // Every character lands in one segment, spaces and punctuation included.
    const text = '他说：“你好 world！”\n2019年';
    expect(jieba.cut(text).join('')).toBe(text);
  });

  it('re-splits digit runs that jieba-rs joins across a separator (unescaped dot in RE_SKIP)', () => {
    // Python jieba's finalseg: ([a-zA-Z0-9]+(?:\.\d+)?%?) → 010 | - | 12345678.
    expect(raw.cut('电话010-12345678', true)).toEqual(['电话', '010-12345678']);
    expect(jieba.cut('电话010-12345678')).toEqual(['电话', '010', '-', '12345678']);
    expect(jieba.cut('截至2019-12')).toEqual(['截至', '2019', '-', '12']);
    expect(jieba.cut('占5%3成')).toEqual(['占', '5%', '3', '成']);
    expect(jieba.cut('a-1-2')).toEqual(['a', '-', '1', '-', '2']);
    // Decimals and percentages are the same in both.
    expect(jieba.cut('增长3.5%')).toEqual(raw.cut('增长3.5%', true));
  });

  it('leaves runs alone that jieba-rs did not produce with its HMM splitter', () => {
    // A dictionary word (here faked) is not what jieba-rs's pattern gives for the run.
    const fake: JiebaWasmModule = { cut: () => ['C++', '-', '11'] };
    expect(pythonJiebaCompat(fake, 'C++-11')).toEqual(['C++', '-', '11']);
    expect(jiebaSegmenter(fake).cut('x')).toEqual(['C++', '-', '11']);
  });

  it('yields ideographs outside U+4E00–U+9FD5 one by one, as Python jieba does', () => {
    expect(raw.cut('我㐀㐁中文', true)).toEqual(['我', '㐀㐁', '中文']);
    expect(jieba.cut('我㐀㐁中文')).toEqual(['我', '㐀', '㐁', '中文']);
    expect(jieba.cut('𠀀𠀁')).toEqual(['𠀀', '𠀁']);
  });

  it('loadJiebaNode returns one shared segmenter', () => {
    expect(loadJiebaNode()).toBe(jieba);
  });
});

describe('loadJiebaBrowser (web build, wasm fetched from the app)', () => {
  const wasm = readFileSync(
    resolve(repoRoot, 'node_modules/jieba-wasm/pkg/web/jieba_rs_wasm_bg.wasm'),
  );
  let server: Server;
  let base = '';

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/vendor/jieba/jieba_rs_wasm_bg.wasm') {
        res.writeHead(200, { 'Content-Type': 'application/wasm' }).end(wasm);
      } else if (req.url === '/spa/jieba_rs_wasm_bg.wasm') {
        res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html>');
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((done) => server.close(() => done())));

  it('fails with the HTTP status, or on an HTML fallback page, and can then retry', async () => {
    await expect(loadJiebaBrowser(`${base}/missing.wasm`)).rejects.toThrow(/HTTP 404/);
    await expect(loadJiebaBrowser(`${base}/spa/jieba_rs_wasm_bg.wasm`)).rejects.toThrow(
      /text\/html/,
    );
  });

  it('initialises the web build with { module_or_path } and segments like the Node build', async () => {
    const url = `${base}/vendor/jieba/jieba_rs_wasm_bg.wasm`;
    const web = await loadJiebaBrowser(url);
    expect(web.name).toBe('jieba');
    for (const text of ['臣妾是甄嬛，家父是大理寺少卿。', '电话010-12345678', '我㐀㐁中文']) {
      expect(web.cut(text)).toEqual(jieba.cut(text));
    }
    expect(await loadJiebaBrowser(url)).toBe(web);
  });
});

const zhCase = {
  source: '',
  summary: '她注意到了浙江大学的第二组数据。',
  reference: '浙江大学的第二组数据很重要。',
};

function byId(results: MetricResult[]): Record<string, MetricResult> {
  return Object.fromEntries(results.map((r) => [r.id, r]));
}

describe('the segmenter in the metrics', () => {
  it('scoreReferenceMetrics names the segmenter that ran', () => {
    const withJieba = byId(scoreReferenceMetrics(zhCase, { wordSegmenter: jieba }));
    expect(withJieba['token-f1'].backend).toBe('squad-f1 (jieba)');
    expect((withJieba['token-f1'].details as TokenF1Details).segmentation).toBe('jieba');
    expect(withJieba['rouge-1'].backend).toBe('rouge_score-0.1.2 (porter, jieba)');
    expect((withJieba['rouge-l'].details as RougeDetails).wordSegmenter).toBe('jieba');
    expect(withJieba.bleu.backend).toBe('sacrebleu-intl-segmenter');

    const intl = byId(scoreReferenceMetrics(zhCase, { wordSegmenter: intlWordSegmenter }));
    expect(intl['token-f1'].backend).toBe('squad-f1 (intl-segmenter)');
    expect(intl['rouge-1'].backend).toBe('rouge_score-0.1.2 (porter, intl-segmenter)');

    const fallback = byId(
      scoreReferenceMetrics(zhCase, { wordSegmenter: intlSegmenterFallback('offline') }),
    );
    expect(fallback['token-f1'].backend).toBe('squad-f1 (intl-segmenter, jieba unavailable)');
    expect((fallback['token-f1'].details as TokenF1Details).segmenterFallbackReason).toBe(
      'offline',
    );
    expect(fallback['rouge-lsum'].backend).toBe(
      'rouge_score-0.1.2 (porter, intl-segmenter, jieba unavailable)',
    );
  });

  it('jieba words give the F1 jieba gives', () => {
    const r = byId(scoreReferenceMetrics(zhCase, { wordSegmenter: jieba }));
    const d = r['token-f1'].details as TokenF1Details;
    expect(d.commonTokens).toEqual(['浙江大学', '的', '第二组', '数据']);
  });

  it('English and Japanese text do not use the Chinese segmenter', () => {
    const calls: string[] = [];
    const spy = { name: 'jieba' as const, cut: (t: string) => (calls.push(t), jieba.cut(t)) };
    const en = byId(
      scoreReferenceMetrics(
        { source: '', summary: 'The cat sat.', reference: 'A cat sat.' },
        { wordSegmenter: spy },
      ),
    );
    expect(en['token-f1'].backend).toBe('squad-f1');
    const ja = byId(
      scoreReferenceMetrics(
        { source: '', summary: '東京タワーに行った', reference: '東京タワーへ行った' },
        { wordSegmenter: spy },
      ),
    );
    expect(ja['token-f1'].backend).toBe('squad-f1 (intl-segmenter)');
    expect(calls).toEqual([]);
  });

  async function run(
    input: { source: string; summary: string; reference?: string },
    loader: () => Promise<typeof jieba>,
  ) {
    let loads = 0;
    const results: MetricResult[] = [];
    await computeMetrics(
      ['rouge-1', 'token-f1'],
      input,
      DEFAULT_SETTINGS,
      {
        wordSegmenter: () => {
          loads++;
          return loader();
        },
      },
      (r) => results.push(r),
    );
    return { loads, r: byId(results) };
  }

  it('computeMetrics loads the segmenter only for CJK cases with a reference', async () => {
    const zh = await run(zhCase, async () => jieba);
    expect(zh.loads).toBe(1);
    expect(zh.r['token-f1'].backend).toBe('squad-f1 (jieba)');
    expect(zh.r['rouge-1'].backend).toBe('rouge_score-0.1.2 (porter, jieba)');

    const en = await run({ source: '', summary: 'A cat.', reference: 'The cat.' }, async () => {
      throw new Error('must not load');
    });
    expect(en.loads).toBe(0);
    expect(en.r['token-f1'].status).toBe('ok');

    const noRef = await run({ source: '', summary: '浙江大学' }, async () => jieba);
    expect(noRef.loads).toBe(0);
    expect(noRef.r['token-f1'].status).toBe('n/a');
  });

  it('computeMetrics falls back to Intl.Segmenter when jieba fails to load, and says so', async () => {
    const { loads, r } = await run(zhCase, async () => {
      throw new Error('HTTP 404');
    });
    expect(loads).toBe(1);
    expect(r['token-f1'].status).toBe('ok');
    expect(r['token-f1'].backend).toBe('squad-f1 (intl-segmenter, jieba unavailable)');
    expect((r['token-f1'].details as TokenF1Details).segmenterFallbackReason).toBe(
      'jieba failed to load: HTTP 404',
    );
    expect(r['rouge-1'].backend).toBe(
      'rouge_score-0.1.2 (porter, intl-segmenter, jieba unavailable)',
    );
  });
});
