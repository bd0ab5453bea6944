/**
 * Where the built app is served during the e2e run: global-setup.ts starts the server on a free
 * port and hands its origin to the spec files through vitest's provide/inject.
 */
import { inject } from 'vitest';

export const APP_ORIGIN_KEY = 'sumlensAppOrigin';

declare module 'vitest' {
  export interface ProvidedContext {
    [APP_ORIGIN_KEY]: string;
  }
}

/**
 * The app's origin, e.g. `http://127.0.0.1:41234`. A function, not a constant: this module is
 * also loaded by the fault suite's CLI (tests/faults/cli.ts), outside vitest, where `inject`
 * throws; the CLI serves the app itself and passes its own origin.
 */
export function appOrigin(): string {
  return inject(APP_ORIGIN_KEY);
}
