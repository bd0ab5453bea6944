/**
 * The one request/reply layer between the page and every worker (metrics, data-set parse, batch,
 * calibration). A worker declares its methods once with `defineWorkerApi` (per method: a zod
 * schema for the request, for the progress items it streams, and for the result); `serve` builds
 * the worker's side from that declaration and `WorkerClient` the page's.
 *
 * Both ends validate what they receive: the worker checks each request against its method's
 * schema, the page checks each progress item and result, because a message from a stale tab, a
 * newer build or a broken worker must fail the call it names, not half-work. Calls have ids; a
 * call is cancelled by id (the handler's AbortSignal fires) and ends as `cancelled` unless it
 * finished first. Errors travel as messages: the page rejects the call with the worker's words.
 *
 * Framework-free and without `new Worker(…)`: the workers import this module, and a worker URL
 * here would make Vite bundle a worker into itself.
 */
import { z } from 'zod';
import { messageOf } from '../errors.ts';

/** What one method of a worker takes, streams and answers. */
export interface MethodSchema<
  Request extends z.ZodType = z.ZodType,
  Progress extends z.ZodType = z.ZodType,
  Result extends z.ZodType = z.ZodType,
> {
  request: Request;
  /** `z.never()` for a method that streams nothing. */
  progress: Progress;
  result: Result;
}

export type Methods = Record<string, MethodSchema>;

export interface WorkerApi<M extends Methods> {
  /** Named in error messages ("The batch worker stopped: …"). */
  readonly name: string;
  readonly methods: M;
}

export function defineWorkerApi<const M extends Methods>(name: string, methods: M): WorkerApi<M> {
  return { name, methods };
}

export type MethodName<M extends Methods> = keyof M & string;
/** What the page passes (before the worker's schema fills defaults). */
export type ParamsOf<M extends Methods, K extends keyof M> = z.input<M[K]['request']>;
export type ProgressOf<M extends Methods, K extends keyof M> = z.output<M[K]['progress']>;
export type ResultOf<M extends Methods, K extends keyof M> = z.output<M[K]['result']>;

const callId = z.string().min(1);

const requestSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('call'), id: callId, method: z.string(), params: z.unknown() }),
  z.object({ kind: z.literal('cancel'), id: callId }),
]);

const replySchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('progress'), id: callId, item: z.unknown() }),
  z.object({ kind: z.literal('result'), id: callId, value: z.unknown() }),
  z.object({ kind: z.literal('cancelled'), id: callId }),
  /** `id` is empty when the request was too malformed to name its call. */
  z.object({ kind: z.literal('error'), id: z.string(), message: z.string() }),
]);

export type RpcRequest = z.infer<typeof requestSchema>;
export type RpcReply = z.infer<typeof replySchema>;

function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'unknown';
  const path = issue.path.map(String).join('.');
  return path ? `${path}: ${issue.message}` : issue.message;
}

/** `schema.safeParse`, typed by the schema's own output even where the schema is generic. */
function read<T extends z.ZodType>(schema: T, raw: unknown): z.ZodSafeParseResult<z.output<T>> {
  return schema.safeParse(raw);
}

function idOf(data: unknown): string {
  if (typeof data !== 'object' || data === null || !('id' in data)) return '';
  return typeof data.id === 'string' ? data.id : '';
}

// ---- The worker side ----

export interface CallContext<Progress> {
  /** Fires when the page cancels the call (or gives up on it). */
  signal: AbortSignal;
  progress(item: Progress): void;
}

export type Handlers<M extends Methods> = {
  [K in keyof M]: (
    params: z.output<M[K]['request']>,
    context: CallContext<z.input<M[K]['progress']>>,
  ) => Promise<z.input<M[K]['result']>> | z.input<M[K]['result']>;
};

/** The two calls of a worker's global scope that `serve` uses (a test passes a fake). */
export interface RpcScope {
  addEventListener(type: 'message', listener: (event: MessageEvent<unknown>) => void): void;
  postMessage(message: RpcReply): void;
}

