/// <reference lib="webworker" />
/**
 * A run's calibration against its human ratings (src/lib/datasets/calibration.ts), computed here
 * so that opening a run of thousands of rows never freezes the page. Protocol:
 * src/lib/datasets/calibration-protocol.ts.
 */
import { serveCalibration } from '../src/lib/datasets/calibration-protocol.ts';

serveCalibration();
