/**
 * Bytes of JavaScript the first paint needs: the entry script and its modulepreloads, read from
 * the built dist/index.html. Locale bundles and workers load later, so they are not counted.
 * Run after `npm run build`: `npx tsx scripts/initial-js-bytes.ts`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const dist = join(import.meta.dirname, '..', 'dist');
const html = readFileSync(join(dist, 'index.html'), 'utf8');
const paths = new Set<string>();
for (const m of html.matchAll(/<script[^>]*\ssrc="([^"]+\.js)"/gu)) paths.add(m[1]!);
for (const m of html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+\.js)"/gu))
  paths.add(m[1]!);
let raw = 0;
let gz = 0;
for (const p of paths) {
  const bytes = readFileSync(join(dist, p.replace(/^\//u, '')));
  raw += bytes.length;
  gz += gzipSync(bytes, { level: 9 }).length;
  console.log(`${p}\t${bytes.length} B\tgzip ${gzipSync(bytes, { level: 9 }).length} B`);
}
console.log(
  `initial JS: ${raw} B (${(raw / 1024).toFixed(1)} KiB), gzip ${gz} B (${(gz / 1024).toFixed(1)} KiB), ${paths.size} files`,
);
