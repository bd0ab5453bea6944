/**
 * The calibration worker's side of src/lib/workers/calibration-api.ts, apart from the worker's
 * entry so that a test serves it in one thread (with fake-indexeddb).
 */
import { messageOf } from '../src/lib/errors.ts';
import { calibrate } from '../src/lib/datasets/calibration.ts';
import { loadRunData } from '../src/lib/datasets/run-data.ts';
import { calibrationInput } from '../src/lib/datasets/run-view.ts';
import { calibrationApi } from '../src/lib/workers/calibration-api.ts';
import { serve, type RpcScope } from '../src/lib/workers/rpc.ts';

export function serveCalibration(scope: RpcScope): void {
  serve(
    calibrationApi,
    {
      async calibrate({ runId }) {
        const data = await loadRunData(runId);
        try {
          return calibrate(calibrationInput(data));
        } catch (error) {
          throw new Error(`The calibration failed: ${messageOf(error)}`, { cause: error });
        }
      },
    },
    scope,
  );
}
