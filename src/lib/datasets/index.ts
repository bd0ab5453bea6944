/**
 * Data sets (SPEC §5–6): the row model and formats, detection, streaming parsers, TinyEval tasks
 * and SFT rows. Calibration, batch runs, export and storage live in their own modules beside these.
 */
export * from '../rows/formats.ts';
export * from './detect.ts';
export * from './parse.ts';
export * from './sft.ts';
export * from './tinyeval.ts';
