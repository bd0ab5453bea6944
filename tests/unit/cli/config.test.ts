/**
 * The CLI's config file and --assert: good files read as their assertions, and every mistake is
 * refused naming the file, the entry and the fix (the CLI then exits 2 before scoring; see
 * score-gate.test.ts for that end to end).
 */
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  assertionsOf,
  ConfigError,
  configFromValue,
  configPath,
  entryOfFlag,
  readConfig,
  unscoredAssertion,
} from '../../../src/cli/config.ts';
import { KNOWN_METRICS } from '../../../src/cli/checks.ts';
import { tempDir } from './_cli.ts';

const read = (value: unknown) => configFromValue('sumlens.config.yaml', value, KNOWN_METRICS);

describe('config file', () => {
  it('reads metrics and promptfoo-shaped assertions from YAML and JSON', () => {
    const dir = tempDir('config');
    writeFileSync(
      join(dir, 'sumlens.config.yaml'),
      [
        '# a comment',
        'description: nightly gate',
        'metrics: [support, fact-check, quality-offline]',
        'assert:',
        '  - type: quality-offline',
        '    threshold: 0.5',
        '  - type: not-repetition-offline',
        '    threshold: 0.2',
        '  - type: not-flag',
        '    value: lead-copy',
      ].join('\n'),
    );
    const yaml = readConfig('sumlens.config.yaml', KNOWN_METRICS, dir);
    expect(yaml.metrics).toEqual(['support', 'fact-check', 'quality-offline']);
    expect(yaml.assertions).toEqual([
      { kind: 'score', metric: 'quality-offline', op: '>=', threshold: 0.5 },
      { kind: 'score', metric: 'repetition-offline', op: '<=', threshold: 0.2 },
      { kind: 'no-flag', flag: 'lead-copy' },
    ]);
    writeFileSync(
      join(dir, 'gate.json'),
      JSON.stringify({ metrics: 'offline', assert: [{ type: 'support', threshold: 0.7 }] }),
    );
    const json = readConfig('gate.json', KNOWN_METRICS, dir);
    expect(json.metrics).toEqual(['offline']);
    expect(json.assertions).toEqual([
      { kind: 'score', metric: 'support', op: '>=', threshold: 0.7 },
    ]);
  });

  it('finds sumlens.config.yaml, .yml or .json in the folder, and --config wins', () => {
    const dir = tempDir('config-find');
    expect(configPath(undefined, dir)).toBeUndefined();
    writeFileSync(join(dir, 'sumlens.config.json'), '{}');
    expect(configPath(undefined, dir)).toBe('sumlens.config.json');
    writeFileSync(join(dir, 'sumlens.config.yml'), '');
    expect(configPath(undefined, dir)).toBe('sumlens.config.yml');
    writeFileSync(join(dir, 'sumlens.config.yaml'), '');
    expect(configPath(undefined, dir)).toBe('sumlens.config.yaml');
    expect(configPath('other.yaml', dir)).toBe('other.yaml');
  });

  const refusals: Array<[string, unknown, RegExp]> = [
    ['an empty file', null, /sumlens\.config\.yaml is empty/u],
    ['a list at the top', [], /expected a mapping .* not a list/u],
    [
      "promptfoo's keys that mean nothing here",
      { prompts: ['x'], assert: [] },
      /unknown key\(s\) "prompts"\. A SumLens config has metrics, assert, description/u,
    ],
    ['an unknown metric', { metrics: ['suport'] }, /unknown metric\(s\) suport in "metrics"/u],
    ['"assert" that is not a list', { assert: { type: 'support' } }, /"assert" must be a list/u],
    [
      'a misspelt key, naming the entry',
      {
        assert: [
          { type: 'support', threshold: 0.5 },
          { type: 'support', thresold: 0.5 },
        ],
      },
      /sumlens\.config\.yaml, assert entry 2: unknown key\(s\) "thresold"; an entry has type, threshold, value, description/u,
    ],
    [
      'a threshold that is not a number',
      { assert: [{ type: 'support', threshold: 'high' }] },
      /assert entry 1: "threshold" must be a number/u,
    ],
    [
      'an unknown assertion type',
      { assert: [{ type: 'coherance', threshold: 0.5 }] },
      /assert entry 1: unknown type "coherance"/u,
    ],
    [
      'the same check twice',
      {
        assert: [
          { type: 'support', threshold: 0.5 },
          { type: 'support', threshold: 0.5 },
        ],
      },
      /assert entry 2 repeats sumlens\.config\.yaml, assert entry 1 \(support ≥ 0\.5\)/u,
    ],
  ];
  for (const [what, value, message] of refusals) {
    it(`refuses ${what}`, () => {
      expect(() => read(value)).toThrow(ConfigError);
      expect(() => read(value)).toThrow(message);
    });
  }

  it('names the file and the line of a YAML syntax error', () => {
    const dir = tempDir('config-bad');
    writeFileSync(join(dir, 'bad.yaml'), 'assert:\n  - type: support\n   threshold: [0.5\n');
    expect(() => readConfig('bad.yaml', KNOWN_METRICS, dir)).toThrow(
      /^bad\.yaml: not valid YAML: .*line/u,
    );
    expect(() => readConfig('missing.yaml', KNOWN_METRICS, dir)).toThrow(
      /--config missing\.yaml: cannot read it \(no such file\)/u,
    );
  });
});

describe('--assert', () => {
  it('reads METRIC:MIN, not-METRIC:MAX and not-flag=FLAG', () => {
    expect(entryOfFlag('support:0.7')).toEqual({ type: 'support', threshold: 0.7 });
    expect(entryOfFlag('not-repetition-offline:0.2')).toEqual({
      type: 'not-repetition-offline',
      threshold: 0.2,
    });
    expect(entryOfFlag('not-flag=lead-copy')).toEqual({ type: 'not-flag', value: 'lead-copy' });
    const refuse = (text: string) =>
      assertionsOf([{ entry: entryOfFlag(text), where: `--assert ${text}` }], KNOWN_METRICS);
    expect(() => refuse('support:high')).toThrow(
      /--assert support:high: "threshold" must be a number/u,
    );
    expect(() => refuse('support')).toThrow(/--assert support: "type: support" needs "threshold/u);
  });

  it('refuses an assertion on a metric the run does not score', () => {
    const [support, flag] = assertionsOf(
      [
        { entry: { type: 'support', threshold: 0.5 }, where: 'a' },
        { entry: { type: 'not-flag', value: 'lead-copy' }, where: 'b' },
      ],
      KNOWN_METRICS,
    );
    expect(unscoredAssertion([support!], ['support'])).toBeUndefined();
    expect(unscoredAssertion([support!], ['rouge-1'])).toMatch(
      /"support ≥ 0\.5" needs support, which this run does not score: add it to --metrics/u,
    );
    // The flags come from the quality estimate.
    expect(unscoredAssertion([flag!], ['support'])).toMatch(/needs quality-offline/u);
  });
});
