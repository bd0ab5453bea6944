/**
 * Starts the calibration worker (workers/calibration.worker.ts) and returns the page's handle on
 * it. Kept apart from calibration-protocol.ts, which the worker itself imports: a
 * `new Worker(new URL(…))` there would make Vite bundle the worker into itself.
 */
import { CalibrationClient } from './calibration-protocol.ts';

export function startCalibrationWorker(): CalibrationClient {
  return new CalibrationClient(
    new Worker(new URL('../../../workers/calibration.worker.ts', import.meta.url), {
      type: 'module',
      name: 'calibration',
    }),
  );
}
