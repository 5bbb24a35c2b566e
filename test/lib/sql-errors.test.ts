import { describe, expect, it } from 'vitest';
import { isCheckViolation, isUniqueViolation } from '../../src/lib/sql-errors.js';

describe('SQL error predicates', () => {
  const duplicate = { code: '23505', constraint: 'users_email_key' };
  const refused = { code: '23514', constraint: 'credits_non_negative' };

  it('tells a unique violation, of any index or of the one named', () => {
    expect(isUniqueViolation(duplicate)).toBe(true);
    expect(isUniqueViolation(duplicate, 'users_email_key')).toBe(true);
    expect(isUniqueViolation(duplicate, 'roles_key_key')).toBe(false);
    expect(isUniqueViolation(refused)).toBe(false);
  });

  it('tells a check violation of the constraint named', () => {
    expect(isCheckViolation(refused, 'credits_non_negative')).toBe(true);
    expect(isCheckViolation(refused, 'other_check')).toBe(false);
    expect(isCheckViolation(duplicate, 'users_email_key')).toBe(false);
  });

  it('is false for anything that is not an error object', () => {
    for (const value of [undefined, null, '23505', 23505]) {
      expect(isUniqueViolation(value)).toBe(false);
      expect(isCheckViolation(value, 'x')).toBe(false);
    }
  });
});
