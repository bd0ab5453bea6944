/**
 * Starts the calibration worker (workers/calibration.worker.ts) and returns the page's handle on
 * it. Kept apart from the worker's own modules: a `new Worker(new URL(…))` there would make Vite
 * bundle the worker into itself.
 */
import { calibrationApi } from './calibration-api.ts';
import { WorkerClient } from './rpc.ts';

export type CalibrationClient = WorkerClient<typeof calibrationApi.methods>;

export function startCalibrationWorker(): CalibrationClient {
  return new WorkerClient(
    calibrationApi,
    new Worker(new URL('../../../workers/calibration.worker.ts', import.meta.url), {
      type: 'module',
      name: 'calibration',
    }),
    { afterStop: 'Open the run again to retry.' },
  );
}
