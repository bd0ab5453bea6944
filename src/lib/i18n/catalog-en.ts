/**
 * The English catalog: the source of every message key, bundled with the page and the workers (so
 * a metric can word its explanation in English for the CLI and exports, and the page can render it
 * in the reader's language from the same key).
 */
import common from '../../messages/en/common.json' with { type: 'json' };
import app from '../../messages/en/app.json' with { type: 'json' };
import input from '../../messages/en/input.json' with { type: 'json' };
import card from '../../messages/en/card.json' with { type: 'json' };
// Generated from the metric records (npm run i18n:metrics): their names, meanings and own messages.
import metrics from '../../messages/en/metrics.json' with { type: 'json' };
import details from '../../messages/en/details.json' with { type: 'json' };
import validity from '../../messages/en/validity.json' with { type: 'json' };
import charts from '../../messages/en/charts.json' with { type: 'json' };
import datasets from '../../messages/en/datasets.json' with { type: 'json' };
import exports from '../../messages/en/exports.json' with { type: 'json' };
import judge from '../../messages/en/judge.json' with { type: 'json' };
import llm from '../../messages/en/llm.json' with { type: 'json' };
import lexical from '../../messages/en/lexical.json' with { type: 'json' };
import semantic from '../../messages/en/semantic.json' with { type: 'json' };
import judgeMetrics from '../../messages/en/judgeMetrics.json' with { type: 'json' };
import language from '../../messages/en/language.json' with { type: 'json' };
import a11y from '../../messages/en/a11y.json' with { type: 'json' };
import settings from '../../messages/en/settings.json' with { type: 'json' };
import models from '../../messages/en/models.json' with { type: 'json' };
import runs from '../../messages/en/runs.json' with { type: 'json' };
import verdict from '../../messages/en/verdict.json' with { type: 'json' };
import views from '../../messages/en/views.json' with { type: 'json' };
import plan from '../../messages/en/plan.json' with { type: 'json' };
import editor from '../../messages/en/editor.json' with { type: 'json' };

export const en = {
  ...common,
  ...app,
  ...input,
  ...card,
  ...metrics,
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
};

export type MessageKey = keyof typeof en;
export type Catalog = Partial<Record<MessageKey, string>>;
