/**
 * jieba word segmentation (`jieba.cut(text, cut_all=False)`, HMM on) for the Chinese metrics,
 * through jieba-wasm (MIT; jieba-rs compiled to WebAssembly, jieba's dictionary and HMM inside the
 * wasm). LongBench and TinyEval segment Chinese with Python jieba 0.42.1; with this segmenter our
 * qa_f1_zh / rouge_zh scores match theirs exactly (tests/unit/metrics/lexical).
 *
 * jieba-rs follows Python jieba's algorithm (same dictionary, DAG route, HMM, tie-breaks) with two
 * differences in its regular expressions, which `pythonJiebaCompat` undoes:
 *
 * 1. Its HMM splitter for non-Han runs, Python's `([a-zA-Z0-9]+(?:\.\d+)?%?)`, has an unescaped
 *    dot in jieba-rs, so any character before a digit joins: '021-50710282' and '2020-08' come out
 *    as one word where Python jieba gives 021 | - | 50710282. We re-split such runs with Python's
 *    pattern (only runs that are exactly what jieba-rs's pattern would produce, so a dictionary
 *    word is never touched).
 * 2. Its top-level block pattern takes CJK Extension A–F and the compatibility ideographs as Han;
 *    Python's stops at U+4E00–U+9FD5 and yields every other character on its own. We cut the text
 *    apart at those characters and emit each as its own word, which is what Python does.
 *
 * Loaders: `loadJiebaNode()` (Node: CLI, benchmarks, tests; synchronous, loads the nodejs build
 * from node_modules) and `loadJiebaBrowser(url)` (web build; the app serves the wasm itself from
 * `public/vendor/jieba/`, see scripts/copy-vendor-assets.ts; never from a CDN). Both return a
 * WordSegmenter named 'jieba'; the metric functions stay synchronous and take it as a parameter.
 */
import type { WordSegmenter } from './cjk-words.ts';

/** What we use of either jieba-wasm build. */
export interface JiebaWasmModule {
  cut(text: string, hmm?: boolean | null): string[];
}

/** Characters of Python jieba's non-Han ASCII runs (`re_han_default` minus the Han range). */
const ASCII_RUN_TOKEN = /^[a-zA-Z0-9+#&._%-]+$/;
/** Python jieba `finalseg.re_skip`. */
const PY_SKIP = /[a-zA-Z0-9]+(?:\.[0-9]+)?%?/g;
/** jieba-rs `hmm::RE_SKIP` (the dot is any character; the runs hold no newline). */
const RS_SKIP = /[a-zA-Z0-9]+(?:.[0-9]+)?%?/g;
/** Ideographs jieba-rs keeps in a Han block and Python jieba 0.42.1 does not. */
const RS_ONLY_HAN =
  /[\u3400-\u4dbf\u9fd6-\u9fff\uf900-\ufaff\u{20000}-\u{2a6df}\u{2a700}-\u{2ebef}\u{2f800}-\u{2fa1f}]/u;

/** `re.split` with a capturing group: matches and the gaps between them, empty pieces dropped. */
function splitKeep(text: string, pattern: RegExp): string[] {
  const out: string[] = [];
  let last = 0;
  for (const m of text.matchAll(pattern)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    out.push(m[0]);
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

function sameTokens(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((t, i) => t === b[i]);
}

/** Difference 1 of the file header: re-split ASCII runs jieba-rs's HMM splitter merged. */
function fixAsciiRuns(tokens: readonly string[]): string[] {
  const out: string[] = [];
  let run: string[] = [];
  const flush = () => {
    if (run.length === 0) return;
    const text = run.join('');
    if (sameTokens(splitKeep(text, RS_SKIP), run)) {
      out.push(...splitKeep(text, PY_SKIP));
    } else {
      out.push(...run);
    }
    run = [];
  };
  for (const t of tokens) {
    if (ASCII_RUN_TOKEN.test(t)) {
      run.push(t);
    } else {
      flush();
      out.push(t);
    }
  }
  flush();
  return out;
}

/** Python jieba's `cut(text, cut_all=False, HMM=True)` from a jieba-rs build (file header). */
export function pythonJiebaCompat(jieba: JiebaWasmModule, text: string): string[] {
  const out: string[] = [];
  let piece = '';
  const cutPiece = () => {
    if (piece) out.push(...fixAsciiRuns(jieba.cut(piece, true)));
    piece = '';
  };
  for (const ch of text) {
    if (RS_ONLY_HAN.test(ch)) {
      cutPiece();
      out.push(ch);
    } else {
      piece += ch;
    }
  }
  cutPiece();
  return out;
}

/** A WordSegmenter over a loaded jieba-wasm module. */
export function jiebaSegmenter(jieba: JiebaWasmModule): WordSegmenter {
  return { name: 'jieba', cut: (text) => pythonJiebaCompat(jieba, text) };
}

let nodeSegmenter: WordSegmenter | undefined;

/**
 * Node only: jieba-wasm's nodejs build, which reads and compiles its wasm synchronously on first
 * use (about a second). Loaded through `process.getBuiltinModule` (Node ≥ 20.16) so that this
 * module has no static Node import and can sit in the browser bundle.
 */
export function loadJiebaNode(): WordSegmenter {
  if (nodeSegmenter) return nodeSegmenter;
  const getBuiltin = globalThis.process?.getBuiltinModule;
  if (typeof getBuiltin !== 'function') {
    throw new Error('loadJiebaNode needs Node.js 20.16 or later (process.getBuiltinModule).');
  }
  const { createRequire } = getBuiltin('node:module');
  const jieba = createRequire(import.meta.url)('jieba-wasm/node') as JiebaWasmModule;
  nodeSegmenter = jiebaSegmenter(jieba);
  return nodeSegmenter;
}

let browserSegmenter: Promise<WordSegmenter> | undefined;

/**
 * Browser (window or worker): jieba-wasm's web build, initialised with the wasm served at
 * `wasmUrl` (in the app: `import.meta.env.BASE_URL + 'vendor/jieba/jieba_rs_wasm_bg.wasm'`). The
 * module is a singleton, so the first successful load is shared; a failed load can be retried.
 */
export function loadJiebaBrowser(
  wasmUrl: string | URL,
  fetchWasm: (url: string | URL) => Promise<Response> = (url) => fetch(url),
): Promise<WordSegmenter> {
  browserSegmenter ??= initWebBuild(wasmUrl, fetchWasm).catch((error: unknown) => {
    browserSegmenter = undefined;
    throw error;
  });
  return browserSegmenter;
}

async function initWebBuild(
  wasmUrl: string | URL,
  fetchWasm: (url: string | URL) => Promise<Response>,
): Promise<WordSegmenter> {
  const jieba = await import('jieba-wasm/web');
  // Fetch here rather than handing init the URL: a missing file then fails with its HTTP status,
  // and a dev server's index.html fallback is caught before WebAssembly sees it.
  const response = await fetchWasm(wasmUrl);
  if (!response.ok) {
    throw new Error(`jieba wasm not available at ${String(wasmUrl)}: HTTP ${response.status}`);
  }
  const type = response.headers.get('Content-Type') ?? '';
  if (type.startsWith('text/')) {
    throw new Error(
      `jieba wasm not available at ${String(wasmUrl)}: got ${type} (run \`npm run assets\`)`,
    );
  }
  // wasm-bindgen ≥ 0.2.93 init: one object, `module_or_path` a URL, Response or bytes.
  await jieba.default({ module_or_path: response });
  return jiebaSegmenter(jieba);
}
