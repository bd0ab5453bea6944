/// <reference lib="webworker" />
/**
 * A finished run, read off the page: its view (the scores by column, the ratings lined up with
 * them), its calibration against its human ratings (src/lib/datasets/calibration.ts) and its
 * exports are built here, so that opening a run of thousands of rows never freezes the page. The
 * worker reads the run, its data set's rows and its results from IndexedDB itself and posts
 * numbers and texts of files only. Methods: src/lib/workers/calibration-api.ts.
 */
// First, before any module that builds a zod schema (no eval under the CSP).
import '../src/lib/zod-config.ts';
import { serveCalibration } from './calibration-host.ts';

serveCalibration(self);
