/**
 * The calibration worker's side of src/lib/workers/calibration-api.ts, apart from the worker's
 * entry so that a test serves it in one thread (with fake-indexeddb).
 */
import { messageOf } from '../src/lib/errors.ts';
import { calibrate } from '../src/lib/datasets/calibration.ts';
import { loadRunData, loadRunScores } from '../src/lib/datasets/run-data.ts';
import { calibrationInput, runView } from '../src/lib/datasets/run-view.ts';
import { calibrationApi } from '../src/lib/workers/calibration-api.ts';
import { serve, type RpcScope } from '../src/lib/workers/rpc.ts';

export function serveCalibration(scope: RpcScope): void {
  serve(
    calibrationApi,
    {
      async openRun({ runId }, { signal, progress }) {
        const scores = await loadRunScores(runId);
        // Another run opened while this one was read: its view is the one wanted.
        signal.throwIfAborted();
        progress(runView(scores.run, scores.rows, scores.results));
        if (scores.dataset.humanColumns.length === 0) return null;
        try {
          return calibrate(calibrationInput(scores));
        } catch (error) {
          throw new Error(`The calibration failed: ${messageOf(error)}`, { cause: error });
        }
      },
      async compareRuns(request, { signal }) {
        const { loadComparison } = await import('../src/lib/datasets/compare-data.ts');
        return loadComparison(request, signal);
      },
      async checkRun({ runId, assertions }, { signal }) {
        const { checkRun } = await import('../src/lib/datasets/run-checks.ts');
        return checkRun(runId, assertions, signal);
      },
      async exportRun({ runId, format, calibration, locale }) {
        // Loaded on the first export (papaparse, the metrics' names): opening a run starts a
        // worker less than half the size.
        const [{ exportFile }, { loadWords }] = await Promise.all([
          import('../src/lib/datasets/export/file.ts'),
          import('../src/lib/datasets/export/words.ts'),
        ]);
        const words = await loadWords(locale);
        return exportFile(await loadRunData(runId), format, {
          ...(calibration ? { calibration } : {}),
          words,
        });
      },
    },
    scope,
  );
}
