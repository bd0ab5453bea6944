/**
 * A model that fails to load must not cost the user their case: the metric is computed with the
 * built-in backend, and the result carries a note saying which model failed and why.
 */
import type {
  BackendNote,
  EntityRecognizer,
  SentenceEmbedder,
} from '../src/lib/metrics/semantic/backends.ts';

export async function withFallback<B extends SentenceEmbedder | EntityRecognizer>(
  preferred: () => Promise<B>,
  builtIn: () => Promise<B>,
  describe: (error: unknown) => BackendNote,
): Promise<B> {
  try {
    return await preferred();
  } catch (error) {
    const base = await builtIn();
    const notes = [...(base.notes ?? []), describe(error)];
    // A view of the built-in backend with the note attached; the shared instance stays clean.
    return new Proxy(base, {
      get: (target, property, receiver) =>
        property === 'notes' ? notes : Reflect.get(target, property, receiver),
    });
  }
}
