import { describe, expect, it } from 'vitest';
import { escapeHtml } from '../../src/lib/html.js';

describe('escapeHtml', () => {
  it('escapes the five characters that can end text or a quoted attribute', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
  });

  it('leaves other text as it is', () => {
    expect(escapeHtml('Grüße, 100 % ✓')).toBe('Grüße, 100 % ✓');
  });
});
