/**
 * Fails when a component renders a literal a person reads: text in the markup, a user-facing
 * attribute (title, placeholder, aria-label, alt…) or a string a template expression prints. Every
 * such text belongs in src/messages/ so it exists in all five languages.
 *
 * `npx tsx scripts/check-i18n-literals.ts [dir-or-file …]` (default: src). Text inside <code>,
 * <kbd> and <samp> is exempt (commands, key names, file names are not translated).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'svelte/compiler';

const USER_FACING_ATTRIBUTES = new Set([
  'title',
  'placeholder',
  'alt',
  'label',
  'aria-label',
  'aria-description',
  'aria-roledescription',
  'aria-valuetext',
  'aria-placeholder',
  // Component props that components render as text.
  'heading',
  'caption',
  'hint',
  'description',
  'text',
  'message',
  'summary',
  'legend',
  'empty',
  'emptyText',
  'ariaLabel',
]);
const EXEMPT_ELEMENTS = new Set(['code', 'kbd', 'samp', 'style', 'script']);
/** Two letters in a row: "ok", "ROUGE"; lone symbols (·, →, %, Δ) are not words. */
const WORDS = /\p{L}{2,}/u;

interface Finding {
  file: string;
  line: number;
  text: string;
}

type Node = { type?: string; start?: number; [key: string]: unknown };

function lineOf(source: string, offset: number | undefined): number {
  return offset === undefined ? 0 : source.slice(0, offset).split('\n').length;
}

/** String literals an expression prints (not ones it compares, indexes or passes to a call). */
function printedLiterals(expr: Node | undefined, out: Node[]): void {
  if (!expr || typeof expr !== 'object') return;
  switch (expr.type) {
    case 'Literal':
      if (typeof expr.value === 'string') out.push(expr);
      return;
    case 'TemplateLiteral':
      for (const q of expr.quasis as Node[]) {
        const cooked = (q.value as { cooked?: string }).cooked ?? '';
        if (WORDS.test(cooked)) out.push({ ...q, value: cooked });
      }
      for (const e of expr.expressions as Node[]) printedLiterals(e, out);
      return;
    case 'ConditionalExpression':
      printedLiterals(expr.consequent as Node, out);
      printedLiterals(expr.alternate as Node, out);
      return;
    case 'LogicalExpression':
      printedLiterals(expr.left as Node, out);
      printedLiterals(expr.right as Node, out);
      return;
    case 'BinaryExpression':
      if (expr.operator === '+') {
        printedLiterals(expr.left as Node, out);
        printedLiterals(expr.right as Node, out);
      }
      return;
    case 'SequenceExpression':
      for (const e of expr.expressions as Node[]) printedLiterals(e, out);
      return;
    case 'ArrayExpression':
      for (const e of expr.elements as Node[]) printedLiterals(e, out);
      return;
    default:
      return;
  }
}

function checkFile(file: string): Finding[] {
  const source = readFileSync(file, 'utf8');
  const ast = parse(source, { modern: true }) as unknown as { fragment: Node };
  const findings: Finding[] = [];
  const flag = (node: Node, text: string) =>
    findings.push({ file, line: lineOf(source, node.start), text: text.trim().slice(0, 80) });

  const checkExpression = (expr: Node | undefined) => {
    const literals: Node[] = [];
    printedLiterals(expr, literals);
    for (const lit of literals) if (WORDS.test(String(lit.value))) flag(lit, String(lit.value));
  };

  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const n of node) visit(n);
      return;
    }
    if (!node || typeof node !== 'object') return;
    const n = node as Node;
    if (
      (n.type === 'RegularElement' || n.type === 'SvelteElement') &&
      EXEMPT_ELEMENTS.has(String(n.name))
    ) {
      return;
    }
    if (n.type === 'Text') {
      if (WORDS.test(String(n.data))) flag(n, String(n.data));
      return;
    }
    if (n.type === 'ExpressionTag') {
      checkExpression(n.expression as Node);
      return;
    }
    if (n.type === 'Attribute') {
      if (!USER_FACING_ATTRIBUTES.has(String(n.name))) return;
      const value = n.value;
      const parts = Array.isArray(value)
        ? value
        : value && typeof value === 'object'
          ? [value]
          : [];
      for (const part of parts as Node[]) {
        if (part.type === 'Text' && WORDS.test(String(part.data))) flag(part, String(part.data));
        if (part.type === 'ExpressionTag') checkExpression(part.expression as Node);
      }
      return;
    }
    // Only rendered parts: skip the expressions of blocks (tests, each lists) and directives.
    for (const [key, child] of Object.entries(n)) {
      if (key === 'expression' || key === 'test' || key === 'key' || key === 'metadata') continue;
      if (key === 'start' || key === 'end' || key === 'type' || key === 'name') continue;
      visit(child);
    }
  };
  visit(ast.fragment);
  return findings;
}

function svelteFiles(path: string): string[] {
  if (statSync(path).isFile()) return path.endsWith('.svelte') ? [path] : [];
  return readdirSync(path).flatMap((name) => svelteFiles(join(path, name)));
}

const roots = process.argv.slice(2);
const files = (roots.length > 0 ? roots : ['src']).flatMap(svelteFiles);
const findings = files.flatMap(checkFile);
for (const f of findings) {
  console.log(`${relative(process.cwd(), f.file)}:${f.line}  ${JSON.stringify(f.text)}`);
}
if (findings.length > 0) {
  console.error(
    `\n${findings.length} user-visible literal(s) in ${new Set(findings.map((f) => f.file)).size} component(s): move them to src/messages/ and render them with t(…).`,
  );
  process.exit(1);
}
console.log(`i18n: no user-visible literals in ${files.length} component(s)`);
