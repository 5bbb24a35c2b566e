import { describe, expect, it } from 'vitest';
import { imageReferenceProblem } from '../../src/runtime-sim/image-reference.js';

/** Which image references the simulated runtime accepts for a pull, and what it says otherwise. */

describe('imageReferenceProblem', () => {
  it.each([
    'games/base:latest',
    'nginx',
    'library/nginx:1.27-alpine',
    'a_b__c-d--e/f.g',
    'registry.example.com/games/chess',
    'localhost/games/chess:dev',
    'localhost:5000/games/chess:V1.2_rc',
    '10.0.0.7:5000/chess',
    `games/chess@sha256:${'a1'.repeat(32)}`,
    `games/chess:1.0@sha256:${'0'.repeat(64)}`,
    `games/chess:${'t'.repeat(128)}`,
    `g/${'a'.repeat(498)}`,
  ])('accepts %s', (reference) => {
    expect(imageReferenceProblem(reference)).toBeNull();
  });

  it.each([
    { reference: '', problem: 'the image reference is empty' },
    { reference: `g/${'a'.repeat(499)}`, problem: 'the image reference is longer than 500 characters' },
    { reference: 'games/chess:1 ', problem: 'the image reference contains whitespace' },
    { reference: 'games/Chess', problem: 'repository name "Chess" must be lowercase' },
    {
      reference: 'games/-chess',
      problem: 'repository name "-chess" may hold only lowercase letters and digits, joined by ".", "_", "__" or "-"',
    },
    {
      reference: 'games/ch___ess',
      problem: 'repository name "ch___ess" may hold only lowercase letters and digits, joined by ".", "_", "__" or "-"',
    },
    { reference: 'games/', problem: 'the repository name has an empty path component' },
    { reference: '/games', problem: 'the repository name has an empty path component' },
    {
      reference: 'games/chess:',
      problem: 'tag "" must be 1 to 128 letters, digits, "_", "." or "-", not starting with "." or "-"',
    },
    {
      reference: 'games/chess:.x',
      problem: 'tag ".x" must be 1 to 128 letters, digits, "_", "." or "-", not starting with "." or "-"',
    },
    { reference: `games/chess:${'t'.repeat(129)}`, problem: expect.stringMatching(/^tag "t+" must be 1 to 128/) },
    {
      reference: 'games/chess:a:b',
      problem: 'tag "a:b" must be 1 to 128 letters, digits, "_", "." or "-", not starting with "." or "-"',
    },
    {
      reference: 'games/chess@sha256:ABC',
      problem: 'digest "sha256:ABC" must be "sha256:" followed by 64 lowercase hex digits',
    },
    {
      reference: `games/chess@md5:${'0'.repeat(64)}`,
      problem: expect.stringMatching(/^digest "md5:0+" must be "sha256:"/),
    },
    {
      reference: 'bad_host.example.com:5000/chess',
      problem: 'registry "bad_host.example.com:5000" is not a host name with an optional port',
    },
    {
      reference: 'registry.example.com:port/chess',
      problem: 'registry "registry.example.com:port" is not a host name with an optional port',
    },
  ])('refuses $reference: $problem', ({ reference, problem }) => {
    expect(imageReferenceProblem(reference)).toEqual(problem);
  });
});
