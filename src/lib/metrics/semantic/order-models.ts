/**
 * The shipped sentence-order models (written by `npm run train:order`), one per encoder.
 *
 * USE-lite int8 (`use-lite int8 · …`) gets the `use-lite` model, trained on fp32 vectors:
 * `npm run int8:agreement` validated int8 against it (bench/results/int8-agreement.json: the shuffle
 * test's order score 0.924 with int8 against 0.928 with fp32). A model trained on int8 vectors
 * (docs/int8-encoder.md) brought the coherence validity figures no closer to fp32's, so none ships;
 * int8's cards quote the validity rows measured on int8.
 */
import type { OrderModel } from './order-model.ts';
import useLite from './order-model/use-lite.json';
import glove from './order-model/glove.json';

export const ORDER_MODELS: readonly OrderModel[] = [useLite, glove];
