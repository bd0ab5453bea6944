/**
 * The English catalog: the source of every message key, bundled with the page and the workers (so
 * a metric can word its explanation in English for the CLI and exports, and the page can render it
 * in the reader's language from the same key).
 */
import common from '../../messages/en/common.json';
import app from '../../messages/en/app.json';
import input from '../../messages/en/input.json';
import card from '../../messages/en/card.json';
import details from '../../messages/en/details.json';
import validity from '../../messages/en/validity.json';
import charts from '../../messages/en/charts.json';
import datasets from '../../messages/en/datasets.json';
import exports from '../../messages/en/exports.json';
import judge from '../../messages/en/judge.json';
import llm from '../../messages/en/llm.json';
import lexical from '../../messages/en/lexical.json';
import semantic from '../../messages/en/semantic.json';
import judgeMetrics from '../../messages/en/judgeMetrics.json';
import language from '../../messages/en/language.json';
import a11y from '../../messages/en/a11y.json';
import settings from '../../messages/en/settings.json';
import models from '../../messages/en/models.json';
import runs from '../../messages/en/runs.json';
import verdict from '../../messages/en/verdict.json';
import views from '../../messages/en/views.json';
import plan from '../../messages/en/plan.json';
import editor from '../../messages/en/editor.json';
import metrics from '../../messages/en/metrics.json';

export const en = {
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
  ...verdict,
  ...views,
  ...plan,
  ...editor,
  ...metrics,
};

export type MessageKey = keyof typeof en;
export type Catalog = Partial<Record<MessageKey, string>>;
