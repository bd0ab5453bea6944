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
import { messageOf } from '../errors.ts';
import { z } from 'zod';
import type { SummarySection } from '../metrics/types.ts';

const sectionSchema = z.object({
  name: z.string().trim().min(1),
  instruction: z.string().trim().min(1),
  categories: z.array(z.string().trim().min(1)).min(2).optional(),
});

export interface InstructionsParse {
  sections: SummarySection[];
  /** One message per line that could not be read, naming the line. */
  problems: string[];
}

export function parseInstructions(text: string): InstructionsParse {
  const trimmed = text.trim();
  if (trimmed === '') return { sections: [], problems: [] };
  if (trimmed.startsWith('[')) {
    try {
      const parsed = z.array(sectionSchema).safeParse(JSON.parse(trimmed));
      if (parsed.success) return { sections: parsed.data, problems: [] };
      const issue = parsed.error.issues[0];
      return {
        sections: [],
        problems: [
          `Instructions JSON: item ${issue?.path.join('.') ?? ''} ${issue?.message ?? 'is invalid'}.`,
        ],
      };
    } catch (error) {
      return {
        sections: [],
        problems: [`Instructions look like JSON but do not parse: ${messageOf(error)}.`],
      };
    }
  }
  const sections: SummarySection[] = [];
  const problems: string[] = [];
  text.split(/\r?\n/u).forEach((line, index) => {
    const content = line.trim();
    if (content === '' || content.startsWith('#')) return;
    const match = /^([^:]{1,80}):\s*(.+)$/u.exec(content);
    if (!match) {
      problems.push(
        `Instructions line ${index + 1}: write it as "Name: what the summary should say".`,
      );
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
        problems.push(
          `Instructions line ${index + 1}: a categorical section needs at least two values, as in [yes | no].`,
        );
        return;
      }
    }
    if (instruction === '') {
      problems.push(
        `Instructions line ${index + 1}: the instruction after "${match[1]!.trim()}:" is empty.`,
      );
      return;
    }
    sections.push({ name: match[1]!.trim(), instruction, ...(categories ? { categories } : {}) });
  });
  return { sections, problems };
}
