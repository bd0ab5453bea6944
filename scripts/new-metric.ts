/**
 * Scaffolds a metric: `npm run new:metric -- --kind offline|judge NAME` (NAME: the kebab-case id).
 *
 * Each file under scripts/new-metric/<kind>/ is written at the same path relative to the
 * repository root, `.tmpl` dropped and these tokens replaced in its path and text: __ID__ (the id,
 * `word-count`), __CAMEL__ (`wordCount`), __PASCAL__ (`WordCount`), __LABEL__ (`Word count`). The
 * record, exported as `__CAMEL__Metric` from src/lib/metrics/<family>/__ID__/__ID__.ts, then gets
 * its import and its entry in registry.ts, `npm run i18n:metrics` puts its English in the
 * catalogs and `npm run docs:metrics` writes its docs page. What is left to edit by hand is the module, the registry line (its place in the
 * display order) and the test.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';

const ROOT = resolve(import.meta.dirname, '..');
const TEMPLATES = join(ROOT, 'scripts', 'new-metric');
const REGISTRY = join(ROOT, 'src', 'lib', 'metrics', 'registry.ts');
const KINDS = ['offline', 'judge'] as const;
type Kind = (typeof KINDS)[number];
const KEBAB = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/u;
/** Where a kind's record lands: src/lib/metrics/<family>/__ID__/__ID__.ts. */
const RECORD_TEMPLATE = /^src\/lib\/metrics\/([a-z-]+)\/__ID__\/__ID__\.ts\.tmpl$/u;

export interface MetricNames {
  id: string;
  camel: string;
  pascal: string;
  label: string;
}

export function metricNames(id: string): MetricNames {
  const words = id.split('-');
  const camel = words.map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1))).join('');
  const label = words.join(' ');
  return {
    id,
    camel,
    pascal: camel[0]!.toUpperCase() + camel.slice(1),
    label: label[0]!.toUpperCase() + label.slice(1),
  };
}

export function fillTokens(text: string, names: MetricNames): string {
  return text
    .replaceAll('__ID__', names.id)
    .replaceAll('__CAMEL__', names.camel)
    .replaceAll('__PASCAL__', names.pascal)
    .replaceAll('__LABEL__', names.label);
}

function templateFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? templateFiles(path) : entry.name.endsWith('.tmpl') ? [path] : [];
  });
}

/** The registry with the record's import after the last metric import and its entry last. */
export function addToRegistry(registry: string, names: MetricNames, recordPath: string): string {
  const importLine = `import { ${names.camel}Metric } from './${recordPath}';\n`;
  const imports = [...registry.matchAll(/^import [^;]*? from '\.\/[^']+';\n/gmu)];
  const last = imports.at(-1);
  const end = registry.indexOf('} satisfies {', registry.indexOf('export const METRIC_RECORDS'));
  if (!last || last.index === undefined || end < 0) {
    throw new Error('registry.ts has no metric import or no METRIC_RECORDS table to add to');
  }
  const key = names.id.includes('-') ? `'${names.id}'` : names.id;
  const afterImports = last.index + last[0].length;
  return (
    registry.slice(0, afterImports) +
    importLine +
    registry.slice(afterImports, end) +
    `  ${key}: ${names.camel}Metric,\n` +
    registry.slice(end)
  );
}

export class NewMetricError extends Error {}

async function format(path: string, text: string): Promise<string> {
  const options = await prettier.resolveConfig(path);
  return prettier.format(text, { ...options, filepath: path });
}

/** Writes the metric's files and registry lines; returns the paths written, relative to the root. */
export async function newMetric(kind: string, id: string): Promise<string[]> {
  if (!(KINDS as readonly string[]).includes(kind)) {
    throw new NewMetricError(`--kind must be one of ${KINDS.join(', ')}, not "${kind}"`);
  }
  if (!KEBAB.test(id)) {
    throw new NewMetricError(
      `"${id}" is not a kebab-case metric id (lower-case words joined by "-", e.g. word-count)`,
    );
  }
  const { METRIC_IDS } = await import('../src/lib/metrics/registry.ts');
  if ((METRIC_IDS as readonly string[]).includes(id)) {
    throw new NewMetricError(`a metric "${id}" exists already (src/lib/metrics/registry.ts)`);
  }
  const dir = join(TEMPLATES, kind as Kind);
  if (!existsSync(dir)) throw new NewMetricError(`no templates for --kind ${kind} in ${dir}`);
  const names = metricNames(id);
  const planned = templateFiles(dir).map((template) => {
    const path = relative(dir, template);
    return { template: path, target: fillTokens(path, names).replace(/\.tmpl$/u, '') };
  });
  const record = planned.find((file) => RECORD_TEMPLATE.test(file.template));
  if (!record) throw new NewMetricError(`${dir} has no src/lib/metrics/<family>/__ID__/__ID__.ts`);
  const taken = planned.filter((file) => existsSync(join(ROOT, file.target)));
  if (taken.length > 0) {
    throw new NewMetricError(`these files exist already: ${taken.map((f) => f.target).join(', ')}`);
  }
  for (const file of planned) {
    const path = join(ROOT, file.target);
    mkdirSync(dirname(path), { recursive: true });
    const text = fillTokens(readFileSync(join(dir, file.template), 'utf8'), names);
    writeFileSync(path, await format(path, text));
  }
  const recordPath = relative(dirname(REGISTRY), join(ROOT, record.target));
  const registry = addToRegistry(readFileSync(REGISTRY, 'utf8'), names, recordPath);
  writeFileSync(REGISTRY, await format(REGISTRY, registry));
  // Child processes: this one has the registry loaded as it was before the new entry. The
  // catalogs and the metric's docs page are generated from the record, so they follow it here
  // (and `npm run check` / the docs test fail when they fall behind a later edit).
  for (const script of ['i18n:metrics', 'docs:metrics']) {
    const child = spawnSync('npm', ['run', '--silent', script], { cwd: ROOT, stdio: 'inherit' });
    if (child.status !== 0) throw new Error(`npm run ${script} failed`);
  }
  return [...planned.map((file) => file.target), relative(ROOT, REGISTRY)];
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const at = args.indexOf('--kind');
  const kind = at >= 0 ? args[at + 1] : undefined;
  const id = args.filter((_, i) => i !== at && i !== at + 1)[0];
  if (!kind || !id) {
    throw new NewMetricError('usage: npm run new:metric -- --kind offline|judge NAME');
  }
  const written = await newMetric(kind, id);
  console.log(`Wrote ${id}:`);
  for (const path of written) console.log(`  ${path}`);
  console.log('  src/messages/*/metrics.json (npm run i18n:metrics)');
  console.log(`  docs/metrics/${id}.md (npm run docs:metrics)`);
  console.log(
    'Next: write the calculation and its test; after changing English on the record, run ' +
      '`npm run i18n:metrics` and `npm run docs:metrics` again' +
      (kind === 'offline'
        ? '; then `npm run validity -- --write` measures how it tracks people (its card quotes it).'
        : '.'),
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error instanceof NewMetricError ? `new:metric: ${error.message}` : error);
    process.exitCode = 1;
  });
}
