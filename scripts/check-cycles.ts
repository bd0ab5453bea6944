/**
 * Fails on a runtime import cycle among the modules the app, its workers and the CLI load.
 *
 * `npx tsx scripts/check-cycles.ts` (npm run check:cycles). Roots: src/main.ts, every workers/*.ts
 * and every src/cli/*.ts. Not dpdm: its `-T` drops `import { type X } from`, which under
 * `verbatimModuleSyntax` survives as `import {} from` and so still loads (and orders) the module;
 * without `-T` it counts `import type` too, and it cannot read `.svelte` files.
 *
 * What counts as an edge, and why:
 * - `import … from`, `import '…'`, `export … from`: yes, unless the whole clause is `type`
 *   (`import type`, `export type … from`), which TypeScript erases.
 * - `import { type X } from`: yes (see above).
 * - `import('…')`: no. It runs after every static import has been evaluated, so it cannot meet a
 *   module half-initialised, which is the harm a cycle does.
 * - `new Worker(new URL('…', import.meta.url))` and `?worker`/`?url`/`?raw` imports: no, they start
 *   a separate module graph (and the worker files are roots of their own).
 * - Bare specifiers (packages, `node:`): no, only our own files can close a cycle.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

/** Query suffixes that make Vite hand back a URL or a separate bundle, not the module itself. */
const SEPARATE_GRAPH_QUERY = /\?(worker|sharedworker|url|raw|inline)\b/u;
const RESOLVABLE_EXTENSIONS = ['.ts', '.svelte.ts', '.js', '.svelte', '.json'];

/** The code a file runs: for a component, its `<script>` blocks (instance and module). */
function scriptOf(file: string): string {
  const text = readFileSync(file, 'utf8');
  if (!file.endsWith('.svelte')) return text;
  const blocks = [...text.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/gu)];
  return blocks.map((m) => m[1] ?? '').join('\n');
}

/** Specifiers this file loads when it is evaluated (see the header for what is left out). */
export function runtimeSpecifiers(file: string): string[] {
  const source = ts.createSourceFile(file, scriptOf(file), ts.ScriptTarget.Latest, false);
  const specifiers: string[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      if (statement.importClause?.isTypeOnly) continue;
      if (ts.isStringLiteral(statement.moduleSpecifier)) {
        specifiers.push(statement.moduleSpecifier.text);
      }
    } else if (ts.isExportDeclaration(statement)) {
      if (statement.isTypeOnly || !statement.moduleSpecifier) continue;
      if (ts.isStringLiteral(statement.moduleSpecifier)) {
        specifiers.push(statement.moduleSpecifier.text);
      }
    }
  }
  return specifiers;
}

function isFile(path: string): boolean {
  return existsSync(path) && statSync(path).isFile();
}

/** Our own file a relative specifier names, or undefined for packages and separate graphs. */
export function resolveSpecifier(fromFile: string, specifier: string): string | undefined {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return undefined;
  if (SEPARATE_GRAPH_QUERY.test(specifier)) return undefined;
  const base = resolve(dirname(fromFile), specifier.split('?')[0] ?? specifier);
  if (isFile(base)) return base;
  for (const extension of RESOLVABLE_EXTENSIONS) {
    if (isFile(base + extension)) return base + extension;
  }
  for (const extension of RESOLVABLE_EXTENSIONS) {
    const index = join(base, `index${extension}`);
    if (isFile(index)) return index;
  }
  return undefined;
}

/** Every file reachable from the roots, with the files each one loads at evaluation. */
export function runtimeGraph(roots: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const pending = roots.map((root) => resolve(root));
  while (pending.length > 0) {
    const file = pending.pop();
    if (file === undefined || graph.has(file)) continue;
    // JSON and plain JavaScript we ship import nothing of ours.
    const edges = /\.(ts|svelte|js)$/u.test(file)
      ? runtimeSpecifiers(file).flatMap((s) => resolveSpecifier(file, s) ?? [])
      : [];
    graph.set(file, [...new Set(edges)]);
    pending.push(...edges);
  }
  return graph;
}

/** Strongly connected components with more than one file, or a file that imports itself (Tarjan). */
function cyclicComponents(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];

  const visit = (file: string): void => {
    index.set(file, counter);
    lowLink.set(file, counter);
    counter += 1;
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        lowLink.set(file, Math.min(lowLink.get(file)!, lowLink.get(next)!));
      } else if (onStack.has(next)) {
        lowLink.set(file, Math.min(lowLink.get(file)!, index.get(next)!));
      }
    }
    if (lowLink.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) components.push(component);
  };

  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  return components;
}

/** One concrete loop inside a component, from its first file back to it (shortest by BFS). */
function loopThrough(component: string[], graph: Map<string, string[]>): string[] {
  const members = new Set(component);
  const start = [...component].sort()[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const next of graph.get(file) ?? []) {
      if (!members.has(next)) continue;
      if (next === start) {
        const path = [file];
        while (path[0] !== start) path.unshift(cameFrom.get(path[0]!)!);
        return [...path, start];
      }
      if (!cameFrom.has(next)) {
        cameFrom.set(next, file);
        queue.push(next);
      }
    }
  }
  return [start, start];
}

/** Each runtime cycle as a loop of paths relative to `root`, e.g. [a.ts, b.ts, a.ts]. */
export function findCycles(roots: readonly string[], root: string): string[][] {
  const graph = runtimeGraph(roots);
  return cyclicComponents(graph)
    .map((component) => loopThrough(component, graph).map((file) => relative(root, file)))
    .sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** src/main.ts, every workers/*.ts and every src/cli/*.ts, as present under `root`. */
export function defaultRoots(root: string): string[] {
  const inFolder = (folder: string) =>
    existsSync(join(root, folder))
      ? readdirSync(join(root, folder))
          .filter((name) => name.endsWith('.ts'))
          .map((name) => join(root, folder, name))
      : [];
  return [join(root, 'src/main.ts'), ...inFolder('workers'), ...inFolder('src/cli')].filter(isFile);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = process.cwd();
  const cycles = findCycles(defaultRoots(root), root);
  if (cycles.length === 0) {
    console.log('No runtime import cycles.');
  } else {
    console.error(`${cycles.length} runtime import cycle(s):`);
    for (const cycle of cycles) console.error(`  ${cycle.join(' → ')}`);
    console.error(
      'Break each one (move the shared part to a third module, or make a type-only import `import type`).',
    );
    process.exitCode = 1;
  }
}
