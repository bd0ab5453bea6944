/**
 * Zod schema → the JSON Schema each structured-output API accepts. OpenAI strict mode (and
 * servers that copy it) demands every property in `required` and `additionalProperties: false`;
 * an optional field is expressed as nullable instead (parse-json drops such nulls again).
 */
import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

/** Keywords no structured-output API needs and some reject. */
const DROP = new Set(['$schema', 'default', 'examples', '$id', 'title']);

function clean(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(clean);
  if (!node || typeof node !== 'object') return node;
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(node)) {
    if (DROP.has(k)) continue;
    // `properties` maps user names to schemas: its keys are never keywords.
    if (k === 'properties' && v && typeof v === 'object') {
      out[k] = Object.fromEntries(Object.entries(v).map(([name, sub]) => [name, clean(sub)]));
    } else out[k] = clean(v);
  }
  return out;
}

/** Plain JSON Schema of the zod schema's input shape (Gemini, Anthropic tools, prompts). */
export function toJsonSchema(schema: z.ZodType): JsonSchema {
  return clean(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' })) as JsonSchema;
}

function nullable(node: JsonSchema): JsonSchema {
  if (Array.isArray(node.enum) && !node.enum.includes(null)) {
    node = { ...node, enum: [...node.enum, null] };
  }
  const type = node.type;
  if (typeof type === 'string') return type === 'null' ? node : { ...node, type: [type, 'null'] };
  if (Array.isArray(type))
    return type.includes('null') ? node : { ...node, type: [...type, 'null'] };
  return { anyOf: [node, { type: 'null' }] };
}

/** Open maps (`z.record`) cannot be expressed in strict mode: every key must be declared. */
function hasOpenMap(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(hasOpenMap);
  if (!node || typeof node !== 'object') return false;
  const src = node as JsonSchema;
  if ('propertyNames' in src || 'patternProperties' in src) return true;
  if (src.additionalProperties && typeof src.additionalProperties === 'object') return true;
  return Object.values(src).some(hasOpenMap);
}

function strictify(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(strictify);
  if (!node || typeof node !== 'object') return node;
  const src = node as JsonSchema;
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(src)) {
    if (k === 'properties' && v && typeof v === 'object') {
      const required = new Set(Array.isArray(src.required) ? (src.required as string[]) : []);
      out.properties = Object.fromEntries(
        Object.entries(v).map(([name, sub]) => {
          const s = strictify(sub) as JsonSchema;
          return [name, required.has(name) ? s : nullable(s)];
        }),
      );
    } else out[k] = strictify(v);
  }
  if (src.type === 'object' || src.properties) {
    const props = (out.properties ?? {}) as JsonSchema;
    out.properties = props;
    out.required = Object.keys(props);
    out.additionalProperties = false;
  }
  return out;
}

/** OpenAI `strict: true` compatible schema; undefined when the schema has open maps. */
export function toStrictJsonSchema(schema: z.ZodType): JsonSchema | undefined {
  const plain = toJsonSchema(schema);
  return hasOpenMap(plain) ? undefined : (strictify(plain) as JsonSchema);
}

/** Structured-output APIs (OpenAI, Anthropic tools) require an object at the root. */
export function isObjectSchema(schema: JsonSchema): boolean {
  return schema.type === 'object';
}

/** Schema names must match `[a-zA-Z0-9_-]{1,64}` (OpenAI, Anthropic tool names). */
export function schemaName(name: string): string {
  const cleaned = name.replace(/[^a-zA-Z0-9_-]+/g, '_').slice(0, 64);
  return cleaned || 'result';
}
