/**
 * The metric's own English messages (ICU MessageFormat), which its record hands to the catalog
 * (npm run i18n:metrics writes them into src/messages/en/metrics.json and fills the other locales).
 */
export const entityDensityMessages: Readonly<Record<string, string>> = {
  'details.entity.line':
    '{entities, plural, one {# entity} other {# entities}} in {tokens, plural, one {# token} other {# tokens}} (words and punctuation) · density {density} · target {target, number} ± {width, number}',
  'details.entity.englishOnly': 'The recogniser reads English only: this is an undercount.',
  'details.entity.type.PERSON': 'person',
  'details.entity.type.ORG': 'organisation',
  'details.entity.type.PLACE': 'place',
  'details.entity.type.NORP': 'nationality or group',
  'details.entity.type.DATE': 'date',
  'details.entity.type.TIME': 'time',
  'details.entity.type.MONEY': 'money',
  'details.entity.type.PERCENT': 'percent',
  'details.entity.type.CARDINAL': 'number',
  'details.entity.type.ORDINAL': 'ordinal',
  'details.entity.type.PER': 'person',
  'details.entity.type.LOC': 'place',
  'details.entity.type.MISC': 'other name',
  'validity.row.entityDensity': 'Entity density',
};
