/**
 * How a JSON request travels (PROVIDERS.md §12.1): the provider's structured output where its
 * record and the model's traits allow it, JSON mode plus the schema in the prompt, or the schema
 * in the prompt alone.
 */
import type { Traits } from './capabilities.ts';
import { isObjectSchema, schemaName, toJsonSchema, toStrictJsonSchema } from './json-schema.ts';
import { PROVIDERS } from './providers/registry.ts';
import type { WireJson } from './providers/shared.ts';
import type { ChatMessage, JsonOutputSpec, ProviderConfig } from './types.ts';

export interface JsonPlan {
  /** What the request body carries (structured output or JSON mode), if anything. */
  wire?: WireJson;
  /** The schema to append to the prompt, where the body alone does not carry it. */
  instructionSchema?: object;
}

/** Appends the JSON-in-text instruction to the last user turn (after the untrusted text, so it
 * also restates the output format: PROVIDERS.md §16 "sandwich"). */
export function withJsonInstruction(messages: ChatMessage[], schema: object): ChatMessage[] {
  const instruction =
    'Answer with JSON only: a single JSON value, no other text and no code fences, matching this JSON Schema:\n' +
    JSON.stringify(schema);
  const out = messages.map((m) => ({ ...m }));
  for (let i = out.length - 1; i >= 0; i--) {
    if (out[i].role === 'user') {
      out[i].content = `${out[i].content}\n\n${instruction}`;
      return out;
    }
  }
  return [...out, { role: 'user', content: instruction }];
}

/** How this JSON request travels given the provider's current traits. */
export function jsonPlan(
  spec: JsonOutputSpec,
  traits: Traits,
  kind: ProviderConfig['kind'],
): JsonPlan {
  const plain = toJsonSchema(spec.schema);
  const name = schemaName(spec.name);
  const support = PROVIDERS[kind].jsonSchema;
  if (traits.json === 'schema') {
    if (support === 'any') return { wire: { name, mode: 'schema', schema: plain, strict: false } };
    // OpenAI-style structured outputs and Anthropic tool input both need an object at the root.
    if (isObjectSchema(plain)) {
      if (support === 'object')
        return { wire: { name, mode: 'schema', schema: plain, strict: false } };
      const strict = toStrictJsonSchema(spec.schema);
      return {
        wire: strict
          ? { name, mode: 'schema', schema: strict, strict: true }
          : { name, mode: 'schema', schema: plain, strict: false },
      };
    }
  }
  if (traits.json === 'object' && isObjectSchema(plain)) {
    // JSON mode still needs the schema (and the word "json") in the prompt.
    return {
      wire: { name, mode: 'object', schema: plain, strict: false },
      instructionSchema: plain,
    };
  }
  return { instructionSchema: plain };
}