/** Answers the page's calls to `api` with `handlers`, one job per call id. */
export function serve<M extends Methods>(
  api: WorkerApi<M>,
  handlers: Handlers<M>,
  scope: RpcScope,
): void {
  const running = new Map<string, AbortController>();
  const post = (reply: RpcReply) => scope.postMessage(reply);
  const isMethod = (name: string): name is MethodName<M> => Object.hasOwn(api.methods, name);

  scope.addEventListener('message', (event: MessageEvent<unknown>) => {
    const parsed = requestSchema.safeParse(event.data);
    if (!parsed.success) {
      post({
        kind: 'error',
        id: idOf(event.data),
        message: `Malformed message to the ${api.name} worker: ${describeIssue(parsed.error)}`,
      });
      return;
    }
    const message = parsed.data;
    switch (message.kind) {
      case 'cancel':
        running.get(message.id)?.abort();
        return;
      case 'call':
        if (!isMethod(message.method)) {
          post({
            kind: 'error',
            id: message.id,
            message: `The ${api.name} worker has no method "${message.method}".`,
          });
          return;
        }
        void answer(message.id, message.method, message.params);
        return;
      default: {
        const unreachable: never = message;
        throw new Error(`Unhandled message ${JSON.stringify(unreachable)}`);
      }
    }
  });

  async function answer<K extends MethodName<M>>(id: string, method: K, raw: unknown) {
    const params = read<M[K]['request']>(api.methods[method].request, raw);
    if (!params.success) {
      post({
        kind: 'error',
        id,
        message: `Malformed request to the ${api.name} worker (${method}): ${describeIssue(params.error)}`,
      });
      return;
    }
    const controller = new AbortController();
    running.set(id, controller);
    try {
      const value = await handlers[method](params.data, {
        signal: controller.signal,
        progress: (item) => post({ kind: 'progress', id, item }),
      });
      post({ kind: 'result', id, value });
    } catch (error) {
      if (controller.signal.aborted) post({ kind: 'cancelled', id });
      else post({ kind: 'error', id, message: messageOf(error) });
    } finally {
      running.delete(id);
    }
  }
}

// ---- The page side ----

/** What the client needs of a Worker (a test passes a fake). */
export interface WorkerLike {
  postMessage(message: RpcRequest): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<unknown>) => void): void;
  addEventListener(type: 'error', listener: (event: ErrorEvent) => void): void;
  addEventListener(type: 'messageerror', listener: (event: MessageEvent<unknown>) => void): void;
  terminate(): void;
}

export interface CallOptions<Progress> {
  signal?: AbortSignal;
  onProgress?(item: Progress): void;
}

/** How a call the page cancelled ends (`isCancelled` tells it from a failure). */
export class CallCancelled extends Error {
  constructor(api: string) {
    super(`The ${api} worker's job was cancelled.`);
    this.name = 'AbortError';
  }
}

export function isCancelled(error: unknown): error is CallCancelled {
  return error instanceof CallCancelled;
}

/** A call waiting for its reply; the raw item or value is validated against its method here. */
interface PendingCall {
  /** Undefined when the item was read, else why not. */
  progress(raw: unknown): z.ZodError | undefined;
  result(raw: unknown): z.ZodError | undefined;
  reject(error: Error): void;
}

export interface ClientOptions {
  /** Said after "The … worker stopped: <reason>." (what survives, what to do). */
  afterStop?: string;
}

/**
 * The page's handle on one worker: `call` sends a request and resolves with its validated
 * result; an AbortSignal cancels it. A worker that crashes fails every call it held instead of
 * leaving the page waiting.
 */
export class WorkerClient<M extends Methods> {
  readonly #api: WorkerApi<M>;
  readonly #worker: WorkerLike;
  readonly #calls = new Map<string, PendingCall>();
  readonly #afterStop: string;

