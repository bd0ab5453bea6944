/** The shipped sentence-order models (written by `npm run train:order`), one per encoder. */
import type { OrderModel } from './order-model.ts';
import useLite from './order-model/use-lite.json';
import glove from './order-model/glove.json';

export const ORDER_MODELS: readonly OrderModel[] = [useLite, glove];
