/**
 * zod 4 compiles object parsers with `new Function` unless told not to, and probes for it with
 * `new Function('')` when its first object schema is built. The page's policy has no
 * 'unsafe-eval', so the probe failed (silently) and still reported a CSP violation per policy on
 * every load, in the page and in each worker. `jitless` skips the probe and the compiler; parsing
 * is the same, through zod's interpreter.
 *
 * zod reads the setting when a schema is constructed, and schemas are built when their modules are
 * evaluated: import this module first, before anything that imports zod, in src/main.ts and in
 * every worker entry (a worker has its own globals).
 */
import { z } from 'zod';

z.config({ jitless: true });
