/**
 * `npm run docs:screenshot`: docs/img/score.png, the README's picture: the Score view with the
 * example case scored, 1280×800, light theme. It serves the build in dist/ (`npx vite build`
 * first) with vite's preview server on a fixed port (SUMLENS_DOCS_PORT, default 4215, --strictPort so a
 * busy port fails loudly instead of shooting another server's page), and drives Debian's Chromium
 * with the same loopback-only flags as the tests: nothing is downloaded.
 */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { preview } from 'vite';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../src/lib/node/chromium.ts';
import { repoRoot } from '../src/lib/node/external-data.ts';
import { waitForScores } from '../tests/e2e/support/browser.ts';

const OUT = resolve(repoRoot, 'docs/img/score.png');
const PORT = Number(process.env.SUMLENS_DOCS_PORT ?? 4215);
const VIEWPORT = { width: 1280, height: 800 };
/** A README image that costs a reader little to load. */
const MAX_BYTES = 300_000;

async function main(): Promise<void> {
  if (!existsSync(resolve(repoRoot, 'dist/index.html'))) {
    throw new Error('no dist/: run `npx vite build` first');
  }
  // vite.config.ts applies, so the page gets the headers of a real deployment.
  const server = await preview({
    root: repoRoot,
    preview: { host: '127.0.0.1', port: PORT, strictPort: true },
  });
  const origin = `http://127.0.0.1:${PORT}`;
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport: VIEWPORT, colorScheme: 'light' });
    await page.goto(origin);
    await page.getByTestId('example-button').click();
    await page.getByTestId('score-button').click();
    await waitForScores(page);
    // The picture starts at the Score button, so it shows what a click gives: the verdict, the
    // summary with its findings marked and the score board. The focus moved to the board when
    // the scores arrived; its outline is not part of the picture.
    await page.evaluate(() => {
      (document.activeElement as HTMLElement | null)?.blur();
      const button = document.querySelector('[data-testid="score-button"]');
      if (button) window.scrollTo(0, button.getBoundingClientRect().top + window.scrollY - 16);
    });
    mkdirSync(dirname(OUT), { recursive: true });
    await page.screenshot({ path: OUT, animations: 'disabled', caret: 'hide' });
  } finally {
    await browser.close();
    await server.close();
  }
  const bytes = statSync(OUT).size;
  console.log(`wrote docs/img/score.png, ${bytes} bytes`);
  if (bytes > MAX_BYTES) {
    throw new Error(`docs/img/score.png is ${bytes} bytes, over ${MAX_BYTES}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
