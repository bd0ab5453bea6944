/**
 * `npm run docs:links`: every relative link in README.md and docs/ must name a file of this
 * repository that exists, and its `#anchor` a heading of that file, as GitHub slugs headings.
 * Web links are not followed (no network); a link that climbs out of the repository fails, since
 * it works in no clone. tests/unit/docs/links.test.ts runs the same check.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, relative, resolve, sep } from 'node:path';
import { repoRoot } from '../src/lib/node/external-data.ts';
import { isMain } from './docs-pages.ts';

export interface LinkProblem {
  file: string;
  line: number;
  target: string;
  problem: string;
}

interface Link {
  line: number;
  target: string;
}

/** The Markdown files the check covers: README.md and everything under docs/. */
export function markdownFiles(root = repoRoot): string[] {
  const files = [join(root, 'README.md')];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.md')) files.push(path);
    }
  };
  if (existsSync(join(root, 'docs'))) walk(join(root, 'docs'));
  return files;
}

/** The lines outside fenced code blocks, numbered from 1: code is neither a link nor a heading. */
function linesOutsideFences(markdown: string): Array<{ line: number; text: string }> {
  const lines: Array<{ line: number; text: string }> = [];
  let fence: string | null = null;
  markdown.split('\n').forEach((text, index) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(text)?.[1];
    if (marker && (fence === null || marker.startsWith(fence))) {
      fence = fence === null ? marker : null;
      return;
    }
    if (fence === null) lines.push({ line: index + 1, text });
  });
  return lines;
}

/** Inline links and images `[text](target "title")` and reference definitions `[id]: target`. */
export function linksOf(markdown: string): Link[] {
  const links: Link[] = [];
  for (const { line, text: raw } of linesOutsideFences(markdown)) {
    // A link inside an inline code span is an example, not a link.
    const text = raw.replace(/`[^`]*`/g, '``');
    for (const match of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      links.push({ line, target: match[1] });
    }
    const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/.exec(text);
    if (definition) links.push({ line, target: definition[1] });
  }
  return links;
}

/** A heading's anchor as GitHub makes it (github-slugger): lower case, punctuation dropped, spaces → '-'. */
export function githubSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/[`*]/g, '');
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a file's headings give, with GitHub's -1, -2 … for repeated headings. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of linesOutsideFences(markdown)) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    if (!heading) continue;
    const slug = githubSlug(heading[1]);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

const EXTERNAL = /^[a-z][a-z0-9+.-]*:/i;

/** The broken links of one Markdown file. */
export function checkFile(file: string, root = repoRoot): LinkProblem[] {
  const problems: LinkProblem[] = [];
  const name = relative(root, file);
  for (const { line, target } of linksOf(readFileSync(file, 'utf8'))) {
    if (EXTERNAL.test(target)) continue;
    const [rawPath, anchor] = target.split('#', 2);
    const path = decodeURIComponent(rawPath);
    const resolved =
      path === ''
        ? file
        : resolve(path.startsWith('/') ? root : dirname(file), path.replace(/^\//, ''));
    const report = (problem: string): void => {
      problems.push({ file: name, line, target, problem });
    };
    if (resolved !== root && !resolved.startsWith(root + sep)) {
      report('points outside the repository');
      continue;
    }
    if (!existsSync(resolved)) {
      report(`no such file: ${relative(root, resolved)}`);
      continue;
    }
    if (anchor === undefined) continue;
    if (statSync(resolved).isDirectory() || extname(resolved) !== '.md') {
      report('an anchor into a file that is not Markdown');
    } else if (!anchorsOf(readFileSync(resolved, 'utf8')).has(anchor)) {
      report(`no heading #${anchor} in ${relative(root, resolved)}`);
    }
  }
  return problems;
}

/** The broken links of README.md and docs/. */
export function checkLinks(root = repoRoot): LinkProblem[] {
  return markdownFiles(root).flatMap((file) => checkFile(file, root));
}

if (isMain(import.meta.url)) {
  const problems = checkLinks();
  for (const p of problems) console.error(`${p.file}:${p.line}: ${p.target}: ${p.problem}`);
  console.log(`${markdownFiles().length} files, ${problems.length} broken link(s)`);
  process.exitCode = problems.length > 0 ? 1 : 0;
}
