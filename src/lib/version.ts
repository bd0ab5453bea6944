/**
 * The app's version, read from package.json at build time so that exports and stored runs name
 * the version that made them, with one place to bump it. The named import lets Vite bundle only
 * this field, not the whole manifest.
 */
import { version } from '../../package.json';

export const APP_VERSION: string = version;
