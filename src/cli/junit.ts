/**
 * `--junit FILE`: the assertions as JUnit XML, the report format every CI reads (Jenkins, GitLab,
 * GitHub reporter actions). One <testsuite> per assertion, named as the CLI names it
 * ("support ≥ 0.7"); one <testcase> per row under each (its id, or "row N"; classname = the data
 * file), with <failure type="assertion"> when the row failed it, <skipped> when the row had no
 * score for it, and <error type="row"> for a row that could not be read or scored. Counts and times
 * sit on <testsuites> and on each <testsuite>. Elements and attributes are those of the Jenkins /
 * Ant JUnit schema (tests/fixtures/junit/junit.xsd checks the output against our own copy).
 */
import type { Assertion } from '../lib/assertions/assertion.ts';
import { describeAssertion } from '../lib/assertions/assertion.ts';
import { outcomeOf, type CaseOutcome, type RecordedRow } from './assertion-run.ts';

export interface JunitInput {
  /** The data set's path, as the classname of every test case. */
  file: string;
  assertions: readonly Assertion[];
  rows: readonly RecordedRow[];
  /** The run's wall time. */
  seconds: number;
  startedAt: Date;
}

/** Characters XML 1.0 cannot hold at all, even escaped (row ids and reasons are anyone's text). */
// eslint-disable-next-line no-control-regex -- the control characters are what it matches
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/gu;

/** Lone surrogates (a string cut inside a character) as U+FFFD: no UTF-8 file can hold them. */
export function wellFormed(text: string): string {
  return text.replace(
    /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g,
    '\uFFFD',
  );
}

function clean(text: string): string {
  return wellFormed(text).replace(NOT_XML, '\uFFFD');
}

export function escapeText(text: string): string {
  return clean(text).replace(/&/gu, '&amp;').replace(/</gu, '&lt;').replace(/>/gu, '&gt;');
}

/** Attribute values: quotes escaped, and line breaks kept as references (parsers fold them). */
export function escapeAttribute(text: string): string {
  return escapeText(text)
    .replace(/"/gu, '&quot;')
    .replace(/\n/gu, '&#10;')
    .replace(/\r/gu, '&#13;')
    .replace(/\t/gu, '&#9;');
}

function attributes(values: Record<string, string | number>): string {
  return Object.entries(values)
    .map(([k, v]) => ` ${k}="${escapeAttribute(String(v))}"`)
    .join('');
}

const seconds = (s: number) => s.toFixed(3);

/** The schema's timestamp: ISO 8601 without a zone (UTC here). */
const timestamp = (d: Date) => d.toISOString().slice(0, 19);

interface Counts {
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
}

function testcase(file: string, row: RecordedRow, outcome: CaseOutcome, reason: string): string {
  const open = `<testcase${attributes({ name: row.name, classname: file, time: seconds(row.seconds) })}`;
  switch (outcome) {
    case 'pass':
      return `    ${open}/>`;
    case 'skip':
      return `    ${open}>\n      <skipped${attributes({ message: reason })}/>\n    </testcase>`;
    case 'fail':
      return `    ${open}>\n      <failure${attributes({ message: reason, type: 'assertion' })}>${escapeText(reason)}</failure>\n    </testcase>`;
    case 'error':
      return `    ${open}>\n      <error${attributes({ message: reason, type: 'row' })}>${escapeText(reason)}</error>\n    </testcase>`;
  }
}

export function junitXml(input: JunitInput): string {
  const total: Counts = { tests: 0, failures: 0, errors: 0, skipped: 0 };
  const rowSeconds = input.rows.reduce((sum, r) => sum + r.seconds, 0);
  const suites = input.assertions.map((assertion, i) => {
    const counts: Counts = { tests: 0, failures: 0, errors: 0, skipped: 0 };
    const cases = input.rows.map((row) => {
      const outcome = outcomeOf(row.codes[i]!);
      counts.tests++;
      if (outcome === 'fail') counts.failures++;
      else if (outcome === 'error') counts.errors++;
      else if (outcome === 'skip') counts.skipped++;
      return testcase(input.file, row, outcome, row.reasons?.[i] ?? '');
    });
    for (const k of Object.keys(total) as Array<keyof Counts>) total[k] += counts[k];
    const head = `  <testsuite${attributes({
      name: describeAssertion(assertion),
      id: i,
      ...counts,
      time: seconds(rowSeconds),
      timestamp: timestamp(input.startedAt),
    })}`;
    return cases.length === 0 ? `${head}/>` : `${head}>\n${cases.join('\n')}\n  </testsuite>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attributes({ name: `SumLens assertions: ${input.file}`, ...total, time: seconds(input.seconds) })}>`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
