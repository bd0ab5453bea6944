/**
 * Summary instructions typed as lines (SPEC §1: sections `{name, instruction, categories?}`):
 *
 *   Outcome: State whether the customer's issue was resolved. [resolved | unresolved | escalated]
 *   Next steps: List what the agent promised to do.
 *
 * `Name: instruction` per line; a trailing `[a | b | …]` makes the section categorical (the
 * summary must be exactly one of those values). Blank lines and lines starting with `#` are
 * skipped. Also accepts a JSON array of sections, for people pasting from a data set.
 */
import { zodIssueRef } from '../i18n/zod-issue.ts';
import { messageOf } from '../errors.ts';
import { z } from 'zod';
import type { SummarySection } from '../metrics/types.ts';
import { english, ref, type MessageRef } from '../i18n/message.ts';

const sectionSchema = z.object({
  name: z.string().trim().min(1),
  instruction: z.string().trim().min(1),
  categories: z.array(z.string().trim().min(1)).min(2).optional(),
});

export interface InstructionsParse {
  sections: SummarySection[];
  /** One message per line that could not be read, naming the line (English). */
  problems: string[];
  /** The same problems as refs, index-aligned, for the page to word in the reader's language. */
  problemRefs: MessageRef[];
}

function parsed(sections: SummarySection[], problemRefs: MessageRef[]): InstructionsParse {
  return {
    sections,
    problems: problemRefs.map((r) => english(r.key, r.values)),
    problemRefs,
  };
}

export function parseInstructions(text: string): InstructionsParse {
  const trimmed = text.trim();
  if (trimmed === '') return parsed([], []);
  if (trimmed.startsWith('[')) {
    try {
      const checked = z.array(sectionSchema).safeParse(JSON.parse(trimmed));
      if (checked.success) return parsed(checked.data, []);
      const issue = checked.error.issues[0];
      return parsed(
        [],
        [
          issue
            ? ref('input.instructions.jsonItem', {
                path: issue.path.join('.'),
                detail: zodIssueRef(issue),
              })
            : ref('input.instructions.jsonInvalid'),
        ],
      );
    } catch (error) {
      return parsed([], [ref('input.instructions.jsonParse', { error: messageOf(error) })]);
    }
  }
  const sections: SummarySection[] = [];
  const problems: MessageRef[] = [];
  text.split(/\r?\n/u).forEach((line, index) => {
    const content = line.trim();
    if (content === '' || content.startsWith('#')) return;
    const match = /^([^:]{1,80}):\s*(.+)$/u.exec(content);
    if (!match) {
      problems.push(ref('input.instructions.lineFormat', { line: index + 1 }));
      return;
    }
    let instruction = match[2]!.trim();
    let categories: string[] | undefined;
    const options = /\[([^\]]+)\]\s*$/u.exec(instruction);
    if (options) {
      categories = options[1]!
        .split('|')
        .map((c) => c.trim())
        .filter(Boolean);
      instruction = instruction.slice(0, options.index).trim();
      if (categories.length < 2) {
        problems.push(ref('input.instructions.lineCategories', { line: index + 1 }));
        return;
      }
    }
    if (instruction === '') {
      problems.push(
        ref('input.instructions.lineEmpty', { line: index + 1, name: match[1]!.trim() }),
      );
      return;
    }
    sections.push({ name: match[1]!.trim(), instruction, ...(categories ? { categories } : {}) });
  });
  return parsed(sections, problems);
}
