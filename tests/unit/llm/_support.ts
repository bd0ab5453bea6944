/**
 * Helpers for the LLM unit tests: a scripted `fetch` (no sockets) and fresh module state.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { resetCapabilityCache } from '../../../src/lib/llm/capabilities.ts';
import { resetLimiters } from '../../../src/lib/llm/limiter.ts';
import { repoRoot } from '../../helpers/shared.ts';
import type { Json } from '../../helpers/fake-llm.ts';
import { expect } from 'vitest';
import { LlmError } from '../../../src/lib/llm/types.ts';

export function fixture(name: string): Json {
  return JSON.parse(readFileSync(resolve(repoRoot, 'tests/fixtures/llm', name), 'utf8'));
}

export interface SeenCall {
  url: string;
  headers: Record<string, string>;
  body: Json;
}

export type ScriptedReply =
  { status?: number; body?: unknown; headers?: Record<string, string> } | { throws: unknown };

/** A fetch that answers from a list (the last entry repeats) and records every call. */
export function scriptedFetch(
  replies: ScriptedReply[] | ((call: SeenCall, i: number) => ScriptedReply),
) {
  const calls: SeenCall[] = [];
  const fetchFn = (async (input: RequestInfo | URL, init?: RequestInit) => {
    if (init?.signal?.aborted) throw new DOMException('The operation was aborted.', 'AbortError');
    const call: SeenCall = {
      url: String(input),
      headers: Object.fromEntries(Object.entries((init?.headers ?? {}) as Record<string, string>)),
      body: init?.body ? JSON.parse(String(init.body)) : undefined,
    };
    calls.push(call);
    const i = calls.length - 1;
    const reply =
      typeof replies === 'function' ? replies(call, i) : replies[Math.min(i, replies.length - 1)];
    if ('throws' in reply) throw reply.throws;
    const body = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? {});
    return new Response(body, {
      status: reply.status ?? 200,
      headers: { 'content-type': 'application/json', ...reply.headers },
    });
  }) as typeof fetch;
  return { fetch: fetchFn, calls };
}

/** A sleep that records the delays and returns at once, but still honours abort. */
export function recordingSleep() {
  const delays: number[] = [];
  const sleep = async (ms: number, signal?: AbortSignal) => {
    delays.push(ms);
    if (signal?.aborted) {
      const { LlmError } = await import('../../../src/lib/llm/types.ts');
      throw new LlmError('cancelled', 'Cancelled.');
    }
  };
  return { sleep, delays };
}

export function resetLlmState(): void {
  resetCapabilityCache();
  resetLimiters();
}

export const KEYS = {
  openai: 'sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789',
  anthropic: 'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789',
  gemini: 'AIzaSyAbCdEfGhIjKlMnOpQrStUvWxYz0123456',
  openrouter: 'sk-or-v1-0123456789abcdef0123456789abcdef',
  groq: 'gsk_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789',
  custom: 'local-secret-token-42',
} as const;

/** The LlmError a promise rejects with (fails the test when it resolves or rejects otherwise). */
export async function rejection(p: Promise<unknown>): Promise<LlmError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(LlmError);
    return e as LlmError;
  }
  throw new Error('expected a rejection');
}
