/**
 * The page's checks written as a sumlens.config.yaml `assert:` block, so a set tried in the page
 * goes into CI as it is. Written by hand rather than with the yaml package: the entries are flat
 * (a type, a number or a flag id), and the page need not load a YAML library to show them.
 */
import { entryOf, type Assertion } from './assertion.ts';

/** A YAML scalar for an id: plain when it is only letters, digits and dashes, else JSON-quoted. */
function scalar(value: string | number): string {
  if (typeof value === 'number') return String(value);
  return /^[a-z][a-z0-9-]*$/iu.test(value) ? value : JSON.stringify(value);
}

export function configYaml(assertions: readonly Assertion[]): string {
  if (assertions.length === 0) return 'assert: []\n';
  const lines = ['assert:'];
  for (const assertion of assertions) {
    const entry = entryOf(assertion);
    lines.push(`  - type: ${scalar(entry.type)}`);
    if (entry.threshold !== undefined) lines.push(`    threshold: ${scalar(entry.threshold)}`);
    if (entry.value !== undefined) lines.push(`    value: ${scalar(entry.value)}`);
  }
  return lines.join('\n') + '\n';
}
