/// <reference lib="webworker" />
/**
 * A run's calibration against its human ratings (src/lib/datasets/calibration.ts), computed here
 * so that opening a run of thousands of rows never freezes the page: the worker reads the run, its
 * data set's rows and its results from IndexedDB and posts the calibration table only. Methods:
 * src/lib/workers/calibration-api.ts.
 */
// First, before any module that builds a zod schema (no eval under the CSP).
import '../src/lib/zod-config.ts';
import { serveCalibration } from './calibration-host.ts';

serveCalibration(self);
