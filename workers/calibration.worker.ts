/// <reference lib="webworker" />
/**
 * A run's calibration against its human ratings (src/lib/datasets/calibration.ts), computed here
 * so that opening a run of thousands of rows never freezes the page. Protocol:
 * src/lib/datasets/calibration-protocol.ts.
 */
// First, before any module that builds a zod schema (no eval under the CSP).
import '../src/lib/zod-config.ts';
import { serveCalibration } from '../src/lib/datasets/calibration-protocol.ts';

serveCalibration();
