// First, before any module that builds a zod schema: no eval under the page's CSP.
import './lib/zod-config.ts';
import { mount } from 'svelte';
import App from './App.svelte';
import { registerServiceWorker } from './lib/pwa/service-worker.svelte.ts';
import { watchCspViolations } from './lib/ui/csp-blocked.svelte.ts';
import { initLocale } from './lib/i18n/i18n.svelte.ts';
import './app.css';

const target = document.getElementById('app');
if (!target) throw new Error('index.html lacks #app');

// Before anything connects: a request the CSP blocks is named in a notice, not just failed.
watchCspViolations();

// Offline after the first visit (production builds only; see pwa.config.ts).
registerServiceWorker();

// The reader's language is in before the first paint (English is bundled; another language is
// one small chunk), so the page never flashes English first. Not a top-level await: that splits
// the entry into chunks, and one holding zod would then run before zod-config.ts.
void initLocale().then(() => mount(App, { target }));
