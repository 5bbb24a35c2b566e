import { describe, expect, it } from 'vitest';
import { renderTemplate, renderText, templateProblems, templateVariables } from '../../../src/modules/email/render.js';

/** The email template language: placeholders only, escaped in HTML, no way to run code. */

describe('renderText', () => {
  const vars = {
    name: 'Ada <admin>',
    stats: { wins: 3, pro: true },
    empty: '',
    list: ['a'],
    nothing: null,
    nested: { deep: { x: 'y' } },
  };

  it('fills paths, escapes HTML, prints numbers and booleans, and uses defaults for what is absent or empty', () => {
    expect(renderText('Hi {{name}}, {{ stats.wins }} wins ({{stats.pro}})', vars, 'html')).toBe(
      'Hi Ada &lt;admin&gt;, 3 wins (true)',
    );
    expect(renderText('Hi {{ name }}', vars, 'text')).toBe('Hi Ada <admin>');
    expect(renderText('{{missing | "friend"}}/{{ nested.deep.x }}/{{empty|"nameless"}}/{{empty}}', vars, 'text')).toBe(
      'friend/y/nameless/',
    );
    expect(renderText('[{{list}}][{{nothing}}][{{stats}}][{{missing}}]', vars, 'text')).toBe('[][][][]');
    expect(renderText('{{ q | "say \\"hi\\"" }}', {}, 'html')).toBe('say &quot;hi&quot;');
  });

  it('never reads beyond own properties: no prototype, constructor or function', () => {
    expect(renderText('{{constructor}}{{__proto__}}{{name.length}}{{toString}}', { name: 'abc' }, 'text')).toBe('');
  });

  it('keeps a subject on one line whatever the value', () => {
    expect(renderText('Re: {{x}}', { x: 'a\r\nBcc: evil@example.test' }, 'subject')).toBe(
      'Re: a Bcc: evil@example.test',
    );
  });

  it('leaves what is not a placeholder alone', () => {
    expect(renderText('{ {x} } {{ 1x }} {{x.}}', { x: 'v' }, 'text')).toBe('{ {x} } {{ 1x }} {{x.}}');
  });
});

describe('renderTemplate, templateProblems, templateVariables', () => {
  it('renders all three parts', () => {
    expect(renderTemplate({ subject: 'Hello {{n}}', html: '<p>{{n}}</p>', text: '{{n}}!' }, { n: 'A&B' })).toEqual({
      subject: 'Hello A&B',
      html: '<p>A&amp;B</p>',
      text: 'A&B!',
    });
  });

  it('names each malformed {{ with its part, line and column', () => {
    expect(templateProblems({ subject: 'ok {{a}}', html: '<p>\n  {{ bad name }}</p>', text: 'x {{ unclosed' })).toEqual(
      [
        { part: 'html', line: 2, column: 3, problem: expect.any(String) },
        { part: 'text', line: 1, column: 3, problem: expect.any(String) },
      ],
    );
    expect(templateProblems({ subject: 'a', html: '{{a.b | "c"}}', text: 'b' })).toEqual([]);
  });

  it('lists the variables read', () => {
    expect(templateVariables({ subject: '{{b}}', html: '{{a.c}} {{b}}', text: '{{ z | "q" }}' })).toEqual([
      'a.c',
      'b',
      'z',
    ]);
  });
});