  constructor(api: WorkerApi<M>, worker: WorkerLike, options: ClientOptions = {}) {
    this.#api = api;
    this.#worker = worker;
    this.#afterStop = options.afterStop ? ` ${options.afterStop}` : '';
    worker.addEventListener('message', (event: MessageEvent<unknown>) => this.#receive(event.data));
    worker.addEventListener('error', (event: ErrorEvent) => {
      event.preventDefault();
      this.#failAll(
        `The ${api.name} worker stopped: ${event.message || 'it could not start'}.${this.#afterStop}`,
      );
    });
    worker.addEventListener('messageerror', () =>
      this.#failAll(`The ${api.name} worker sent a message that could not be read.`),
    );
  }

  get name(): string {
    return this.#api.name;
  }

  /** Calls sent and not yet answered. */
  get pending(): number {
    return this.#calls.size;
  }

  call<K extends MethodName<M>>(
    method: K,
    params: ParamsOf<M, K>,
    options: CallOptions<ProgressOf<M, K>> = {},
  ): Promise<ResultOf<M, K>> {
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(new CallCancelled(this.#api.name));
    const id = crypto.randomUUID();
    const schema: M[K] = this.#api.methods[method];
    return new Promise<ResultOf<M, K>>((resolve, reject) => {
      const onAbort = () => this.#worker.postMessage({ kind: 'cancel', id });
      signal?.addEventListener('abort', onAbort, { once: true });
      const settle = () => signal?.removeEventListener('abort', onAbort);
      this.#calls.set(id, {
        progress: (raw) => {
          const item = read<M[K]['progress']>(schema.progress, raw);
          if (!item.success) return item.error;
          options.onProgress?.(item.data);
          return undefined;
        },
        result: (raw) => {
          const value = read<M[K]['result']>(schema.result, raw);
          if (!value.success) return value.error;
          settle();
          resolve(value.data);
          return undefined;
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      this.#worker.postMessage({ kind: 'call', id, method, params });
    });
  }

  terminate(): void {
    this.#worker.terminate();
    this.#failAll(`The ${this.#api.name} worker was shut down.${this.#afterStop}`);
  }

  #receive(data: unknown): void {
    const parsed = replySchema.safeParse(data);
    const call = this.#calls.get(parsed.success ? parsed.data.id : idOf(data));
    if (!call) return; // a reply for a call already given up on
    if (!parsed.success) {
      this.#fail(
        idOf(data),
        call,
        `The ${this.#api.name} worker sent a reply that could not be read.`,
      );
      return;
    }
    const reply = parsed.data;
    switch (reply.kind) {
      case 'progress': {
        const unread = call.progress(reply.item);
        if (unread) this.#fail(reply.id, call, this.#unreadable(unread));
        return;
      }
      case 'result': {
        this.#calls.delete(reply.id);
        const unread = call.result(reply.value);
        if (unread) call.reject(new Error(this.#unreadable(unread)));
        return;
      }
      case 'cancelled':
        this.#calls.delete(reply.id);
        call.reject(new CallCancelled(this.#api.name));
        return;
      case 'error':
        this.#calls.delete(reply.id);
        call.reject(new Error(reply.message));
        return;
      default: {
        const unreachable: never = reply;
        throw new Error(`Unhandled reply ${JSON.stringify(unreachable)}`);
      }
    }
  }

  #unreadable(error: z.ZodError): string {
    return `The ${this.#api.name} worker sent a reply that could not be read (${describeIssue(error)}).`;
  }

  /** Fails one call and tells the worker to stop working on it. */
  #fail(id: string, call: PendingCall, message: string): void {
    this.#calls.delete(id);
    this.#worker.postMessage({ kind: 'cancel', id });
    call.reject(new Error(message));
  }

  #failAll(message: string): void {
    const calls = [...this.#calls.values()];
    this.#calls.clear();
    for (const call of calls) call.reject(new Error(message));
  }
}
