/**
 * A schema check's complaint as a clause a person reads in their language ("must be at least 1"),
 * not zod's own English ("Too small: expected number to be >=1"). Messages that wrap it put the
 * field first: "Judge provider: concurrency must be at least 1."
 */
import type { z } from 'zod';
import { ref, type MessageRef } from './message.ts';

const listed = (values: readonly unknown[]) =>
  values.map((v) => (typeof v === 'string' ? `"${v}"` : String(v))).join(', ');

export function zodIssueRef(issue: z.core.$ZodIssue): MessageRef {
  switch (issue.code) {
    case 'invalid_type':
      return ref('common.issue.type', { expected: String(issue.expected) });
    case 'too_small':
      return issue.inclusive === false
        ? ref('common.issue.tooSmallExclusive', { limit: Number(issue.minimum) })
        : ref('common.issue.tooSmall', { origin: issue.origin, limit: Number(issue.minimum) });
    case 'too_big':
      return issue.inclusive === false
        ? ref('common.issue.tooBigExclusive', { limit: Number(issue.maximum) })
        : ref('common.issue.tooBig', { origin: issue.origin, limit: Number(issue.maximum) });
    case 'invalid_format':
      return ref('common.issue.format', { format: issue.format });
    case 'invalid_value':
      return ref('common.issue.oneOf', { values: listed(issue.values) });
    case 'not_multiple_of':
      return ref('common.issue.multipleOf', { divisor: Number(issue.divisor) });
    case 'unrecognized_keys':
      return ref('common.issue.unknownKeys', {
        count: issue.keys.length,
        keys: listed(issue.keys),
      });
    case 'custom':
      // A schema's own refinement speaks for itself (they are written as clauses here too).
      return ref('common.literal', { text: issue.message });
    default:
      return ref('common.issue.invalid');
  }
}
