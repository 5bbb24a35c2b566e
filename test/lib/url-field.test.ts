import { describe, expect, it } from 'vitest';
import { httpUrl, httpUrlProblem, sitePathOrHttpUrl } from '../../src/lib/url-field.js';

describe('httpUrlProblem', () => {
  it.each(['https://game.example/rewards?tab=new', 'http://localhost:3000/x', 'https://game.example/a%0Ab'])(
    'takes %s',
    (value) => {
      expect(httpUrlProblem(value)).toBeUndefined();
    },
  );

  it.each([
    ['a line break', 'https://x/\r\nSet-Cookie: a=b', 'must not contain spaces, control, format or separator'],
    ['a line separator', 'https://x/\u2028', 'must not contain spaces, control, format or separator'],
    ['a backslash', 'https://game.example\\@evil.example', 'must not contain a backslash'],
    ['a user name', 'https://game.example@evil.example/', 'must not carry a user name or password'],
    ['another scheme', 'javascript:alert(1)', 'must be an absolute http(s) URL'],
    ['a scheme without its slashes', 'http:evil.example', 'must be an absolute http(s) URL'],
  ])('refuses %s', (_name, value, problem) => {
    expect(httpUrlProblem(value)).toContain(problem);
  });
});

describe('the URL fields', () => {
  it('httpUrl says an unparsable value is no URL once, and keeps its bound', () => {
    expect(httpUrl().safeParse('https://x.example/').success).toBe(true);
    expect(httpUrl().safeParse('notaurl').error?.issues).toHaveLength(1);
    expect(httpUrl({ max: 10 }).safeParse('https://x.example/long').success).toBe(false);
  });

  it("httpUrl refuses surrounding spaces and line breaks rather than trimming them (as zod 4's .url() would)", () => {
    for (const value of [' https://x.example/', 'https://x.example/\n', 'https://x.exa\tmple/']) {
      expect(httpUrl().safeParse(value).error?.issues).toEqual([
        expect.objectContaining({ code: 'custom', message: expect.stringContaining('must not contain spaces') }),
      ]);
    }
  });

  it('sitePathOrHttpUrl takes a path of the site or an absolute URL, not a path that leaves it', () => {
    const link = sitePathOrHttpUrl({ max: 200 });
    expect(link.safeParse('/rewards?tab=new').success).toBe(true);
    expect(link.safeParse('https://x.example/').success).toBe(true);
    expect(link.safeParse('//evil.example').success).toBe(false);
    expect(link.safeParse('/%5Cevil.example').success).toBe(false);
    expect(link.safeParse('rewards').error?.issues[0]?.message).toBe(
      'must be an absolute http(s) URL or a path starting with a single /',
    );
  });
});
