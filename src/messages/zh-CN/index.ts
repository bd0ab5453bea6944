// The zh-CN catalog, one chunk loaded when the reader picks the language (see i18n.svelte.ts).
import type { Catalog } from '../../lib/i18n/catalog-en.ts';
import common from './common.json';
import app from './app.json';
import input from './input.json';
import card from './card.json';
import details from './details.json';
import validity from './validity.json';
import charts from './charts.json';
import datasets from './datasets.json';
import exports from './exports.json';
import judge from './judge.json';
import llm from './llm.json';
import lexical from './lexical.json';
import semantic from './semantic.json';
import judgeMetrics from './judgeMetrics.json';
import language from './language.json';
import a11y from './a11y.json';
import settings from './settings.json';
import models from './models.json';
import runs from './runs.json';

const catalog: Catalog = withoutMeta({
  ...common,
  ...app,
  ...input,
  ...card,
  ...details,
  ...validity,
  ...charts,
  ...datasets,
  ...exports,
  ...judge,
  ...llm,
  ...lexical,
  ...semantic,
  ...judgeMetrics,
  ...language,
  ...a11y,
  ...settings,
  ...models,
  ...runs,
});
export default catalog;

function withoutMeta(messages: Record<string, string>): Catalog {
  return Object.fromEntries(
    Object.entries(messages).filter(([k]) => !k.startsWith('@')),
  ) as Catalog;
}
