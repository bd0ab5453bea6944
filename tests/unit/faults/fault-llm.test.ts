/**
 * The fault-injecting fake provider (tests/helpers/fault-llm.ts) on its own: each fault is the
 * provider's real reply on each wire, the plans inject what they say, the random plan is
 * reproducible whatever the arrival order, a cut body is cut, and the key is seen where it is.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  FAULT_IDS,
  faultReply,
  hashUnit,
  startFaultLlm,
  type FaultLlm,
} from '../../helpers/fault-llm.ts';
import { VAGUENESS_PROMPT } from '../../../src/lib/metrics/judge/vagueness/prompts.ts';
import { GEVAL_STEPS_PROMPT } from '../../../src/lib/metrics/judge/g-eval/prompts.ts';

const KEY = 'sk-proj-FAULTCANARYunitunitunitunitunitunitunitunit0123';

function vaguenessBody(row: number) {
  return {
    model: 'gpt-4o-mini',
    messages: [
      // The real prompt's text: the oracle behind the fake recognises prompts by it.
      { role: 'system', content: VAGUENESS_PROMPT.instructions },
      {
        role: 'user',
        content: `<sentences id="s_abcdef">\n1. Dossier ${String(row).padStart(3, '0')}: the council met.\n</sentences>`,
      },
    ],
  };
}

async function post(f: FaultLlm, body: unknown, key = KEY) {
  const res = await fetch(`${f.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

describe('fault-llm', () => {
  let f: FaultLlm;
  beforeAll(async () => {
    f = await startFaultLlm();
  });
  afterAll(async () => {
    await f.close();
  });
  beforeEach(() => {
    f.recover();
    f.clearLog();
    f.setCanary(KEY);
  });

  it('answers like the oracle without a plan, and logs row and prompt', async () => {
    const r = await post(f, vaguenessBody(7));
    expect(r.status).toBe(200);
    expect(JSON.parse(r.text).choices[0].message.content).toMatch(/"sentences"/u);
    await new Promise((res) => setTimeout(res, 20));
    expect(f.log).toMatchObject([{ row: 7, sig: 'vagueness.sentences@1', success: true }]);
    expect(f.canarySightings).toEqual([]);
    expect(f.canaryInHeader).toBe(1);
  });

  it('first k fail, then it recovers; every fails them all; the 401 echoes the key', async () => {
    f.setPlan({ mode: 'first', fault: 'server-500', k: 2 });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await post(f, vaguenessBody(1))).status);
    expect(statuses).toEqual([500, 500, 200]);
    f.setPlan({ mode: 'every', fault: 'key-echo' });
    const r = await post(f, vaguenessBody(1));
    expect(r.status).toBe(401);
    expect(r.text).toContain(KEY);
  });

  it('scope verdict spares the other prompts', async () => {
    f.setPlan({ mode: 'every', fault: 'prose-not-json', scope: 'verdict' });
    const other = await post(f, {
      model: 'm',
      messages: [
        { role: 'system', content: GEVAL_STEPS_PROMPT.instructions },
        { role: 'user', content: 'x' },
      ],
    });
    expect(JSON.parse(other.text).choices[0].message.content).toMatch(/steps/u);
    const verdict = await post(f, vaguenessBody(2));
    expect(JSON.parse(verdict.text).choices[0].message.content).not.toMatch(/[{[]/u);
  });

  it('a cut body arrives short and fails to read', async () => {
    f.setPlan({ mode: 'every', fault: 'cut-body' });
    await expect(post(f, vaguenessBody(3))).rejects.toThrow();
  });

  it('the random plan draws the same faults for the same calls, whatever the order', async () => {
    const draws = async (rows: number[]) => {
      f.clearLog();
      f.setPlan({ mode: 'random', p: 0.5, seed: 11, faults: ['server-500', 'unavailable-503'] });
      for (const row of rows) await post(f, vaguenessBody(row));
      return new Map(f.log.map((e) => [e.row, e.fault ?? 'ok']));
    };
    const forward = await draws([1, 2, 3, 4, 5, 6, 7, 8]);
    const backward = await draws([8, 7, 6, 5, 4, 3, 2, 1]);
    expect(backward).toEqual(forward);
    expect(new Set(forward.values()).size).toBeGreaterThan(1);
    expect(hashUnit('a')).not.toBe(hashUnit('b'));
  });

  it('sees the key in a body or a URL, not in its header', async () => {
    await post(f, { ...vaguenessBody(4), note: KEY });
    expect(f.canarySightings.map((s) => s.where)).toEqual(['request-body']);
  });

  it('has a reply for every fault on every wire', () => {
    for (const wire of ['openai', 'anthropic', 'gemini'] as const) {
      for (const id of FAULT_IDS.filter((i) => i !== 'prompt-injection')) {
        const reply = faultReply(
          id,
          {
            method: 'POST',
            path: '/',
            query: '',
            wire,
            headers: {},
            authorized: true,
            body: vaguenessBody(1),
          },
          { timeoutMs: 5000 },
        );
        expect(reply.network || reply.body !== undefined, `${wire} ${id}`).toBe(true);
      }
    }
  });
});
