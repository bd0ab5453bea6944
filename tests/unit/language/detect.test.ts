import { describe, expect, it } from 'vitest';
import {
  detectLanguage,
  languageFromScript,
  loadLanguageIdentifier,
  normalizeLanguageCode,
} from '../../../src/lib/metrics/text/language.ts';

describe('language detection', () => {
  it('detects zh, ja, ru, id and en with cld3', async () => {
    const cld3 = await loadLanguageIdentifier();
    const texts: Record<string, string> = {
      zh: '研究人员周二表示，这种新型电池可以在十分钟内充满电。该电池由浙江大学的团队开发，预计明年投入生产。',
      ja: '研究者たちは火曜日、この新しい電池は十分で満充電できると発表した。電池は東京大学のチームが開発した。',
      ru: 'Исследователи заявили во вторник, что новая батарея заряжается полностью за десять минут.',
      id: 'Para peneliti mengatakan pada hari Selasa bahwa baterai baru ini dapat diisi penuh dalam sepuluh menit dan akan diproduksi tahun depan.',
      en: 'Researchers said on Tuesday that the new battery can be fully charged in ten minutes and will be produced next year.',
    };
    for (const [code, text] of Object.entries(texts)) {
      const found = detectLanguage(text, cld3);
      expect(found.code, code).toBe(code);
      expect(found.basis, code).toBe('detected');
    }
  });

  it('falls back to the script on short text', async () => {
    const cld3 = await loadLanguageIdentifier();
    expect(detectLanguage('电池充满电', cld3)).toEqual({ code: 'zh', basis: 'script' });
    expect(detectLanguage('電池を充電した', cld3)).toEqual({ code: 'ja', basis: 'script' });
    expect(detectLanguage('Батарея', cld3)).toEqual({ code: 'ru', basis: 'script' });
    expect(detectLanguage('hello', cld3)).toEqual({ code: 'und', basis: 'unknown' });
  });

  it('works from the script alone without cld3', () => {
    expect(detectLanguage('한국어 요약입니다').code).toBe('ko');
    expect(languageFromScript('An English sentence naming 北京 once.')).toBeUndefined();
  });

  it('normalises codes to BCP-47 primary subtags', () => {
    expect(normalizeLanguageCode('zh-Latn')).toBe('zh');
    expect(normalizeLanguageCode('iw')).toBe('he');
    expect(normalizeLanguageCode('zh-CN')).toBe('zh');
    expect(normalizeLanguageCode('')).toBe('und');
  });
});
