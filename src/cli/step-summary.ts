/**
 * The Markdown the CLI appends to `$GITHUB_STEP_SUMMARY` on GitHub Actions: the verdict line, a
 * table per assertion, the first failing rows with their reasons, and the regression gate. GitHub
 * appends each step's file to the job's page and refuses one over 1 MiB, so the CLI appends (a
 * step may run it twice) and keeps to what is left of that budget, cutting with a note.
 */
import { appendFileSync, statSync } from 'node:fs';
import type { AssertionTallies } from '../lib/assertions/evaluate.ts';
import { passRate, rowName } from './assertion-run.ts';
import { wellFormed } from './junit.ts';

/** GitHub's limit on one step's summary file. */
export const STEP_SUMMARY_LIMIT = 1024 * 1024;
/** Failing rows listed (over all assertions): the JUnit file and --out hold the rest. */
const LISTED_FAILURES = 20;
/** A reason longer than this is cut in the summary (a metric's error may quote a whole reply). */
const REASON_CHARS = 300;

export interface StepSummaryInput {
  file: string;
  rows: number;
  badRows: number;
  rowsWithErrors: number;
  /** The exit status is not 0. */
  failed: boolean;
  assertions?: AssertionTallies;
  /** The comparison with a baseline, already in Markdown (gate.ts). */
  baseline?: string;
}

/** User text (row ids, reasons, file names) as literal text in Markdown, table cells included. */
export function markdownText(text: string): string {
  return wellFormed(text)
    .replace(/[\r\n]+/gu, ' ')
    .replace(/[\\`*_{}[\]<>|#!~&]/gu, (c) => `\\${c}`);
}

function cut(text: string, chars: number): string {
  return text.length <= chars ? text : `${text.slice(0, chars - 1)}…`;
}

function assertionSection(tallies: AssertionTallies): string[] {
  const lines = [
    '### Assertions',
    '',
    '| Check | Pass | Fail | Skip | Pass rate |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...tallies.tallies.map(
      (t) => `| ${markdownText(t.label)} | ${t.pass} | ${t.fail} | ${t.skip} | ${passRate(t)} |`,
    ),
  ];
  const failures = tallies.tallies
    .flatMap((t) => t.failures.map((f) => ({ ...f, label: t.label })))
    .sort((a, b) => a.row - b.row);
  if (failures.length > 0) {
    const listed = failures.slice(0, LISTED_FAILURES);
    const totalFailures = tallies.tallies.reduce((sum, t) => sum + t.fail, 0);
    lines.push(
      '',
      `### Failing rows${totalFailures > listed.length ? ` (first ${listed.length} of ${totalFailures} failed checks)` : ''}`,
      '',
      '| Row | Check | Reason |',
      '| --- | --- | --- |',
      ...listed.map(
        (f) =>
          `| ${markdownText(rowName(f.row, f.id))} | ${markdownText(f.label)} | ${markdownText(cut(f.reason, REASON_CHARS))} |`,
      ),
    );
  }
  return lines;
}

export function stepSummaryMarkdown(input: StepSummaryInput): string {
  const verdict = input.failed ? '❌ failed' : '✅ passed';
  const facts = [`${input.rows} row(s) scored`];
  if (input.assertions) {
    facts.push(`${input.assertions.failedRows} failed an assertion`);
  }
  if (input.rowsWithErrors > 0) facts.push(`${input.rowsWithErrors} with a metric in error`);
  facts.push(`${input.badRows} bad row(s)`);
  const lines = [`## SumLens: ${verdict}`, '', `${markdownText(input.file)}: ${facts.join(', ')}.`];
  if (input.assertions && input.assertions.tallies.length > 0) {
    lines.push('', ...assertionSection(input.assertions));
  }
  if (input.baseline) lines.push('', input.baseline);
  return lines.join('\n') + '\n\n';
}

/**
 * `markdown` cut to `budget` bytes at a line end, with a note saying so; '' when not even the
 * note fits.
 */
export function fitMarkdown(markdown: string, budget: number): string {
  if (Buffer.byteLength(markdown) <= budget) return markdown;
  const note = `\n\n_(Cut here: GitHub keeps at most 1 MiB of a step's summary. The JUnit file and --out have every row.)_\n\n`;
  const room = budget - Buffer.byteLength(note);
  if (room <= 0) return '';
  let bytes = 0;
  const kept: string[] = [];
  for (const line of markdown.split('\n')) {
    const size = Buffer.byteLength(line) + 1;
    if (bytes + size > room) break;
    kept.push(line);
    bytes += size;
  }
  return kept.join('\n') + note;
}

/**
 * Appends the summary to `path` within what is left of the step's 1 MiB; returns a warning when
 * it had to be cut or left out, undefined otherwise.
 */
export function appendStepSummary(path: string, markdown: string): string | undefined {
  let used = 0;
  try {
    used = statSync(path).size;
  } catch {
    // Not there yet: GitHub creates it per step, a local run may not have.
  }
  const text = fitMarkdown(markdown, STEP_SUMMARY_LIMIT - used);
  if (text === '') {
    return `The step summary ${path} is already at GitHub's 1 MiB limit: nothing was added.`;
  }
  appendFileSync(path, text);
  return text === markdown
    ? undefined
    : `The step summary was cut to stay under GitHub's 1 MiB limit.`;
}
